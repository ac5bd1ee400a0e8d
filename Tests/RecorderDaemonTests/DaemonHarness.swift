import Foundation
import Logging
import RecorderClient
import RecorderConfiguration
import RecorderDaemon
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing

/// A raw connection to the control socket: bytes in, lines out, with a timeout on every read.
/// Its async methods do the blocking socket calls on a Dispatch thread.
final class RawConnection: @unchecked Sendable {
    // @unchecked: used by one test at a time, one call at a time.
    let fd: Int32
    var buffer: [UInt8] = []

    init(socketPath: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let rc = UnixSocketAddress.with(socketPath) { connect(fd, $0, $1) }
        guard rc == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    /// Over a connected socket (owned from here on).
    init(descriptor: Int32) {
        fd = descriptor
    }

    deinit { close(fd) }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) async throws {
        try await offPool { self.sendBlocking(bytes) }
    }

    func sendBlocking(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// The next line, or nil at EOF; fails the test after `timeout` seconds (recorded here, in
    /// the test's task, which the blocking thread is not: the issue names its test).
    func readLine(timeout: Double = 10) async throws -> String? {
        let read = try await offPool { self.readLineBlocking(timeout: timeout) }
        switch read {
        case .line(let line): return line
        case .end: return nil
        case .timedOut:
            Issue.record("no line within \(timeout) s")
            return nil
        }
    }

    enum Read: Sendable {
        case line(String)
        case end
        case timedOut
    }

    func readLineBlocking(timeout: Double) -> Read {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return .line(line)
            }
            let left = deadline.remaining
            guard left > 0 else { return .timedOut }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return .end }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next response (skipping notifications), decoded.
    func response(timeout: Double = 10) async throws -> [String: Any]? {
        while let line = try await readLine(timeout: timeout) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            if object["method"] == nil { return object }
        }
        return nil
    }
}

/// Waits for `count` records from a subscription: the event that says the device is delivering.
func awaitRecords(_ client: RecorderClient, device: String = "imu0", count: Int) async throws {
    let stream = try await client.subscribe(device: device, sensorTypes: [.accelerometer])
    var seen = 0
    for try await batch in stream {
        seen += batch.count
        if seen >= count { return }
    }
}

/// Starts a task run of `actions`, goes through `steps` (each lasting until that many more live
/// records of `imu0` arrived) and finishes it: its result and directory.
func recordSteps(_ client: RecorderClient, task: String, actions: [AsyncActionConfiguration],
                 steps: [(name: String, records: Int)]) async throws -> (result: TaskResult, directory: String) {
    let run = try await client.startTask(identifier: task, asyncActions: actions)
    for step in steps {
        _ = try await run.startStep(task + "/" + step.name)
        try await awaitRecords(client, count: step.records)
        _ = try await run.finishStep(task + "/" + step.name)
    }
    return (try await run.finish(), run.runDirectory)
}
