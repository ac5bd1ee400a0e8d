import Foundation
import RecorderExport
import RecorderModel
@testable import RecorderPlot
import RecorderTestSupport
import Testing

/// Plots of the fixed run of the golden tests: the PNG decoded by Tests/Tools/check_png.py
/// (Python's zlib alone: CRCs, size, ink in every panel), the SVG's structure against its golden
/// file (check_svg.py), and the refusals.
@Suite("Plots", .timeLimit(.minutes(1)))
struct PlotTests {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools").standardized.path

    struct PNGCheck: Decodable {
        var width: Int
        var height: Int
        var bands: [Double]
        var colours: Int
    }

    static func python(_ script: String, _ arguments: [String]) async throws -> String {
        let p = try await ChildProcess("/usr/bin/env", ["python3", tools + "/" + script] + arguments)
        let status = try await p.wait(timeout: 60)
        let printed = p.printed
        try #require(status == 0, "\(script): \(printed)")
        return printed
    }

    @Test(.ownThread) func thePNGHasAPanelPerSensorTypeAndInkInEach() async throws {
        let run = try ExportGoldenTests.makeRun()
        let png = (run as NSString).deletingLastPathComponent + "/run.png"
        let plot = try RunPlot(run: try RunSource(directory: run))
        try plot.write(to: png)
        // Panels: motion's accelerometer and gyro, location's fixes (gait steps are marks).
        let panelHeight = 190 + 26
        let printed = try await Self.python("check_png.py", [png, String(panelHeight)])
        let check = try JSONDecoder().decode(PNGCheck.self, from: Data(try #require(printed.split(separator: "\n").last).utf8))
        #expect(check.width == 1600 && check.height == 78 + 3 * panelHeight + 46)
        // Every panel's band of rows has drawing in it (frame, grid, data, legend), the image
        // more than a few colours (the series', the shading's, the text's anti-aliasing).
        #expect(check.bands.count == 4 && check.bands.prefix(3).allSatisfy { $0 > 0.05 }, "\(check.bands)")
        #expect(check.colours > 50)
    }

    @Test(.ownThread) func theSVGsStructureMatchesItsGoldenFile() async throws {
        let run = try ExportGoldenTests.makeRun()
        let svg = (run as NSString).deletingLastPathComponent + "/run.svg"
        try RunPlot(run: try RunSource(directory: run)).write(to: svg)
        let structure = try await Self.python("check_svg.py", [svg])
        try ExportGoldenTests.compare(Data(structure.utf8), golden: "plot.svg.structure.txt")
    }

    @Test func aPlotNeverWritesOverAFileOrInAnotherFormat() throws {
        let run = try ExportGoldenTests.makeRun()
        let plot = try RunPlot(run: try RunSource(directory: run))
        #expect(throws: ExportError.self) { try plot.write(to: run + "/../plot.jpg") }
        #expect(throws: ExportError.self) { try plot.write(to: run + "/taskResult.json") }
        let existing = (run as NSString).deletingLastPathComponent + "/taken.png"
        FileManager.default.createFile(atPath: existing, contents: Data("x".utf8))
        #expect(throws: ExportError.self) { try plot.write(to: existing) }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "x")
    }

    /// cairo is loaded when a plot is drawn: a machine without it gets a clear error then (here a
    /// soname that does not exist stands for the missing library).
    @Test func withoutCairoAPlotIsAClearError() throws {
        #expect(throws: ExportError.output("plots need cairo (libcairo-absent.so.9, Debian's libcairo2): libcairo-absent.so.9: cannot open shared object file: No such file or directory")) {
            try Cairo(soname: "libcairo-absent.so.9")
        }
        #expect(throws: Never.self) { try Cairo.shared.get() }
    }
}
