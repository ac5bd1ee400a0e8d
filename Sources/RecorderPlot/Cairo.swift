import CCairo
import FoundationEssentials
import Glibc
import RecorderExport

/// The cairo functions the plots use, loaded from `libcairo.so.2` the first time a plot is drawn.
///
/// recorderd links every module, and cairo brings 17 libraries (pixman, fontconfig, freetype,
/// libpng, the X client libraries …) that a daemon which never draws a plot still mapped and
/// relocated at each start: 1.9 MiB of its resident memory and a quarter of the libraries the
/// dynamic loader opened. The headers still give the types and constants (`CCairo`, which no
/// longer links the library); the functions come from `dlsym`. A machine without cairo gets a
/// clear error when it asks for a plot, not a daemon that cannot start.
struct Cairo: @unchecked Sendable {
    // @unchecked: C function pointers into a library that stays loaded; immutable.
    typealias Context = OpaquePointer
    typealias Surface = OpaquePointer
    typealias Text = UnsafePointer<CChar>?

    let svgSurfaceCreate: @convention(c) (Text, Double, Double) -> Surface?
    let imageSurfaceCreate: @convention(c) (cairo_format_t, Int32, Int32) -> Surface?
    let surfaceDestroy: @convention(c) (Surface?) -> Void
    let surfaceFinish: @convention(c) (Surface?) -> Void
    let surfaceStatus: @convention(c) (Surface?) -> cairo_status_t
    let surfaceWriteToPNG: @convention(c) (Surface?, Text) -> cairo_status_t
    let create: @convention(c) (Surface?) -> Context?
    let destroy: @convention(c) (Context?) -> Void
    let status: @convention(c) (Context?) -> cairo_status_t
    let statusToString: @convention(c) (cairo_status_t) -> Text
    let setSourceRGBA: @convention(c) (Context?, Double, Double, Double, Double) -> Void
    let selectFontFace: @convention(c) (Context?, Text, cairo_font_slant_t, cairo_font_weight_t) -> Void
    let setFontSize: @convention(c) (Context?, Double) -> Void
    let textExtents: @convention(c) (Context?, Text, UnsafeMutablePointer<cairo_text_extents_t>?) -> Void
    let showText: @convention(c) (Context?, Text) -> Void
    let moveTo: @convention(c) (Context?, Double, Double) -> Void
    let lineTo: @convention(c) (Context?, Double, Double) -> Void
    let setLineWidth: @convention(c) (Context?, Double) -> Void
    let setDash: @convention(c) (Context?, UnsafePointer<Double>?, Int32, Double) -> Void
    let rectangle: @convention(c) (Context?, Double, Double, Double, Double) -> Void
    let arc: @convention(c) (Context?, Double, Double, Double, Double, Double) -> Void
    let closePath: @convention(c) (Context?) -> Void
    let newPath: @convention(c) (Context?) -> Void
    let stroke: @convention(c) (Context?) -> Void
    let fill: @convention(c) (Context?) -> Void
    let paint: @convention(c) (Context?) -> Void
    let clip: @convention(c) (Context?) -> Void
    let save: @convention(c) (Context?) -> Void
    let restore: @convention(c) (Context?) -> Void

    /// The library's soname (Debian's libcairo2).
    static let soname = "libcairo.so.2"

    /// Loaded once, on the first plot; the library stays loaded.
    static let shared: Result<Cairo, ExportError> = Result { () throws(ExportError) in try Cairo(soname: soname) }

    init(soname: String) throws(ExportError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw .output("plots need cairo (\(soname), Debian's libcairo2): \(reason)")
        }
        func load<F>(_ name: String) throws(ExportError) -> F {
            guard let symbol = dlsym(handle, name) else { throw .output("plots need cairo: \(soname) has no \(name)") }
            return unsafeBitCast(symbol, to: F.self)
        }
        svgSurfaceCreate = try load("cairo_svg_surface_create")
        imageSurfaceCreate = try load("cairo_image_surface_create")
        surfaceDestroy = try load("cairo_surface_destroy")
        surfaceFinish = try load("cairo_surface_finish")
        surfaceStatus = try load("cairo_surface_status")
        surfaceWriteToPNG = try load("cairo_surface_write_to_png")
        create = try load("cairo_create")
        destroy = try load("cairo_destroy")
        status = try load("cairo_status")
        statusToString = try load("cairo_status_to_string")
        setSourceRGBA = try load("cairo_set_source_rgba")
        selectFontFace = try load("cairo_select_font_face")
        setFontSize = try load("cairo_set_font_size")
        textExtents = try load("cairo_text_extents")
        showText = try load("cairo_show_text")
        moveTo = try load("cairo_move_to")
        lineTo = try load("cairo_line_to")
        setLineWidth = try load("cairo_set_line_width")
        setDash = try load("cairo_set_dash")
        rectangle = try load("cairo_rectangle")
        arc = try load("cairo_arc")
        closePath = try load("cairo_close_path")
        newPath = try load("cairo_new_path")
        stroke = try load("cairo_stroke")
        fill = try load("cairo_fill")
        paint = try load("cairo_paint")
        clip = try load("cairo_clip")
        save = try load("cairo_save")
        restore = try load("cairo_restore")
    }

    /// A status as cairo words it.
    func describe(_ status: cairo_status_t) -> String {
        statusToString(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    }
}
