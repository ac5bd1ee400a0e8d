import Dispatch
import Foundation
import Logging
import RecorderDaemon
import RecorderEngine
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// A real recorderd, in the fuzzer's process, that every input is sent to over a real control
/// socket: the framing, the flow control, the request decoder and the router all see it, as they
/// would a client's. A crash anywhere in them is the fuzzer's crash; a stall or a malformed
/// answer is made one (`abort`).
public final class FuzzDaemon: @unchecked Sendable {
    // @unchecked: used from libFuzzer's one thread only (the daemon's own threads never touch
    // these properties).
    public static let shared = FuzzDaemon()

    let daemon: RecorderDaemon
    let socketPath: String
    var fd: Int32 = -1
    var buffer: [UInt8] = []
    var exchanges = 0
    static let sentinel = Array(#"{"jsonrpc":"2.0","id":"fuzz-sentinel","method":"daemon.status"}"#.utf8) + [0x0A]

    init() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorderd-fuzz-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = DaemonConfiguration()
        configuration.socket = directory + "/control.sock"
        configuration.dataDirectory = directory + "/data"
        configuration.ringSeconds = 2
        let walk = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test5_Trial1.csv").standardized.path
        configuration.devices = [DeviceConfiguration(name: "imu0", kind: "replay", json: .object([
            "name": .string("imu0"), "kind": .string("replay"), "file": .string(walk), "frequency": .number(100),
            "columns": .object(["accelerometer": .array([.string("acc_x"), .string("acc_y"), .string("acc_z")]),
                                "gyro": .array([.string("gyr_x"), .string("gyr_y"), .string("gyr_z")])]),
            "units": .object(["accelerometer": .string("g"), "gyro": .string("deg/s")]),
        ]))]
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        daemon = RecorderDaemon(configuration: configuration, components: FuzzComponents.recorderd, baseDirectory: directory, logger: logger)
        socketPath = configuration.socket
        let daemon = self.daemon
        Self.wait { try await daemon.prepare() }
    }

    /// Runs async work to completion from the fuzzer's (synchronous) thread.
    static func wait(_ body: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            do { try await body() } catch { fail("fuzz harness: \(error)") }
            done.signal()
        }
        done.wait()
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        abort()
    }

    /// Sends `input` as request lines (a newline is added), then a `daemon.status` sentinel, and
    /// checks every answer up to the sentinel's. Task runs the input started are cancelled after.
    public func exchange(_ input: [UInt8]) {
        exchanges += 1
        // A fresh connection now and then: subscriptions of a connection are limited.
        if fd < 0 || exchanges % 16 == 0 { reconnect() }
        var bytes = input
        if bytes.last != 0x0A { bytes.append(0x0A) }
        bytes += Self.sentinel
        guard writeAll(bytes) else {
            // The daemon closed the connection after refusing a line: it said why first.
            reconnect()
            return
        }
        readUntilSentinel()
        if daemon.runs.count > 0 { cancelRuns() }
    }

    func reconnect() {
        if fd >= 0 { close(fd) }
        buffer = []
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in socketPath.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 { Self.fail("cannot connect to the daemon: \(String(cString: strerror(errno)))") }
    }

    func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// Reads answers until the sentinel's; every line must be a well-formed JSON-RPC message.
    func readUntilSentinel() {
        let deadline = Date().addingTimeInterval(10)
        var refused = false
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                switch ResponseCheck.check(line) {
                case .sentinel: return
                case .refusal: refused = true
                case .other: break
                case .malformed(let why): Self.fail("malformed answer (\(why)): \(String(decoding: line.prefix(300), as: UTF8.self))")
                }
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { Self.fail("recorderd did not answer within 10 s") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 {
                // Closed: only after a refusal (an over-long line, the input budget, a limit).
                if !refused { Self.fail("recorderd closed the connection without saying why") }
                reconnect()
                return
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    func cancelRuns() {
        let runs = daemon.runs
        Self.wait {
            for run in runs.active() { _ = try? await runs.cancel(run.taskRunUUID, keepFiles: false) }
        }
    }
}
