import Foundation
import RecorderClient

/// A recorderd started by a test.
extension ChildProcess {
    /// Why a daemon never listened.
    public struct NotListening: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to `socket` once this recorderd listens (within `timeout` s); when it exits first
    /// or the time runs out, stops it and throws with what it printed.
    public func connectWhenListening(_ socket: String, timeout: Double = 30) async throws -> RecorderClient {
        let deadline = Deadline(seconds: timeout)
        // Tries once more after the deadline: a test process that was descheduled past it still
        // looks before it gives up.
        while true {
            let last = deadline.hasPassed || !isRunning
            if let client = try? await RecorderClient.connect(socketPath: socket) { return client }
            if last { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        _ = try? await stop(signal: SIGKILL, timeout: 5)
        throw NotListening(description: "recorderd did not listen on \(socket): \(printed)")
    }

    /// Descriptors the process has open now (entries of /proc/PID/fd; -1 once it is gone).
    public var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}
