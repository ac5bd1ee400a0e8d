import Dispatch
import Foundation
import RecorderModel
import RecorderRuntime
import Testing
import RecorderTestSupport

/// Blocking work handed off never holds a thread of the cooperative pool.
@Suite struct QueueHandOffTests {
    /// Twice as many blocked bodies as the machine has cores, each waiting until a task of default
    /// priority has run (the pool a blocked body must not hold: on Linux, the global root queue of
    /// default QoS): every one returns, each ran on a thread of the blocking pool — named
    /// `recorderd-io` for `top -H`, two nice levels below the main thread — and the caller is not
    /// on one.
    @Test(.timeLimit(.minutes(1)), .ownThread)
    func blockedBodiesLeaveThePoolFree() async throws {
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount
        let taskRan = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let waited = LockedValue<[Double]>([])
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let mainNice = getpriority(which, id_t(getpid()))
        let threads = LockedValue<[(name: String, nice: Int32)]>([])
        let ownQueues = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await QueueHandOff.blocking {
                        started.signal()
                        let own = BlockingPool.isOnPoolThread
                        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                        threads.withLock { $0.append((name.trimmingCharacters(in: .whitespacesAndNewlines), getpriority(which, 0))) }
                        let begin = DispatchTime.now().uptimeNanoseconds
                        // Bounded, so that a regression fails instead of hanging the suite.
                        _ = taskRan.wait(timeout: .now() + 20)
                        taskRan.signal()
                        waited.withLock { $0.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9) }
                        return own
                    }
                }
            }
            // Once every body is blocked, a task of default priority must still run.
            await Self.onAThreadOfItsOwn { for _ in 0..<count { started.wait() } }
            await Task(priority: .medium) { taskRan.signal() }.value
            var own: [Bool] = []
            for await each in group { own.append(each) }
            return own
        }
        #expect(ownQueues.count == count && ownQueues.allSatisfy { $0 })
        #expect(!BlockingPool.isOnPoolThread)
        let seen = threads.withLock { $0 }
        #expect(seen.count == count && seen.allSatisfy { $0.name == "recorderd-io" && $0.nice == min(19, mainNice + 2) }, "\(seen), main thread at nice \(mainNice)")
        print("QueueHandOff: \(count) blocked bodies waited at most \(waited.withLock { $0.max() ?? 0 }) s for a task of default priority")
    }

    /// More work than a pool has threads: never more than `limit` bodies run at once, the rest
    /// wait their turn, and every one runs.
    @Test(.timeLimit(.minutes(1)), .ownThread)
    func aPoolRunsAtMostItsLimitAtOnce() async throws {
        let pool = BlockingPool(name: "test-bounded", limit: 3)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let state = LockedValue((running: 0, most: 0, done: 0))
        let all = DispatchSemaphore(value: 0)
        let count = 10
        for _ in 0..<count {
            pool.submit {
                state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                started.signal()
                _ = release.wait(timeout: .now() + 20)
                state.withLock { $0.running -= 1; $0.done += 1 }
                all.signal()
            }
        }
        let fourthStarted = LockedValue(false)
        await Self.onAThreadOfItsOwn {
            // The first three start; a fourth does not while they are blocked.
            for _ in 0..<3 { started.wait() }
            let fourth = started.wait(timeout: .now() + 0.3)
            fourthStarted.withLock { $0 = fourth == .success }
            for _ in 0..<count { release.signal() }
            for _ in 0..<count { _ = all.wait(timeout: .now() + 20) }
        }
        #expect(!fourthStarted.withLock { $0 }, "a fourth body ran beside three blocked ones")
        let final = state.withLock { $0 }
        #expect(final.done == count)
        #expect(final.most == 3)
        #expect(pool.threadCount == 3)
    }

    /// Runs `body` on a new thread, neither the pool's nor a global queue's, and awaits it.
    static func onAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            Thread { body(); c.resume() }.start()
        }
    }
}
