import CCairo
import FoundationEssentials
import Glibc
import RecorderExport
import RecorderRuntime

/// Draws a `RunPlot` with cairo onto a PNG (image surface) or SVG surface.
struct PlotRenderer {
    let plot: RunPlot
    /// Loaded on the first plot (`Cairo`).
    let cairo: Cairo
    typealias Context = OpaquePointer

    init(plot: RunPlot) throws(ExportError) {
        self.plot = plot
        cairo = try Cairo.shared.get()
    }

    func render(to path: String, svg: Bool) throws(ExportError) {
        let (width, height) = (Double(RunPlot.width), Double(plot.height))
        guard let surface = svg ? cairo.svgSurfaceCreate(path, width, height) : cairo.imageSurfaceCreate(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        else { throw .output("\(path): cairo could not make a surface") }
        defer { cairo.surfaceDestroy(surface) }
        guard let cr = cairo.create(surface) else { throw .output("\(path): cairo could not make a context") }
        draw(cr)
        let status = cairo.status(cr)
        cairo.destroy(cr)
        guard status == CAIRO_STATUS_SUCCESS else { throw .output("\(path): cairo: \(cairo.describe(status))") }
        if svg {
            cairo.surfaceFinish(surface)
            let finished = cairo.surfaceStatus(surface)
            guard finished == CAIRO_STATUS_SUCCESS else { throw .output("\(path): cairo: \(cairo.describe(finished))") }
        } else {
            let written = cairo.surfaceWriteToPNG(surface, path)
            guard written == CAIRO_STATUS_SUCCESS else { throw .output("\(path): \(cairo.describe(written))") }
        }
    }

    // MARK: Geometry

    var plotLeft: Double { RunPlot.left }
    var plotRight: Double { Double(RunPlot.width) - RunPlot.right }

    func x(_ uptime: Double) -> Double {
        plotLeft + (uptime - plot.start) / (plot.end - plot.start) * (plotRight - plotLeft)
    }

    func panelTop(_ index: Int) -> Double { RunPlot.top + Double(index) * (RunPlot.panelHeight + RunPlot.panelGap) }

    // MARK: Drawing

    private func color(_ cr: Context, _ c: PlotColor, alpha: Double = 1) { cairo.setSourceRGBA(cr, c.red, c.green, c.blue, alpha) }

    private func text(_ cr: Context, _ s: String, x: Double, y: Double, size: Double = 12, bold: Bool = false, align: Double = 0) {
        cairo.selectFontFace(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo.setFontSize(cr, size)
        var extents = cairo_text_extents_t()
        cairo.textExtents(cr, s, &extents)
        cairo.moveTo(cr, x - extents.x_advance * align, y)
        cairo.showText(cr, s)
    }

    private func line(_ cr: Context, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, width: Double = 1) {
        cairo.setLineWidth(cr, width)
        cairo.moveTo(cr, x0, y0)
        cairo.lineTo(cr, x1, y1)
        cairo.stroke(cr)
    }

    func draw(_ cr: Context) {
        color(cr, PlotColor(0xFFFFFF))
        cairo.paint(cr)
        color(cr, .text)
        text(cr, plot.title, x: plotLeft, y: 28, size: 18, bold: true)
        color(cr, .axis)
        text(cr, plot.subtitle, x: plotLeft, y: 48, size: 12)
        let bottom = panelTop(plot.panels.count) - RunPlot.panelGap
        drawSteps(cr, bottom: bottom)
        for (i, panel) in plot.panels.enumerated() { drawPanel(cr, panel, top: panelTop(i)) }
        if plot.panels.isEmpty {
            color(cr, .axis)
            text(cr, "no samples recorded", x: (plotLeft + plotRight) / 2, y: RunPlot.top + RunPlot.panelHeight / 2, size: 14, align: 0.5)
        }
        drawTimeAxis(cr, y: bottom)
    }

    /// The task's steps: alternate shading across every panel, each labelled above the first.
    func drawSteps(_ cr: Context, bottom: Double) {
        for (i, step) in plot.steps.enumerated() {
            let x0 = max(plotLeft, x(step.start)), x1 = min(plotRight, x(step.end ?? plot.end))
            guard x1 > x0 else { continue }
            if i % 2 == 0 {
                color(cr, .stepShade)
                cairo.rectangle(cr, x0, RunPlot.top - 14, x1 - x0, bottom - RunPlot.top + 14)
                cairo.fill(cr)
            }
            color(cr, .axis)
            cairo.setDash(cr, [3, 3], 2, 0)
            line(cr, x0, RunPlot.top - 14, x0, bottom)
            cairo.setDash(cr, nil, 0, 0)
            // The label: the step's last component, clipped to its band.
            cairo.save(cr)
            cairo.rectangle(cr, x0, RunPlot.top - 28, x1 - x0, 18)
            cairo.clip(cr)
            color(cr, .text)
            text(cr, String(step.path.split(separator: "/").last ?? Substring(step.path)), x: x0 + 4, y: RunPlot.top - 16, size: 11, bold: true)
            cairo.restore(cr)
        }
    }

    func drawPanel(_ cr: Context, _ panel: PlotPanel, top: Double) {
        let height = RunPlot.panelHeight
        // The value range, padded; a flat series gets a range of its own.
        var (low, high) = panel.series.compactMap(\.range).reduce((Double.infinity, -Double.infinity)) { (min($0.0, $1.0), max($0.1, $1.1)) }
        if low > high { (low, high) = (-1, 1) }
        if high - low < 1e-12 { (low, high) = (low - max(1, abs(low)) * 0.1, high + max(1, abs(high)) * 0.1) }
        let pad = (high - low) * 0.06
        (low, high) = (low - pad, high + pad)
        func y(_ v: Double) -> Double { top + height - (v - low) / (high - low) * height }

        // Frame, grid and value ticks.
        color(cr, .grid)
        for tick in Self.ticks(low, high) {
            line(cr, plotLeft, y(tick), plotRight, y(tick), width: 0.6)
            color(cr, .axis)
            text(cr, Self.label(tick), x: plotLeft - 6, y: y(tick) + 4, size: 10, align: 1)
            color(cr, .grid)
        }
        color(cr, .axis)
        cairo.setLineWidth(cr, 1)
        cairo.rectangle(cr, plotLeft, top, plotRight - plotLeft, height)
        cairo.stroke(cr)

        // The data: each column's envelope, joined column to column.
        cairo.save(cr)
        cairo.rectangle(cr, plotLeft, top, plotRight - plotLeft, height)
        cairo.clip(cr)
        // Columns without a sample are bridged (a slow sensor, a sparse recorder), except across
        // a gap: the line breaks there. A lone sample is a dot.
        let gapColumns = panel.gaps.map { x($0.uptime) - plotLeft }
        for series in panel.series {
            color(cr, series.color, alpha: 0.9)
            cairo.setLineWidth(cr, 1.2)
            var previous: Int?
            var run = 0
            func endRun(at column: Int) {
                if run == 1 {
                    cairo.newPath(cr)
                    cairo.arc(cr, plotLeft + Double(column) + 0.5, y(series.minimum[column]), 2, 0, 2 * Double.pi)
                    cairo.fill(cr)
                } else if run > 1 {
                    cairo.stroke(cr)
                }
                run = 0
            }
            for c in series.minimum.indices where series.minimum[c] <= series.maximum[c] {
                let px = plotLeft + Double(c) + 0.5
                if let p = previous, gapColumns.contains(where: { $0 > Double(p) && $0 <= Double(c) + 1 }) { endRun(at: p) }
                if run > 0 { cairo.lineTo(cr, px, y(series.minimum[c])) } else { cairo.moveTo(cr, px, y(series.minimum[c])) }
                cairo.lineTo(cr, px, y(series.maximum[c]))
                run += 1
                previous = c
            }
            if let p = previous { endRun(at: p) }
        }
        // Gaps: red bands (at least 2 px) with the samples lost.
        for gap in panel.gaps {
            let x0 = x(gap.uptime), w = max(2, (gap.duration ?? 0) / (plot.end - plot.start) * (plotRight - plotLeft))
            color(cr, .gap, alpha: 0.35)
            cairo.rectangle(cr, x0 - w, top, w, height)
            cairo.fill(cr)
            color(cr, .gap)
            text(cr, "gap \(gap.dropped)", x: x0 + 2, y: top + height - 6, size: 10)
        }
        // Errors: dashed lines marked "!".
        for error in panel.errors {
            color(cr, .error)
            cairo.setDash(cr, [5, 3], 2, 0)
            line(cr, x(error.uptime), top, x(error.uptime), top + height, width: 1.5)
            cairo.setDash(cr, nil, 0, 0)
            text(cr, "!", x: x(error.uptime) + 3, y: top + 30, size: 14, bold: true)
        }
        // Gait steps of this panel's device (or of any device, when it has no panel): ticks.
        let hasPanel = plot.panels.contains { plot.stepMarks[$0.device] != nil }
        let marks = hasPanel ? plot.stepMarks[panel.device] ?? [] : plot.stepMarks.values.flatMap { $0 }
        color(cr, .stepMark)
        for m in marks {
            let px = x(m)
            cairo.moveTo(cr, px - 4, top + 1)
            cairo.lineTo(cr, px + 4, top + 1)
            cairo.lineTo(cr, px, top + 9)
            cairo.closePath(cr)
            cairo.fill(cr)
        }
        cairo.restore(cr)

        // The title over the data, on a backdrop.
        cairo.selectFontFace(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo.setFontSize(cr, 12)
        var extents = cairo_text_extents_t()
        cairo.textExtents(cr, panel.title, &extents)
        color(cr, PlotColor(0xFFFFFF), alpha: 0.85)
        cairo.rectangle(cr, plotLeft + 2, top + 12, extents.x_advance + 8, 17)
        cairo.fill(cr)
        color(cr, .text)
        text(cr, panel.title, x: plotLeft + 6, y: top + 25, size: 12, bold: true)

        // Legend.
        var ly = top + 18
        for series in panel.series {
            color(cr, series.color)
            line(cr, plotRight + 14, ly - 4, plotRight + 40, ly - 4, width: 2.5)
            color(cr, .text)
            text(cr, series.name, x: plotRight + 46, y: ly, size: 11)
            ly += 18
        }
        if !marks.isEmpty {
            color(cr, .stepMark)
            cairo.moveTo(cr, plotRight + 23, ly - 9)
            cairo.lineTo(cr, plotRight + 31, ly - 9)
            cairo.lineTo(cr, plotRight + 27, ly - 1)
            cairo.closePath(cr)
            cairo.fill(cr)
            color(cr, .text)
            text(cr, "gait step (\(marks.count))", x: plotRight + 46, y: ly, size: 11)
            ly += 18
        }
        if !panel.gaps.isEmpty {
            color(cr, .gap)
            text(cr, "\(panel.gaps.count) gap\(panel.gaps.count == 1 ? "" : "s"), \(panel.gaps.reduce(0) { $0 + $1.dropped }) lost", x: plotRight + 14, y: ly, size: 11)
            ly += 18
        }
        if !panel.errors.isEmpty {
            color(cr, .error)
            text(cr, "\(panel.errors.count) error\(panel.errors.count == 1 ? "" : "s")", x: plotRight + 14, y: ly, size: 11)
        }
    }

    func drawTimeAxis(_ cr: Context, y: Double) {
        color(cr, .axis)
        for tick in Self.ticks(0, plot.end - plot.start) where tick >= 0 {
            let px = x(plot.start + tick)
            line(cr, px, y, px, y + 5)
            text(cr, Self.label(tick), x: px, y: y + 18, size: 10, align: 0.5)
        }
        text(cr, "seconds from the run's start", x: (plotLeft + plotRight) / 2, y: y + 36, size: 11, align: 0.5)
    }

    /// Round tick values across `low…high`: 1, 2 or 5 × 10ⁿ apart, about five of them.
    static func ticks(_ low: Double, _ high: Double) -> [Double] {
        let span = high - low
        guard span > 0, span.isFinite else { return [] }
        let raw = span / 5
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        var ticks: [Double] = []
        var t = (low / step).rounded(.up) * step
        while t <= high, ticks.count < 50 {
            ticks.append(abs(t) < step * 1e-9 ? 0 : t)
            t += step
        }
        return ticks
    }

    static func label(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e6 { return String(Int(v)) }
        let s = CFormat.string("%.3g", v)
        return s
    }
}
