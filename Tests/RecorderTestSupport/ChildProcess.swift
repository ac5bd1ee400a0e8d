import Foundation
import Testing

/// Runs a blocking call on a Dispatch thread: tests must not block the cooperative pool, which
/// the in-process server needs.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// A child process with a deadline, stopped by its PID.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: Process is used from one test at a time.
    public let process = Process()
    public let output = Pipe()

    /// `environment`: variables added to (or replacing) the test's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` and waits for the exit (at most `timeout` s, then SIGKILL).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 15) async throws -> Int32 {
        if process.isRunning { kill(pid, signal) }
        return try await wait(timeout: timeout)
    }

    /// Waits for the exit (at most `timeout` s, then SIGKILL); returns the status.
    @discardableResult
    public func wait(timeout: Double) async throws -> Int32 {
        try await offPool { self.waitBlocking(timeout: timeout) }
    }

    func waitBlocking(timeout: Double) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [process] in
            process.waitUntilExit()
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            Issue.record("process \(pid) did not exit within \(timeout) s")
            kill(pid, SIGKILL)
            done.wait()
        }
        return process.terminationStatus
    }

    /// Everything the process printed (after it exited).
    public var printed: String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }

    /// The built executable `name` (beside the test bundle).
    public static func executable(_ name: String) -> String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent(name).path) { return dir.appendingPathComponent(name).path }
            dir = dir.deletingLastPathComponent()
        }
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/\(name)").standardized.path
        return built
    }
}

