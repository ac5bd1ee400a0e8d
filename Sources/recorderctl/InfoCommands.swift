import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderFleet
import RecorderModel
import RecorderProtocol
import RecorderRuntime

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon's status.")
    @OptionGroup var socket: SocketOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let client = try await socket.connect()
        let status = try await client.status()
        if json { return try Output.json(status) }
        print("recorderd \(status.version), pid \(status.pid), up \(Int(saturating: status.uptimeSeconds)) s, data in \(status.dataDirectory)")
        if let disk = status.disk {
            print("disk: runs take \(ByteCount.text(disk.runsBytes)); \(ByteCount.text(disk.freeBytes)) free of \(ByteCount.text(disk.totalBytes))")
        }
        if let services = status.services {
            print("web page and fleet link (recorderd-services): \(services.summary)")
            if let page = services.page { print("page: \(page.summary)") }
            if let fleet = services.fleet { print("fleet: \(fleet.summary)") }
        }
        if let clock = status.clock {
            print("clock: \(clock.summary)")
        }
        print("devices:")
        for d in status.devices { print("  " + DevicesCommand.line(d)) }
        print("task runs: \(status.taskRuns.isEmpty ? "none" : "")")
        for r in status.taskRuns {
            print("  \(r.taskIdentifier) \(r.taskRunUUID) step \(r.currentStepPath ?? "-") recording \(r.recording.joined(separator: ","))")
        }
        // The fleet link's upload queue (docs/fleet.md), when it has one.
        let outbox = RunOutbox(dataDirectory: status.dataDirectory)
        if FileManager.default.fileExists(atPath: outbox.directory) {
            let entries = outbox.entries()
            let pending = entries.filter { $0.state == .pending }.sorted { $0.queued < $1.queued }
            let refused = entries.filter { $0.state == .refused }
            print("uploads: \(pending.count) pending, \(entries.count - pending.count - refused.count) acknowledged, \(refused.count) refused")
            for e in pending.prefix(10) { print("  pending  \(e.taskIdentifier) \(e.taskRunUUID)") }
            for e in refused { print("  refused  \(e.taskIdentifier) \(e.taskRunUUID): \(e.error ?? "")") }
        }
    }
}

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the configured devices.")
    @OptionGroup var socket: SocketOptions
    @Flag(help: "Print JSON.") var json = false

    static func line(_ d: DeviceInfo) -> String {
        var s = "\(d.name.fitted(to: 10)) \(d.kind.fitted(to: 8)) \(d.state.rawValue.fitted(to: 12))"
        s += " " + d.sensorTypes.map(\.rawValue).joined(separator: ",")
        if let rate = d.rate { s += " @ \(rate) Hz" }
        if let fused = d.fusedTypes { s += "  fused: " + fused.map(\.rawValue).joined(separator: ",") }
        if let error = d.error { s += "  (\(error))" }
        return s
    }

    static func line(_ h: HardwareDevice) -> String {
        if let error = h.error { return "\(h.kind) \(h.source): \(error)" }
        var s = "\(h.kind) \(h.source) \(h.id)"
        if let name = h.name { s += " \(name)" }
        if let channels = h.channels { s += " [\(channels.joined(separator: ","))]" }
        if let rates = h.rates, !rates.isEmpty { s += " rates \(rates.map { $0 == $0.rounded() ? String(Int(saturating: $0)) : String($0) }.joined(separator: " ")) Hz" }
        for (k, v) in (h.details ?? [:]).sorted(by: { $0.key < $1.key }) { s += " \(k)=\(v)" }
        return s
    }

    func run() async throws {
        let client = try await socket.connect()
        let list = try await client.devicesList()
        if json { return try Output.json(list) }
        for d in list.devices { print(Self.line(d)) }
        guard let hardware = list.hardware, !hardware.isEmpty else { return }
        print("found:")
        for h in hardware { print("  " + Self.line(h)) }
    }
}

struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tail", abstract: "Show a device's live records until Ctrl-C.")
    @OptionGroup var socket: SocketOptions
    @Argument(help: "Device name.") var device: String
    @Option(help: "Records per second per sensor type.") var rate: Double?
    @Option(name: .customLong("sensor"), help: "Sensor types (repeatable).") var sensors: [String] = []
    @Flag(help: "Print NDJSON records.") var json = false
    @Option(help: "Stop after this many records (default: run until Ctrl-C).") var count: Int?

    func run() async throws {
        let types = try sensors.map { name -> SensorType in
            guard let t = SensorType(rawValue: name) else { throw ValidationError("unknown sensor type \(name)") }
            return t
        }
        let client = try await socket.connect()
        let stream = try await client.subscribeBatches(device: device, sensorTypes: types.isEmpty ? nil : types, rate: rate)
        // Every line written as it comes (not block-buffered into a pipe: `recorderctl tail imu0 | head`).
        func emit(_ line: String) { StandardStreams.output(line + "\n") }
        if !json { emit("    uptime   sensor             x          y          z") }
        var printed = 0
        for try await batch in stream {
            for (index, r) in batch.records.enumerated() {
                if json {
                    // The record's text as the daemon wrote it (a recording's line without its step path).
                    StandardStreams.output(batch.text(at: index) + [UInt8(ascii: "\n")])
                } else if r.isGap {
                    emit(CFormat.string("%10.3f   ", r.uptime ?? 0) + "\(r.sensorType ?? "") gap: \(r.droppedSamples ?? 0) samples lost")
                } else {
                    let name = (r.sensorType ?? r.event ?? "").fitted(to: 14)
                    var line = CFormat.string("%10.3f   ", r.uptime ?? 0) + name + CFormat.string(" %10.4f %10.4f %10.4f", r.x ?? .nan, r.y ?? .nan, r.z ?? .nan)
                    // Attitudes: the quaternion's w, the reference frame and (magnetometer) the heading.
                    if let w = r.w { line += CFormat.string(" w %.4f", w) + " " + (r.referenceCoordinate ?? "") }
                    if let heading = r.heading { line += CFormat.string(" heading %.1f°", heading) }
                    if let accuracy = r.eventAccuracy { line += " accuracy \(accuracy)" }
                    emit(line)
                }
                printed += 1
                if let count, printed >= count { return }
            }
        }
    }
}
