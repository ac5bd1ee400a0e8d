import Foundation
import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// Paths of the real recordings in Tests/Fixtures.
public enum Fixtures {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures").path
    public static let shortWalk = root + "/imu/mobgap/HA/001/TimeMeasure1_Test5_Trial1.csv"
    public static let longWalk = root + "/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv"

    /// The CSV rows as (acc in g, gyro in deg/s).
    public static func rows(_ path: String) throws -> [(acc: [Double], gyr: [Double])] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",").map { Double($0)! }
            return (Array(f[1...3]), Array(f[4...6]))
        }
    }

    /// A replay device of a real walk (accelerometer in g, gyro in deg/s at 100 Hz) played at
    /// `speed`; `adding`: more of the device's keys (`mountMatrix`, `fusion`…).
    public static func replayDevice(name: String = "imu0", file: String = shortWalk, speed: Double = 1, loop: Bool = true,
                                    adding extra: [String: JSONValue] = [:]) -> DeviceConfiguration {
        let members: [String: JSONValue] = [
            "name": .string(name), "kind": .string("replay"), "file": .string(file), "frequency": .number(100),
            "columns": .object(["accelerometer": .array([.string("acc_x"), .string("acc_y"), .string("acc_z")]),
                                "gyro": .array([.string("gyr_x"), .string("gyr_y"), .string("gyr_z")])]),
            "units": .object(["accelerometer": .string("g"), "gyro": .string("deg/s")]),
            "speed": .number(speed), "loop": .bool(loop),
        ]
        return DeviceConfiguration(name: name, kind: "replay", json: .object(members.merging(extra) { $1 }))
    }

    /// A device of the configuration file, from its JSON object's text (decoded as the file's are).
    public static func device(_ json: String) throws -> DeviceConfiguration {
        try JSONValueDecoder().decode(DeviceConfiguration.self, from: Array(json.utf8))
    }

    /// A new directory under the test process's own (`$TMPDIR/recorderd-tests-PID`), which is
    /// removed when the process exits (kept with `RECORDERD_KEEP_TEST_FILES=1`, to look at after a
    /// failure): a run of the suite left 2,000 directories behind before.
    public static func temporaryDirectory() throws -> String {
        let path = testFilesDirectory + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The test process's directory of temporary files, removed at its exit.
    static let testFilesDirectory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recorderd-tests-\(getpid())").path
        if ProcessInfo.processInfo.environment["RECORDERD_KEEP_TEST_FILES"] == nil {
            testFilesToRemove.withLock { $0 = path }
            atexit {
                if let path = testFilesToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
            }
        }
        return path
    }()

    public static let logger: Logger = {
        var l = Logger(label: "test")
        l.logLevel = .error
        return l
    }()

    /// Reads a JSON-lines file.
    public static func records(_ path: String) throws -> [Record] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Record.self, from: $0) }
    }
}

extension Fixtures {
    /// Waits until `device` has written `count` more frames (that match `predicate`): an event,
    /// not a sleep. Holds a lease meanwhile, so the device samples even if its recordings stop.
    /// `since`: count frames measured from that uptime on (still in the ring), not only new ones.
    public static func waitForFrames(_ device: Device, _ count: Int, since: Double? = nil,
                                     matching predicate: (SensorFrame) -> Bool = { _ in true }) async throws {
        let lease = try device.acquire()
        defer { lease.release() }
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reader = device.ring!.addReader(fromUptime: since) { continuation.yield() }
        defer { reader.close() }
        var seen = 0
        var scratch: [SensorFrame] = []
        if since != nil { continuation.yield() }
        for await _ in signals {
            scratch.removeAll()
            _ = reader.read(into: &scratch)
            seen += scratch.filter(predicate).count
            if seen >= count { return }
        }
    }
}

/// A clock the test moves by hand.
public final class ManualClock: RecorderClock, @unchecked Sendable {
    // @unchecked: tests set `offset` from one task only, between calls.
    public var offset = 0.0

    public init() {}

    public func uptime() -> Double { SystemClock.monotonicUptime() + offset }
    public func now() -> Date { Date().addingTimeInterval(offset) }
}

/// Checks a recorded motion file against the replayed CSV, sample for sample.
public enum ReplayCheck {
    /// What the comparison found.
    public struct Outcome: Sendable {
        public var samples = 0
        public var dropped = 0
        public var mismatches: [String] = []
    }

    /// Every accelerometer/gyro record must equal the CSV row that follows the previous one
    /// (cyclically), skipping exactly the samples a gap record declares; gyro in rad/s.
    public static func compare(_ records: [Record], rows: [(acc: [Double], gyr: [Double])]) -> Outcome {
        var outcome = Outcome()
        var index: [String: [Int]] = [:]
        for (i, r) in rows.enumerated() { index["\(r.acc)", default: []].append(i) }
        var expectedRow: Int?
        var pendingDrop = 0
        var lastAccUptime: Double?
        for r in records {
            if r.isGap, r.sensorType == "accelerometer" { pendingDrop += r.droppedSamples ?? 0; outcome.dropped += r.droppedSamples ?? 0 }
            guard r.isSample, let x = r.x, let y = r.y, let z = r.z else { continue }
            if r.sensorType == "accelerometer" {
                let candidates = index["\([x, y, z])"] ?? []
                guard !candidates.isEmpty else { outcome.mismatches.append("no CSV row has acc \([x, y, z])"); continue }
                let row: Int
                if let e = expectedRow {
                    let want = (e + pendingDrop) % rows.count
                    guard candidates.contains(want) else {
                        outcome.mismatches.append("acc at uptime \(r.uptime ?? 0): expected row \(want), found rows \(candidates)")
                        expectedRow = candidates[0] + 1
                        pendingDrop = 0
                        continue
                    }
                    row = want
                } else {
                    row = candidates[0]
                }
                if let last = lastAccUptime, let u = r.uptime, u <= last { outcome.mismatches.append("uptime not increasing at \(u)") }
                lastAccUptime = r.uptime
                expectedRow = row + 1
                pendingDrop = 0
                outcome.samples += 1
            } else if r.sensorType == "gyro", let e = expectedRow {
                let row = (e - 1 + rows.count) % rows.count
                let want = rows[row].gyr.map { $0 * (Double.pi / 180) }
                if [x, y, z] != want { outcome.mismatches.append("gyro of row \(row): \([x, y, z]) != \(want)") }
            }
        }
        return outcome
    }
}

/// What `atexit` removes (a C callback captures nothing: it reads this).
private let testFilesToRemove = LockedValue<String?>(nil)
