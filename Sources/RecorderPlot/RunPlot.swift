import FoundationEssentials
import Glibc
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// A run drawn for people: one panel per sensor type of each recorder against time (seconds from
/// the run's start), the task's steps shaded and labelled across all panels, gaps (red bands) and
/// errors (dark red dashed lines, "!") on their recorder's panels, and gait steps as ticks on the
/// panels of their device. Read in one streaming pass; each series keeps a min/max envelope per
/// pixel column, so memory does not grow with the run.
public struct RunPlot {
    /// Pixels: the whole width, the margins around the plot area, a panel's height.
    static let width = 1600
    static let left = 90.0, right = 190.0, top = 78.0, bottom = 46.0, panelHeight = 190.0, panelGap = 26.0
    static var plotWidth: Int { width - Int(left + right) }

    /// Canonical panel order within a recorder.
    static let order = ["accelerometer", "gyro", "magnetometer", "attitude", "gravity", "userAcceleration", "rotationRate", "magneticField",
                        "location", "soundLevel"]

    let title: String
    let subtitle: String
    /// Uptimes of the plot's left and right edges.
    let start: Double
    let end: Double
    var panels: [PlotPanel] = []
    let steps: [(path: String, start: Double, end: Double?)]
    /// Gait steps (uptimes) by device.
    var stepMarks: [String: [Double]] = [:]
    /// What the reader should know (torn last lines).
    public private(set) var warnings: [String] = []

    /// Reads `run` once.
    public init(run: RunSource) throws(ExportError) {
        let result = run.result
        start = run.startUptime
        var last = ([result.stepHistory.compactMap(\.endUptime), result.stepHistory.map(\.startUptime),
                     result.asyncResults.compactMap(\.file).compactMap(\.endUptime)].joined()).max() ?? start
        for file in run.recordFiles where file.endUptime == nil {
            last = max(last, run.reader(of: file).lastUptime() ?? last)
        }
        end = max(last, start + 1e-3)
        title = "\(result.taskIdentifier)  \(result.taskRunUUID.uuidString.lowercased())"
        subtitle = "\(ISO8601Timestamp.string(from: result.startDate)) · \(CFormat.string("%.1f", end - start)) s · \(result.status.rawValue)"
        steps = result.stepHistory.map { ($0.stepPath, $0.startUptime, $0.endUptime) }

        let columns = Self.plotWidth
        for file in run.recordFiles {
            let device = file.device ?? file.identifier
            let types = Self.order.filter { file.units[$0] != nil }
            let isGait = file.units["step"] != nil
            var local = types.map { type in
                PlotPanel(title: "\(file.identifier) · \(type) (\(file.units[type] ?? ""))", sensorType: type, device: device,
                          series: PlotPanel.seriesNames(type).map { PlotSeries(name: $0.0, color: $0.1, columns: columns) })
            }
            var marks: [Double] = []
            let (span, origin) = (end - start, start)
            let outcome = try run.reader(of: file).forEachPrefetched { (r) throws(ExportError) in
                guard let uptime = r.uptime else { return }
                if r.event == "gap" {
                    for i in local.indices where r.sensorType == nil || local[i].sensorType == r.sensorType || r.sensorType == "soundLevel" {
                        local[i].gaps.append((uptime, r.droppedSamples ?? 0, r.duration))
                    }
                    return
                }
                if r.event == "error" {
                    for i in local.indices { local[i].errors.append((uptime, r.errorDescription ?? "error")) }
                    return
                }
                if isGait, r.event == "step" {
                    marks.append(uptime)
                    return
                }
                guard let type = r.sensorType, r.event == nil, let i = local.firstIndex(where: { $0.sensorType == type }) else { return }
                let column = Int(((uptime - origin) / span * Double(columns)).rounded(.down))
                let values = PlotPanel.values(RecordValues(x: r.x, y: r.y, z: r.z, w: r.w, speed: r.speed, horizontalAccuracy: r.horizontalAccuracy,
                                                           average: r.average, peak: r.peak, heartRate: r.heartRateReading),
                                              sensorType: type)
                for (k, v) in values.enumerated() { local[i].series[k].add(v, column: min(column, columns - 1)) }
            }
            if outcome.tornLastLine {
                warnings.append("\(file.relativePath): its last line was torn (an interrupted write) and is left out")
            }
            panels += local
            if !marks.isEmpty { stepMarks[device, default: []] += marks }
        }
    }

    /// The panels drawn (a sensor type of a recorder each).
    public var panelCount: Int { panels.count }

    /// The image's height for its panels.
    var height: Int { Int(Self.top + Double(max(1, panels.count)) * (Self.panelHeight + Self.panelGap) + Self.bottom) }

    /// Writes the plot as PNG or SVG, chosen by `path`'s extension.
    public func write(to path: String) throws(ExportError) {
        let lower = path.lowercased()
        guard lower.hasSuffix(".png") || lower.hasSuffix(".svg") else {
            throw .output("\(path): the plot's file name must end in .png or .svg")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .output("\(path) exists: choose a new path (a plot never writes over files)")
        }
        try PlotRenderer(plot: self).render(to: path, svg: lower.hasSuffix(".svg"))
    }
}
