import Foundation
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing

/// The torture tests' figures of the recorderd executable, from /proc.
extension TestDaemon {
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
}

struct TortureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum Torture {
    /// Whether `daemon.status` is answered with the configured device: the answer is the event
    /// waited on (a daemon that is stalled does not answer, and the suite's time limit fails the
    /// test). How fast it answers is the benchmark's business (`BENCH_ONLY=torture`: p50 and p99
    /// idle, during a flood, at the limits and with 1,100 connections), not a test's: beside the
    /// other suites on two cores a round trip once waited half a second for a CPU.
    static func answersStatus(_ client: RecorderClient) async throws -> Bool {
        try await client.status().devices.contains { $0.name == "imu0" }
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
        let rc = UnixSocketAddress.with(path) { Foundation.connect(fd, $0, $1) }
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
