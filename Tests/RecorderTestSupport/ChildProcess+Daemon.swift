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

    /// The process ids of the process's children now (each thread lists those it started:
    /// /proc/PID/task/*/children).
    public var childProcesses: [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        }.sorted()
    }

    /// The process's one live child now (recorderd's services process; one that ended and is not
    /// reaped yet does not count), or nil. Looked at once: after an event that says the child
    /// runs (the page listens, the fleet link is online).
    public var onlyChild: Int32? {
        let children = childProcesses.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8) else { return false }
            return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
        }
        return children.count == 1 ? children[0] : nil
    }

    /// Descriptors the process has open now (entries of /proc/PID/fd; -1 once it is gone).
    public var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}
