import Foundation
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing

/// A real `recorderd` executable for the torture tests: started with a configuration of the
/// test's, its readiness learnt from its own READY=1 on a notify socket (no polling), its memory
/// and CPU read from /proc, stopped by its PID.
final class TortureDaemon: @unchecked Sendable {
    // @unchecked: used by one test task at a time.
    let directory: String
    let process: ChildProcess
    let notify: NotifySocket
    var socket: String { directory + "/control.sock" }
    var dataDirectory: String { directory + "/data" }
    var pid: Int32 { process.pid }

    /// The configuration: a replayed walk at `speed` (`imu0`), plus `extra` top-level keys.
    static func configuration(in directory: String, speed: Double = 1, extra: String = "") -> String {
        """
        {"socket": "\(directory)/control.sock", "dataDirectory": "\(directory)/data",\(extra)
         "devices": [{"name": "imu0", "kind": "replay", "file": "\(Fixtures.shortWalk)", "frequency": 100,
                      "units": {"accelerometer": "g", "gyro": "deg/s"}, "speed": \(speed), "loop": true}]}
        """
    }

    /// Starts recorderd and waits for its READY=1 (at most `timeout` s). `prefix`: a command the
    /// daemon runs under (e.g. `prlimit --nofile=…`).
    init(directory: String? = nil, speed: Double = 1, extra: String = "", prefix: [String] = [], timeout: Double = 30) async throws {
        self.directory = try directory ?? Fixtures.temporaryDirectory()
        let config = self.directory + "/recorderd.json"
        if !FileManager.default.fileExists(atPath: config) {
            try Self.configuration(in: self.directory, speed: speed, extra: extra).write(toFile: config, atomically: true, encoding: .utf8)
        }
        notify = try NotifySocket(path: self.directory + "/notify-\(UUID().uuidString.prefix(8)).sock")
        let executable = ChildProcess.executable("recorderd")
        let command = prefix.isEmpty ? executable : prefix[0]
        let arguments = (prefix.isEmpty ? [] : Array(prefix.dropFirst()) + [executable]) + ["--config", config, "--log-level", "error"]
        process = try await ChildProcess(command, arguments, environment: ["NOTIFY_SOCKET": notify.path])
        try await waitUntilReady(timeout: timeout)
    }

    /// Waits for READY=1 from the daemon.
    func waitUntilReady(timeout: Double) async throws {
        let deadline = Deadline(seconds: timeout)
        while !deadline.hasPassed {
            guard let message = try await notify.next(timeout: max(0.1, deadline.remaining)) else { break }
            if message.contains("READY=1") { return }
        }
        throw TortureError("recorderd was not ready within \(timeout) s: \(process.isRunning ? "running" : "exited")")
    }

    func client() async throws -> RecorderClient {
        try await RecorderClient.connect(socketPath: socket)
    }

    /// Resident memory in KiB (VmRSS).
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? 0
    }

    /// CPU seconds used so far (user + system).
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name (which is in parentheses and may hold spaces).
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop(signal: Int32 = SIGTERM) async throws -> Int32 {
        try await process.stop(signal: signal, timeout: 20)
    }
}

struct TortureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum Torture {
    /// The quickest of up to forty `daemon.status` round trips on `client`, spread over about two
    /// seconds: the daemon must answer one of them within `latencyBound`. (Not only the first: the
    /// test machine runs other suites at the same time — brokers, fifty MQTT clients, browsers — and
    /// on two cores a round trip can wait for a CPU however idle the daemon is; CI's loaded plain run
    /// once went half a second without a quick answer. A daemon that is stalled or busy with a
    /// backlog answers none of them in time.)
    static func statusLatency(_ client: RecorderClient) async throws -> Double {
        var best = Double.infinity
        for attempt in 0..<40 {
            let began = SystemClock.monotonicUptime()
            _ = try await client.status()
            best = min(best, SystemClock.monotonicUptime() - began)
            if best < latencyBound / 2 { break }
            if attempt < 39 { try await Task.sleep(for: .milliseconds(50)) }
        }
        return best
    }

    /// The answer time `daemon.status` must stay under: 100 ms, or 500 ms for a daemon built with
    /// a sanitizer (scripts/sanitizers.sh; ASan and TSan make it several times slower).
    static var latencyBound: Double {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil ? 0.5 : 0.1
    }

    /// Finishes `run` and checks its motion file sample for sample against the replayed CSV:
    /// nothing lost, nothing changed, the hash and counts right.
    static func checkLossless(_ run: TaskRunHandle, identifier: String = "m") async throws {
        let result = try await run.finish()
        let file = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == identifier })
        let path = run.runDirectory + "/" + file.relativePath
        let records = try Fixtures.records(path)
        #expect(file.droppedSamples == 0 && file.gapCount == 0, "\(file.droppedSamples) samples lost")
        #expect(file.sampleCount == records.filter(\.isSample).count)
        #expect(await file.sha256 == SHA256Hex.of(path))
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.isEmpty && outcome.dropped == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.samples > 20)
    }

    /// Raises this process's soft open-file limit to its hard limit; returns the new soft limit.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        return Int(clamping: limit.rlim_cur)
    }

    /// A connected, non-blocking socket to `path`, or nil when the daemon's backlog is full.
    static func connectNonBlocking(_ path: String) -> Int32? {
        let fd = Foundation.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Reads one line from a non-blocking socket within `timeout` seconds (nil: EOF or nothing).
    static func readLine(_ fd: Int32, timeout: Double) -> String? {
        var buffer: [UInt8] = []
        let deadline = Deadline(seconds: timeout)
        var byte: UInt8 = 0
        while !deadline.hasPassed {
            let n = recv(fd, &byte, 1, 0)
            if n == 1 {
                if byte == 0x0A { return String(decoding: buffer, as: UTF8.self) }
                buffer.append(byte)
            } else if n == 0 {
                return nil
            } else {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, Int32(max(1, deadline.remaining * 1000)))
            }
        }
        return nil
    }
}

/// SHA-256 of a file, computed independently of recorderd (with `sha256sum`).
enum SHA256Hex {
    static func of(_ path: String) async -> String {
        guard let p = try? await ChildProcess("/usr/bin/sha256sum", [path]) else { return "" }
        _ = try? await p.wait(timeout: 30)
        return String(p.printed.prefix(64))
    }
}
