import Dispatch
import Foundation
@testable import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Synchronization
import Testing
import RecorderConfiguration
import RecorderProtocol
import RecorderRuntime
import ReplaySensors

/// The step-boundary fast path: a boundary that only changes the step is applied on the calling
/// thread (the daemon's event loop) when its run's queue is idle, with nothing handed to another
/// thread; anything else goes to the queue as before.
@Suite("Step boundaries applied on the caller's thread")
struct InlineBoundaryTests {
    @Test func anIdleRunQueueRunsTheBlockOnTheCallersThreadAsTheQueue() {
        let queue = RunQueue(label: "test.idle")
        let caller = pthread_self()
        let onCaller = queue.runIfIdle { () -> Bool in
            queue.precondition()
            return pthread_equal(pthread_self(), caller) != 0
        }
        #expect(onCaller == true)
        #expect(queue.outstandingCount == 0)
    }

    /// Work submitted while the caller holds the run waits, on the queue's thread, for the caller
    /// to finish (the caller never waits for the queue).
    @Test func workSubmittedWhileTheRunIsBorrowedRunsAfterIt() {
        let queue = RunQueue(label: "test.borrowed")
        let borrowedEnded = Atomic<Bool>(false)
        let sawEnd = LockedValue<Bool?>(nil)
        let ran = queue.runIfIdle { () -> Bool in
            queue.async {
                queue.precondition()
                sawEnd.withLock { $0 = borrowedEnded.load(ordering: .relaxed) }
            }
            // Long enough for the queue's thread to reach the block (it waits on the run).
            for _ in 0..<2_000 { sched_yield() }
            borrowedEnded.store(true, ordering: .relaxed)
            return true
        }
        #expect(ran == true)
        queue.queue.sync {}
        #expect(sawEnd.withLock { $0 } == true)
    }

    @Test func aRunQueueWithWorkRunningOrWaitingRunsNothing() {
        let queue = RunQueue(label: "test.busy")
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.async { started.signal(); release.wait() }
        started.wait()
        let ran = LockedValue(false)
        #expect(queue.runIfIdle { ran.withLock { $0 = true } } == nil)
        queue.async {}
        #expect(queue.outstandingCount == 2)
        #expect(queue.runIfIdle { ran.withLock { $0 = true } } == nil)
        release.signal()
        // A plain sync on the dispatch queue returns once both blocks have finished, their counts included.
        queue.queue.sync {}
        #expect(!ran.withLock { $0 })
        #expect(queue.runIfIdle { 7 } == 7)
    }

    @Test func delayedWorkCountsOnlyOnceItIsDue() {
        let queue = RunQueue(label: "test.delayed")
        queue.async(after: 3600) {}
        #expect(queue.outstandingCount == 0)
        #expect(queue.runIfIdle { true } == true)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.async(after: 0) { started.signal(); release.wait() }
        started.wait()
        #expect(queue.runIfIdle { true } == nil)
        release.signal()
        queue.queue.sync {}
        #expect(queue.runIfIdle { true } == true)
    }

    /// A run's delayed work (a stopping recorder's grace, the sweeps) does not wait for Swift's
    /// cooperative pool, which on Linux runs on dispatch's global queues: here as many blocks as
    /// there are CPUs spin on the global queue, and the timer still fires on time. The test
    /// waits on a thread of its own: it holds no thread of the pool, which the suite's other
    /// tests need (waiting on one, it once starved in-process daemons for 10 s).
    @Test(.timeLimit(.minutes(1)), .ownThread)
    func delayedWorkDoesNotWaitForABusyCooperativePool() async {
        let queue = RunQueue(label: "test.pool")
        let spin = Atomic<Bool>(true)
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            DispatchQueue.global().async {
                let deadline = Deadline(seconds: 4)
                while spin.load(ordering: .relaxed), !deadline.hasPassed {}
            }
        }
        let onTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let fired = DispatchSemaphore(value: 0)
            queue.async(after: 0.01) { fired.signal() }
            Thread {
                let onTime = fired.wait(timeout: .now() + 2) == .success
                spin.store(false, ordering: .relaxed)
                continuation.resume(returning: onTime)
            }.start()
        }
        #expect(onTime, "the timer waited behind the cooperative pool")
    }

    /// A run whose recorder starts at step "c": "a" and "b" only change the step; "c" starts it.
    @Test(.ownThread) func onlyBoundariesThatChangeNothingButTheStepAreAppliedInline() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        var configuration = DaemonConfiguration()
        configuration.devices = [Fixtures.replayDevice(speed: 4)]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        devices.probeAll()
        let runs = TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 30, clock: SystemClock(), logger: Fixtures.logger)
        let start = try await runs.start(taskIdentifier: "walk", asyncActions: [
            .motion("m", startStepIdentifier: "c", stopStepIdentifier: "c"),
        ])
        let uuid = start.taskRunUUID
        let run = try runs.run(uuid)
        // The start's block may still be counting itself out after answering; nothing records yet.
        run.queue.queue.sync {}
        let history = { run.queue.sync { run.result.stepHistory.map(\.stepPath) } }

        let a = try #require(run.boundaryIfIdle("walk/a", finishing: false, results: nil))
        #expect(try a.get().startedRecorders.isEmpty)
        #expect(history() == ["walk/a"])
        // Out of order: refused inline, without any work.
        let wrong = try #require(run.boundaryIfIdle("walk/b", finishing: true, results: nil))
        #expect(throws: TaskRunError.self) { try wrong.get() }
        _ = try #require(run.boundaryIfIdle("walk/a", finishing: true, results: nil)).get()

        // A queue with work: nothing done, and the same boundary later inline.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        run.queue.async { started.signal(); release.wait() }
        started.wait()
        #expect(run.boundaryIfIdle("walk/b", finishing: false, results: nil) == nil)
        release.signal()
        run.queue.queue.sync {}
        #expect(history() == ["walk/a"])

        // Through the registry: answered before `submitStep` returns, on the caller's thread.
        let caller = pthread_self()
        let answer = LockedValue<(onCaller: Bool, result: Result<StepBoundaryOutcome, TaskRunError>)?>(nil)
        #expect(runs.submitStep(uuid, path: "walk/b", results: nil, finishing: false, onCallerThread: true) { result in
            answer.withLock { $0 = (pthread_equal(pthread_self(), caller) != 0, result) }
        })
        let b = try #require(answer.withLock { $0 })
        #expect(b.onCaller)
        #expect(try b.result.get().startedRecorders.isEmpty)
        _ = try #require(run.boundaryIfIdle("walk/b", finishing: true, results: nil)).get()
        #expect(history() == ["walk/a", "walk/b"])

        // Starting a recorder opens its device and file: not inline, and nothing changed.
        #expect(run.queue.sync { run.isInlineBoundary("walk/c", finishing: false) } == false)
        #expect(run.boundaryIfIdle("walk/c", finishing: false, results: nil) == nil)
        #expect(history() == ["walk/a", "walk/b"])
        let c = try await runs.startStep(uuid, path: "walk/c")
        #expect(c.startedRecorders == ["m"])
        // Stopping it is not inline either.
        #expect(run.queue.sync { run.isInlineBoundary("walk/c", finishing: true) } == false)
        let stopped = try await runs.finishStep(uuid, path: "walk/c")
        #expect(stopped.stoppedRecorders == ["m"])
        let result = try await runs.finish(uuid)
        #expect(result.stepHistory.map(\.stepPath) == ["walk/a", "walk/b", "walk/c"])
        #expect(result.stepHistory.allSatisfy { $0.endUptime != nil })
        // The manifest on disk has the inline boundaries too.
        #expect(try TaskResultStore.read(directory: start.runDirectory).stepHistory.map(\.stepPath) == ["walk/a", "walk/b", "walk/c"])
    }
}
