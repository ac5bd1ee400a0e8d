import Foundation
@testable import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderRuntime

/// `RecorderClient.withReaderExecutor`: calls resume on the reader thread, tasks that prefer it
/// share it, and none is stranded when the connection ends.
@Suite("Client: calls resumed on the reader thread", .timeLimit(.minutes(5)))
struct ClientReaderExecutorTests {
    /// `task`'s value, or nil when it has not finished within `seconds`. A job the executor lost
    /// leaves its task waiting forever: the test then fails instead of hanging (the lost task is
    /// left behind).
    static func value<T: Sendable>(of task: Task<T, any Error>, within seconds: Int = 240) async throws -> T? {
        let outcome: Result<T, any Error>? = await withCheckedContinuation { continuation in
            let once = LockedValue<CheckedContinuation<Result<T, any Error>?, Never>?>(continuation)
            Task {
                let result = await task.result
                once.withLock { c in defer { c = nil }; return c }?.resume(returning: result)
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                once.withLock { c in defer { c = nil }; return c }?.resume(returning: nil)
            }
        }
        return try outcome?.get()
    }

    /// A task run's boundaries made in the scope: every reply resumes the caller on the reader
    /// thread (without the preference it resumes on the cooperative pool), also after an await
    /// resumed from another thread (a timer), and the run records what it would anyway.
    @Test(.ownThread) func stepBoundariesResumeOnTheReaderThread() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        // Without the preference: the pool.
        _ = try await client.status()
        #expect(!client.executor.isCurrent)

        let scope = Task { try await client.withReaderExecutor { () async throws -> (TaskRunHandle, [String]) in
            let run = try await client.startTask(identifier: "walk", asyncActions: [
                .motion("motion", startStepIdentifier: "step0", stopStepIdentifier: "step19"),
            ])
            #expect(client.executor.isCurrent)
            var paths: [String] = []
            for i in 0..<20 {
                let path = "walk/step\(i)"
                let started = try await run.startStep(path)
                #expect(client.executor.isCurrent, "after step.start \(i)")
                #expect(started.startedRecorders == (i == 0 ? ["motion"] : []))
                if i == 10 {
                    // Resumed by a timer thread: the enqueue must wake the reader in its poll.
                    try await Task.sleep(for: .milliseconds(20))
                    #expect(client.executor.isCurrent, "after a sleep")
                }
                let stopped = try await run.finishStep(path)
                #expect(client.executor.isCurrent, "after step.finish \(i)")
                #expect(stopped.stoppedRecorders == (i == 19 ? ["motion"] : []))
                paths.append(path)
            }
            return (run, paths)
        } }
        let (run, history) = try #require(try await Self.value(of: scope), "the scope did not finish: a job was lost")
        #expect(!client.executor.isCurrent, "the preference ends with the scope")
        let result = try await run.finish()
        #expect(result.status == .finished)
        #expect(result.stepHistory.map(\.stepPath) == history)
        #expect(result.stepHistory.allSatisfy { $0.endUptime != nil })
        #expect(try #require(result.asyncResults.first?.file).sampleCount > 0)
        client.close()
        try await d.stop()
    }

    /// A client that never uses the scope holds only its socket (the daemon's web page counts on
    /// that for its descriptor budget); the first scope makes the wake-up pipe, and the close
    /// closes it. A scope entered while the reader waits without the pipe still ends on it.
    @Test(.ownThread) func theWakeUpPipeIsMadeByTheFirstScopeOnly() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        for _ in 0..<3 { _ = try await client.status() }
        #expect(!client.executor.holdsWakePipe)
        let scope = Task { try await client.withReaderExecutor { () async throws -> [Bool] in
            var onReader: [Bool] = []
            for _ in 0..<3 {
                _ = try await client.status()
                onReader.append(client.executor.isCurrent)
                // A timer resumes this: the reader now waits with the pipe and is woken by it.
                try await Task.sleep(for: .milliseconds(5))
                onReader.append(client.executor.isCurrent)
            }
            return onReader
        } }
        // The first call is not counted: the scope began while the reader waited without the pipe,
        // so its job ran on the global executor (`ClientExecutor.arm`, by design), and a reply
        // read before that call suspended resumes it where it was (2 local runs of 5, beside the
        // engine's tests). From the first timer on, the reader is woken by the pipe.
        let onReader = try #require(try await Self.value(of: scope))
        #expect(Array(onReader.dropFirst()) == Array(repeating: true, count: 5), "\(onReader)")
        #expect(client.executor.holdsWakePipe)
        client.close()
        let closed = Deadline(seconds: 60)
        while client.executor.holdsWakePipe, !closed.hasPassed { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!client.executor.holdsWakePipe, "the reader closes the pipe when the connection ends")
        try await d.stop()
    }

    /// Child tasks inherit the preference: 8 of them call at once, all on the reader thread, and
    /// each gets its own answer. One call first: until the reader thread next waits after
    /// `withReaderExecutor` made its wake-up pipe, it cannot be woken, and jobs enqueued in that
    /// moment run on the global executor (`ClientExecutor.arm`, by design). In a CI rehearsal one
    /// child's first call fell in it.
    @Test(.ownThread) func concurrentCallersShareTheReaderThread() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let scope = Task { try await client.withReaderExecutor {
            _ = try await client.devices()
            return try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for child in 0..<8 {
                    group.addTask {
                        var everyOnReader = true
                        for _ in 0..<25 {
                            let devices = try await client.devices()
                            everyOnReader = everyOnReader && client.executor.isCurrent && devices.map(\.name) == ["imu0"]
                        }
                        return (child, everyOnReader)
                    }
                }
                var answers: [Int: Bool] = [:]
                for try await (child, ok) in group { answers[child] = ok }
                return answers
            }
        } }
        let answers = try await Self.value(of: scope)
        #expect(answers == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, true) }))
        client.close()
        try await d.stop()
    }

    /// The peer closes while a call in the scope waits: the call fails with `connectionClosed`
    /// (resumed, as a rule, by the reader thread's last jobs); the task goes on once the reader thread has
    /// ended (later jobs run on the global executor: a job queued for the ended thread would leave
    /// the scope unfinished, and `value(of:)` fail it), and a call then fails at once.
    @Test(.ownThread) func aTaskInTheScopeGoesOnAfterTheConnectionEnds() async throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let client = RecorderClient.start(descriptor: fds[0])
        let peer = RawConnection(descriptor: fds[1])

        struct Outcome: Sendable {
            var failure: RecorderClientError?
            var laterFailure: RecorderClientError?
            var onReaderAtTheEnd = true
        }
        let scope = Task {
            try await client.withReaderExecutor { () async throws -> Outcome in
                var outcome = Outcome()
                do {
                    _ = try await client.send(method: "daemon.status", params: nil)
                } catch {
                    outcome.failure = error as? RecorderClientError
                }
                // Resumed by the reader thread's end, as a job queued after it: were it queued for
                // the ended thread, the scope would not finish (`value(of:)` bounds the wait).
                await client.executor.ended()
                do {
                    _ = try await client.send(method: "daemon.status", params: nil)
                } catch {
                    outcome.laterFailure = error as? RecorderClientError
                }
                outcome.onReaderAtTheEnd = client.executor.isCurrent
                return outcome
            }
        }
        #expect(try await peer.readLine(timeout: 90)?.contains(#""id":1,"#) == true)
        shutdown(peer.fd, Int32(SHUT_RDWR))
        let outcome = try #require(try await Self.value(of: scope), "the scope did not finish: a job was lost")
        #expect(outcome.failure == .connectionClosed)
        #expect(outcome.laterFailure == .connectionClosed)
        #expect(!outcome.onReaderAtTheEnd)
        client.close()
    }
}
