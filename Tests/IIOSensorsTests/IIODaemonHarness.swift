import FakeIIO
import Foundation
import IIOSensors
import RecorderClient
import RecorderJSON
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing

/// How recorderd reaches the fake device: libiio's local backend, or iiod in the same namespace
/// over the network backend (by URI, or through libiio's default context and `IIOD_REMOTE`).
enum IIOPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case local
    case iiod
    case iiodDefaultContext

    var testDescription: String { rawValue }

    /// The device configuration's `uri` (nil: the default context).
    var uri: String? {
        switch self {
        case .local: return "local:"
        case .iiod: return "ip:127.0.0.1"
        case .iiodDefaultContext: return nil
        }
    }

    var usesIIOD: Bool { self != .local }
}

/// A fake IIO tree, its generators (one per device, outside the namespace) and a real recorderd
/// inside the namespace, reached through its control socket.
final class IIODaemonHarness: @unchecked Sendable {
    // @unchecked: one test drives a harness, from one task at a time.
    let tree: FakeIIOTree
    let path: IIOPath
    var generators: [String: ChildProcess] = [:]
    var daemon: ChildProcess?
    var client: RecorderClient?

    var socket: String { tree.root + "/control.sock" }
    var dataDirectory: String { tree.root + "/data" }

    init(devices: [FakeIIODevice], path: IIOPath) throws {
        tree = try FakeIIOTree(devices: devices)
        self.path = path
    }

    /// Starts a generator for device `id` (see FakeIIOGenerator for the arguments).
    func startGenerator(_ id: String = "iio:device0", _ arguments: [String] = []) async throws {
        generators[id] = try await ChildProcess(ChildProcess.executable("FakeIIOGenerator"),
                                          ["--device-dir", tree.directory(id), "--fifo", tree.fifo(id)] + arguments)
    }

    /// Stops device `id`'s generator by its PID; returns what it printed.
    @discardableResult
    func stopGenerator(_ id: String = "iio:device0") async throws -> String {
        guard let g = generators.removeValue(forKey: id) else { return "" }
        try await g.stop(signal: SIGKILL, timeout: 10)
        return g.printed
    }

    /// Starts recorderd in the namespace with these `iio` device objects (`uri` added per path);
    /// returns a client once it is ready.
    func startDaemon(devices: [[String: Any]], readOnly: [String] = []) async throws -> RecorderClient {
        let devices = try devices.map { d -> DeviceConfiguration in
            var d = d
            d["kind"] = "iio"
            if let uri = path.uri { d["uri"] = uri }
            let json = try JSONParser.parse(Array(try JSONSerialization.data(withJSONObject: d)))
            return DeviceConfiguration(name: d["name"] as? String ?? "", kind: "iio", json: json)
        }
        var configuration = try TestConfiguration(directory: tree.root, devices: devices)
        configuration.daemon.ringSeconds = 10
        configuration.daemon.retryInterval = 0.5
        let ioPath = path, tree = self.tree
        let wrap: @Sendable ([String]) -> [String] = { recorderd in
            let payload = ioPath == .iiodDefaultContext ? ["/usr/bin/env", "IIOD_REMOTE=ip:127.0.0.1"] + recorderd : recorderd
            return tree.namespaceCommand(payload, generator: ChildProcess.executable("FakeIIOGenerator"), iiod: ioPath.usesIIOD, readOnly: readOnly)
        }
        // Usually ready within a second, even beside six busy loops; once, in CI, not after 20 s
        // (cause unknown): 60 s, and a failure carries recorderd's log and iiod's.
        let started = ContinuousClock.now
        do {
            let recorderd = try await TestDaemon.start(.executable(logLevel: "info", wrap: wrap), configuration, timeout: 60)
            daemon = recorderd.process
            let c = try await recorderd.client()
            client = c
            return c
        } catch {
            let iiod = (try? String(contentsOfFile: tree.root + "/iiod.log", encoding: .utf8)) ?? "(no iiod log)"
            throw IIOHarnessError("\(error) — after \(ContinuousClock.now - started); iiod printed: \(iiod)")
        }
    }

    /// Stops recorderd (SIGTERM to the namespace's init, which passes it on) and waits for it.
    func stopDaemon() async throws {
        client?.close()
        client = nil
        guard let daemon else { return }
        self.daemon = nil
        if let pid = FakeIIOTree.initPID(unsharePID: daemon.pid) { kill(pid, SIGTERM) }
        let status = try await daemon.wait(timeout: 15)
        #expect(status == 0, "recorderd's namespace exited with \(status)")
    }

    /// Stops everything by PID (the namespace dies with its first process) and removes the tree.
    func stop() async throws {
        try await stopDaemon()
        for id in generators.keys { try await stopGenerator(id) }
        tree.remove()
    }

    /// Records `motion` for `device` until `count` records of it arrived live; returns the file's
    /// records and the task result.
    func record(count: Int, types: [SensorType] = [.accelerometer, .gyro], device: String = "imu0",
                during: (@Sendable () async throws -> Void)? = nil) async throws -> (records: [Record], result: TaskResult) {
        let client = try #require(client)
        let run = try await client.startTask(identifier: "iio-test", asyncActions: [
            .motion("motion", device: device, options: MotionOptions(recorderTypes: types, frequency: 100)),
        ])
        try await awaitLiveRecords(client, device: device, count: count)
        if let during { try await during() }
        let result = try await run.finish()
        let records = try Fixtures.records(run.runDirectory + "/motion.jsonl")
        return (records, result)
    }
}

struct IIOHarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `count` motion records of `device` arrived through a live subscription.
func awaitLiveRecords(_ client: RecorderClient, device: String = "imu0", count: Int, matching predicate: @Sendable (Record) -> Bool = { $0.isSample }) async throws {
    let stream = try await client.subscribe(device: device)
    var seen = 0
    for try await batch in stream {
        seen += batch.filter(predicate).count
        if seen >= count { return }
    }
}

/// A generator's `enable` line: when its stream started and at what rate.
struct GeneratorStream {
    var t0: Int64
    var rate: Double
    var clock: String
    var channels: [String]

    static func parse(_ output: String) -> [GeneratorStream] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("enable ") else { return nil }
            var fields: [String: String] = [:]
            for part in line.split(separator: " ").dropFirst() {
                let kv = part.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
            }
            guard let t0 = fields["t0"].flatMap({ Int64($0) }), let rate = fields["rate"].flatMap(Double.init) else { return nil }
            return GeneratorStream(t0: t0, rate: rate, clock: fields["clock"] ?? "", channels: (fields["channels"] ?? "").split(separator: ",").map(String.init))
        }
    }

    /// The scan number of a sample stamped `uptime` (monotonic clock streams).
    func scan(uptime: Double) -> Int { Int(((uptime * 1e9 - Double(t0)) * rate / 1e9).rounded()) }
}

/// The IIO tests need root (a private mount/net/pid namespace); under CI they always run (and
/// fail rather than skip without root).
let iioTestsEnabled = Privileges.isRoot || Privileges.isCI
let iioTestsSkipReason: Comment = "needs root for the private mount/net/pid namespace; runs under CI"
