import FoundationEssentials
import Glibc
import RecorderModel

/// `mcap`: one MCAP file for Foxglove (and any MCAP reader): a channel per device and sensor type
/// (`/<device>/<sensorType>`, JSON messages — the records as recorded, with a JSON schema), GPS
/// fixes with coordinates as `foxglove.LocationFix` on `/<device>/location` so the map panel
/// shows the walk (fixes without: as recorded on `/<device>/fix`), each recorder's gaps and errors on
/// `/<device>/events`, and the task's step boundaries on `/steps`. `log_time` is the record's
/// `uptime` mapped to wall time through the run's start (the date and uptime the manifest pairs).
public struct MCAPExporter: Exporter {
    public var format: ExportFormat { .mcap }

    /// Uncompressed bytes of messages per chunk (1 MiB unless a test asks for smaller ones).
    let chunkSize: Int

    public init() {
        chunkSize = MCAPWriter.defaultChunkSize
    }

    /// With chunks of `chunkSize` bytes (tests: several chunks from a short run).
    init(chunkSize: Int) {
        self.chunkSize = chunkSize
    }

    public func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport {
        try OutputDirectory.refuseInside(output, runDirectory: run.directory)
        var report = ExportReport()
        if run.result.status == .recording {
            report.warnings.append("the run is still recording: exported up to its last complete line")
        }
        let clock = try WallClock(run.result)
        let writer = try MCAPWriter(path: output, library: "recorderd \(RecorderVersion.string)", chunkSize: chunkSize)
        var topics = MCAPTopics(writer: writer)

        // The step boundaries, from the manifest.
        let steps = try topics.channel("/steps", schema: MCAPSchemas.step)
        for step in run.result.stepHistory {
            try writer.addMessage(channel: steps, logTime: try clock.nanoseconds(step.startUptime),
                                  data: MCAPSchemas.stepMessage(step.stepPath, event: "start", uptime: step.startUptime))
            if let end = step.endUptime {
                try writer.addMessage(channel: steps, logTime: try clock.nanoseconds(end), data: MCAPSchemas.stepMessage(step.stepPath, event: "end", uptime: end))
            }
        }

        let files = run.recordFiles
        let eventKinds = Set(run.schema.eventKinds.map(\.name))
        var encoder = JSONLinesEncoder(reservingCapacity: 4096)
        for file in files {
            let (base, events) = Self.topics(of: file, among: files)
            // Channels by sensor type for this file (the topic and schema are made once each).
            var channels: [String: UInt16] = [:]
            var eventChannel: UInt16?, locationChannel: UInt16?
            let outcome = try run.reader(of: file).forEachPrefetched { (record) throws(ExportError) in
                guard let uptime = record.uptime, !record.isMarker else { return }
                let time = try clock.nanoseconds(uptime)
                // Events: gaps, discarded spans and errors (the schema's event kinds), and records of no
                // kind or sensor type; every other record goes to its sensor type's channel.
                let type = run.schema.recordedType(of: record)
                let isEvent = type == nil || (record.event != nil && run.schema.kind(of: record).map { eventKinds.contains($0.name) } ?? false)
                if !isEvent, type == SensorType.location.rawValue, record.latitude != nil, record.longitude != nil {
                    if locationChannel == nil { locationChannel = try topics.channel("/\(base)/location", schema: MCAPSchemas.locationFix) }
                    try writer.addMessage(channel: locationChannel!, logTime: time, data: MCAPSchemas.locationFix(record, nanoseconds: time, frame: base))
                    return
                }
                let channel: UInt16
                if isEvent {
                    if eventChannel == nil { eventChannel = try topics.channel(events, schema: MCAPSchemas.event(run.schema)) }
                    channel = eventChannel!
                } else if let known = channels[type!] {
                    channel = known
                } else {
                    // Fixes without coordinates (no position, or coordinates not saved) as recorded.
                    channel = try topics.channel("/\(base)/\(type == SensorType.location.rawValue ? "fix" : type!)", schema: MCAPSchemas.record(type!, schema: run.schema))
                    channels[type!] = channel
                }
                encoder.removeAll()
                encoder.appendRecord(record, schema: run.schema)
                try writer.addMessage(channel: channel, logTime: time, data: encoder.bytes.dropLast())
            }
            report.records += outcome.records
            if outcome.tornLastLine {
                report.warnings.append("\(file.relativePath): its last line was torn (an interrupted write) and is left out")
            }
        }
        try writer.finish()
        report.files = [output]
        return report
    }

    /// A recorder's topic prefix and events topic: `/<device>` and `/<device>/events`; when
    /// another recorder of the run records a sensor type of the same device, its own prefix
    /// (`/<identifier>`), and when another recorder shares only the device, its own events topic
    /// (`/<device>/<identifier>/events`: each channel's messages stay in time order).
    static func topics(of file: FileResult, among files: [FileResult]) -> (base: String, events: String) {
        let device = file.device ?? file.identifier
        let others = files.filter { $0.identifier != file.identifier && ($0.device ?? $0.identifier) == device }
        if others.contains(where: { !Set($0.units.keys).isDisjoint(with: file.units.keys) }) {
            return (file.identifier, "/\(file.identifier)/events")
        }
        return (device, others.isEmpty ? "/\(device)/events" : "/\(device)/\(file.identifier)/events")
    }
}

/// The run's uptimes as wall-clock nanoseconds: the manifest's earliest (date, uptime) pair.
struct WallClock {
    let date: Double
    let uptime: Double
    /// The date in nanoseconds since 1970, in integers: its whole seconds and its fraction (to
    /// the microsecond: the manifest's dates have milliseconds) — no 2⁻⁵³ rounding of 1.8e18 ns.
    private let base: Int64

    init(_ result: TaskResult) throws(ExportError) {
        var pairs = result.asyncResults.compactMap(\.file).map { ($0.startDate, $0.startUptime) }
        pairs += result.stepHistory.map { ($0.startDate, $0.startUptime) }
        if let first = pairs.min(by: { $0.1 < $1.1 }) {
            date = first.0.timeIntervalSince1970
            uptime = first.1
        } else {
            // No recorder and no step: nothing has a time.
            date = result.startDate.timeIntervalSince1970
            uptime = 0
        }
        let whole = date.rounded(.down)
        guard whole.isFinite, whole >= 0, whole < 1.8e10 else { throw .badFile("the run's start date \(date) s since 1970 is not a time an MCAP file holds") }
        base = Int64(whole) * 1_000_000_000 + Int64(((date - whole) * 1e6).rounded()) * 1000
    }

    /// `uptime` in nanoseconds since 1970; an error for a time an MCAP timestamp cannot hold.
    func nanoseconds(_ value: Double) throws(ExportError) -> UInt64 {
        let offset = value - uptime
        let seconds = date + offset
        guard seconds.isFinite, seconds >= 0, seconds < 1.8e10 else {
            throw .badFile("uptime \(value) maps to \(seconds) s since 1970: not a time an MCAP file holds")
        }
        return UInt64(base + Int64((offset * 1e9).rounded()))
    }
}

/// The channels made so far, by topic, and their schemas, by name.
struct MCAPTopics {
    let writer: MCAPWriter
    var channels: [String: UInt16] = [:]
    var schemas: [String: UInt16] = [:]

    mutating func channel(_ topic: String, schema: MCAPSchemas.Schema) throws(ExportError) -> UInt16 {
        if let id = channels[topic] { return id }
        let schemaID: UInt16
        if let id = schemas[schema.name] {
            schemaID = id
        } else {
            schemaID = try writer.addSchema(name: schema.name, encoding: "jsonschema", data: Array(schema.json.utf8))
            schemas[schema.name] = schemaID
        }
        let id = try writer.addChannel(schema: schemaID, topic: topic, messageEncoding: "json")
        channels[topic] = id
        return id
    }
}
