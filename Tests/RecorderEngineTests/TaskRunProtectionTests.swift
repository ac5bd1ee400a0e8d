import Foundation
import Logging
import RecorderConfiguration
@testable import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

/// What a client cannot do to recorded data: reuse a run's UUID, exceed the limits, start a run
/// whose manifest cannot be written, or be told a run finished when its manifest was not.
@Suite("Task runs are protected")
struct TaskRunProtectionTests {
    func registry(data: String, limits: DaemonLimits = DaemonLimits(), descriptors: DescriptorBudget = DescriptorBudget(),
                  clock: any RecorderClock = SystemClock(), speed: Double = 4) throws -> (DeviceRegistry, TaskRunRegistry) {
        replayRegistries(data: data, limits: limits, descriptors: descriptors, clock: clock, speed: speed)
    }

    /// A UUID that names a finished run is refused — also within the same second, also under
    /// another task identifier, also after a restart — and the finished run keeps its files.
    @Test(.ownThread) func aTaskRunUUIDInTheDataDirectoryIsNeverUsedAgain() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (devices, runs) = try registry(data: data)
        let uuid = UUID()
        let first = try await runs.start(taskIdentifier: "walk", taskRunUUID: uuid, asyncActions: [.motion("m")])
        try await Fixtures.waitForFrames(try devices.device(named: "imu0"), 100)
        _ = try await runs.finish(uuid)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: first.runDirectory + "/taskResult.json"))
        let file = try Data(contentsOf: URL(fileURLWithPath: first.runDirectory + "/m.jsonl"))

        for task in ["walk", "other"] {
            await #expect(throws: TaskRunError.duplicateTaskRun(uuid.uuidString)) {
                _ = try await runs.start(taskIdentifier: task, taskRunUUID: uuid, asyncActions: [.motion("m")])
            }
        }
        // Nothing of the finished run changed; cancelling the refused UUID finds no run.
        await #expect(throws: TaskRunError.unknownTaskRun(uuid.uuidString)) { _ = try await runs.cancel(uuid, keepFiles: false) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.runDirectory + "/taskResult.json")) == manifest)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.runDirectory + "/m.jsonl")) == file)

        // A new daemon on the same data directory knows it from disk.
        let (_, restarted) = try registry(data: data)
        await #expect(throws: TaskRunError.duplicateTaskRun(uuid.uuidString)) {
            _ = try await restarted.start(taskIdentifier: "walk", taskRunUUID: uuid, asyncActions: [])
        }
        // A run cancelled without its files leaves nothing: its UUID may be used again.
        let cancelled = UUID()
        _ = try await restarted.start(taskIdentifier: "walk", taskRunUUID: cancelled, asyncActions: [])
        _ = try await restarted.cancel(cancelled, keepFiles: false)
        _ = try await restarted.start(taskIdentifier: "walk", taskRunUUID: cancelled, asyncActions: [])
        await restarted.interruptAll()
        await #expect(throws: TaskRunError.invalidConfiguration("taskRunUUID: the nil UUID cannot name a task run")) {
            _ = try await runs.start(taskIdentifier: "walk", taskRunUUID: RandomUUID.null, asyncActions: [])
        }
        await runs.interruptAll()
    }

    @Test(.ownThread) func limitsOnRunsAndRecordersAreClearErrors() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (_, runs) = try registry(data: data, limits: DaemonLimits(connections: 4, taskRuns: 2, recordersPerRun: 2))
        await #expect(throws: TaskRunError.limitReached("asyncActions: 3 recorders: a task run may have at most 2")) {
            _ = try await runs.start(taskIdentifier: "t", asyncActions: [.motion("a"), .motion("b"), .motion("c")])
        }
        let a = try await runs.start(taskIdentifier: "t", asyncActions: [.motion("a"), .motion("b")])
        _ = try await runs.start(taskIdentifier: "t", asyncActions: [])
        await #expect(throws: TaskRunError.limitReached("too many task runs: recorderd records at most 2 at once")) {
            _ = try await runs.start(taskIdentifier: "t", asyncActions: [])
        }
        // A run that ends frees its place.
        _ = try await runs.finish(a.taskRunUUID)
        _ = try await runs.start(taskIdentifier: "t", asyncActions: [])
        #expect(runs.count == 2)
        await runs.interruptAll()
    }

    /// A run takes its descriptors (2, and 3 a recorder) from the budget it shares with the
    /// connections: one that does not fit is refused with `-32011` naming the open-file limit,
    /// leaves nothing behind (its UUID may be used later), and a run that ends gives them back.
    @Test(.ownThread) func aRunThatWouldRunOutOfDescriptorsIsRefused() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let budget = DescriptorBudget(capacity: 10)
        let (_, runs) = try registry(data: data, descriptors: budget)
        let a = try await runs.start(taskIdentifier: "t", asyncActions: [.motion("a"), .motion("b")])
        #expect(budget.available == 2)
        let refused = UUID()
        await #expect(throws: TaskRunError.limitReached("out of open files: this task run needs 5 and 2 of the 10 recorderd may open for connections and task runs are free (finish a task run or close connections, or raise LimitNOFILE)")) {
            _ = try await runs.start(taskIdentifier: "t", taskRunUUID: refused, asyncActions: [.motion("c")])
        }
        #expect(runs.count == 1 && budget.available == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/runs/t").allSatisfy { !$0.hasSuffix(refused.uuidString) })
        let b = try await runs.start(taskIdentifier: "t", asyncActions: [])
        #expect(budget.available == 0)
        _ = try await runs.finish(a.taskRunUUID)
        #expect(budget.available == 8)
        _ = try await runs.cancel(b.taskRunUUID, keepFiles: false)
        #expect(budget.available == 10)
        // Ending a run twice gives its share back once.
        await #expect(throws: TaskRunError.unknownTaskRun(a.taskRunUUID.uuidString)) { _ = try await runs.finish(a.taskRunUUID) }
        #expect(budget.available == 10)
        _ = try await runs.start(taskIdentifier: "t", taskRunUUID: refused, asyncActions: [.motion("c")])
        #expect(budget.available == 5)
        await runs.interruptAll()
        #expect(budget.available == 10)
    }

    /// Many idle runs are abandoned together, not one stop grace after another: one run's queue
    /// is held, and the other 99 end meanwhile (one after another, the sweep would stop at the
    /// held run, unless it came last). Events: the registry's "task run ended" log lines. On a
    /// thread of its own: the sweep's tasks queued behind the suite's synchronous tests on the
    /// cooperative pool for a minute in a CI rehearsal.
    @Test(.timeLimit(.minutes(1)), .ownThread)
    func theOrphanSweepEndsIdleRunsTogether() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let clock = ManualClock()
        let ended = AsyncStream<Void>.makeStream()
        var logger = Logger(label: "orphan-sweep") { _ in LogEventHandler(message: "task run ended", seen: ended.continuation) }
        logger.logLevel = .info
        let (_, runs) = replayRegistries(data: data, limits: DaemonLimits(connections: 4, taskRuns: 200, recordersPerRun: 1),
                                         clock: clock, logger: logger)
        var started: [StartedTaskRun] = []
        for _ in 0..<100 { started.append(try await runs.start(taskIdentifier: "t", asyncActions: [])) }
        clock.offset += 601
        let release = DispatchSemaphore(value: 0)
        let releasedInTime = LockedValue(false)
        let held = try runs.run(started[0].taskRunUUID)
        held.queue.async {
            // Bounded: a sweep that waits for the held run fails the test instead of hanging it.
            let released = release.wait(timeout: .now() + 20) == .success
            releasedInTime.withLock { $0 = released }
        }
        async let swept = runs.sweepOrphans(timeout: 600)
        var seen = 0
        for await _ in ended.stream {
            seen += 1
            if seen == 99 { break }
        }
        #expect(runs.count == 1, "the held run is the one left")
        release.signal()
        #expect(await swept.count == 100)
        #expect(releasedInTime.withLock { $0 }, "the other runs ended only after the held one")
        #expect(runs.count == 0)
        #expect(try started.allSatisfy { try TaskResultStore.read(directory: $0.runDirectory).status == .abandoned })
    }

    /// A run directory moved away under a running run: `task.finish` says the manifest could not be
    /// written instead of answering "finished".
    @Test(.ownThread) func aFinishWhoseManifestCannotBeWrittenIsAnError() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (_, runs) = try registry(data: data)
        let start = try await runs.start(taskIdentifier: "t", asyncActions: [])
        // Moved away in one step (a manifest write may be under way in it).
        #expect(rename(start.runDirectory, start.runDirectory + ".moved") == 0)
        do {
            _ = try await runs.finish(start.taskRunUUID)
            Issue.record("task.finish answered finished without a manifest")
        } catch {
            guard case .storage(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("ended (finished) but its manifest could not be written"), "\(message)")
        }
        #expect(runs.count == 0)
    }

    @Test func randomUUIDsAreVersionFourAndDistinct() throws {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let uuid = try RandomUUID.make()
            #expect(uuid != RandomUUID.null)
            #expect(uuid.uuidString[uuid.uuidString.index(uuid.uuidString.startIndex, offsetBy: 14)] == "4")
            #expect("89AB".contains(uuid.uuidString[uuid.uuidString.index(uuid.uuidString.startIndex, offsetBy: 19)]))
            seen.insert(uuid)
        }
        #expect(seen.count == 10_000)
    }
}

/// A full disk at the start of a run and during it (root: tmpfs).
@Suite("A full disk at task start", .serialized)
struct FullDiskAtStartTests {
    @Test(.enabled(if: Privileges.rootTestsEnabled("aRunThatCannotWriteItsManifestDoesNotStart")), .timeLimit(.minutes(1)), .ownThread)
    func aRunThatCannotWriteItsManifestDoesNotStart() async throws {
        let data = try Fixtures.temporaryDirectory()
        try #require(Privileges.mountTmpfs(at: data, size: "512k"))
        defer { Privileges.unmount(data); try? FileManager.default.removeItem(atPath: data) }
        // Fill the disk to the last byte.
        let filler = try DiskFiller(directory: data)
        let (devices, runs) = replayRegistries(data: data)
        let uuid = UUID()
        do {
            _ = try await runs.start(taskIdentifier: "t", taskRunUUID: uuid, asyncActions: [.motion("m")])
            Issue.record("a run started on a full disk")
        } catch {
            guard case .storage(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("No space left on device"), "\(message)")
        }
        #expect(runs.count == 0)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: data + "/runs/t")) ?? []).isEmpty, "no trace left")
        #expect(try devices.device(named: "imu0").info.state == .available, "the device was let go")
        // With space again, the same UUID starts (nothing of the failed start remains).
        filler.free()
        #expect(try await DiskFiller.awaitFree(data, bytes: 384 * 1024), "the filler is gone, its space still taken: \(DiskFiller.describe(data))")
        _ = try await runs.start(taskIdentifier: "t", taskRunUUID: uuid, asyncActions: [.motion("m")])
        #expect(try TaskResultStore.read(directory: runs.active()[0].runDirectory).status == .recording)
        await runs.interruptAll()
    }

    /// A recorder stopped by a full disk is reported as failed (not as recording) while the run
    /// goes on.
    @Test(.enabled(if: Privileges.rootTestsEnabled("aRecorderStoppedByAFullDiskIsListedAsFailed")), .timeLimit(.minutes(1)), .ownThread)
    func aRecorderStoppedByAFullDiskIsListedAsFailed() async throws {
        let data = try Fixtures.temporaryDirectory()
        // 32 MiB: the recorder alone (~1 MB/s) fills it in about half a minute, long after the
        // first check even when the test resumes seconds late (8 MiB were once full before it).
        try #require(Privileges.mountTmpfs(at: data, size: "32m"))
        defer { Privileges.unmount(data); try? FileManager.default.removeItem(atPath: data) }
        let (devices, runs) = replayRegistries(data: data, speed: 50)
        let start = try await runs.start(taskIdentifier: "t", asyncActions: [.motion("m")])
        #expect(runs.active().first?.recording == ["m"])
        // Then the disk fills (filled here, after the check: a small disk filled by the recorder
        // itself could be full before the check, a race the test once lost).
        _ = try DiskFiller(directory: data)
        // The recording lets go of the device when it stops: wait for that.
        let device = try devices.device(named: "imu0")
        try await Fixtures.waitForFrames(device, 10_000)
        var status = runs.active().first
        let deadline = Deadline(seconds: 20)
        while status?.failed == nil, !deadline.hasPassed {
            try await Fixtures.waitForFrames(device, 500)
            status = runs.active().first
        }
        #expect(status?.recording == [] && status?.failed == ["m"], "\(String(describing: status))")
        let result = try await runs.finish(start.taskRunUUID)
        #expect(result.asyncResults.compactMap(\.error).first?.errorDescription.contains("No space left on device") == true)
    }
}
