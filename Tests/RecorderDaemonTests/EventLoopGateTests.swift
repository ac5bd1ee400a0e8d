import Foundation
import NIOCore
import NIOPosix
@testable import RecorderDaemon
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderRuntime

/// Other threads' hand-offs to the control server's event loop around its shutdown, on a real NIO
/// loop. With `NIOStrictMode` on, work that reached a loop already shut down would trap the run.
@Suite("Hand-offs to the control server's event loop", .timeLimit(.minutes(2)))
struct EventLoopGateTests {
    @Test(.ownThread) func workReachesTheLoopUntilTheGateClosesAndNeverAfter() async throws {
        try #require(NIOStrictMode.isOn, "SWIFTNIO_STRICT=1 from before main (CTestEnvironment)")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let gate = EventLoopGate()
        let ran = LockedValue<[String]>([])
        let done = loop.makePromise(of: Void.self)
        #expect(gate.execute(on: loop) {
            ran.withLock { $0.append(loop.inEventLoop ? "on the loop" : "elsewhere") }
            done.succeed()
        })
        try await done.futureResult.get()
        gate.close()
        #expect(!gate.isOpen)
        #expect(!gate.execute(on: loop) { ran.withLock { $0.append("after close") } })
        try await group.shutdownGracefully()
        #expect(!gate.execute(on: loop) { ran.withLock { $0.append("after shutdown") } })
        #expect(ran.withLock { $0 } == ["on the loop"])
    }

    /// Four threads hand work over as fast as they can while the gate closes and the loop shuts
    /// down: everything taken runs, nothing reaches the dead loop.
    @Test(.ownThread) func handOffsRacingTheShutdownAreTakenOrDropped() async throws {
        try #require(NIOStrictMode.isOn, "SWIFTNIO_STRICT=1 from before main (CTestEnvironment)")
        for _ in 0..<20 {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let gate = EventLoopGate()
            let taken = LockedValue(0)
            let ran = LockedValue(0)
            let threads = 4
            let finished = DispatchGroup()
            let started = DispatchSemaphore(value: 0)
            for _ in 0..<threads {
                finished.enter()
                Thread {
                    // Signalled after the thread's first hand-off was taken: the gate closes only
                    // once every thread is handing work over (signalled before it, a loaded
                    // machine once closed the gate before any thread had reached it).
                    var signalled = false
                    while gate.execute(on: loop, { ran.withLock { $0 += 1 } }) {
                        taken.withLock { $0 += 1 }
                        if !signalled { started.signal(); signalled = true }
                    }
                    if !signalled { started.signal() }
                    finished.leave()
                }.start()
            }
            for _ in 0..<threads { started.wait() }
            gate.close()
            try await group.shutdownGracefully()
            await withCheckedContinuation { c in finished.notify(queue: .global()) { c.resume() } }
            // Graceful shutdown runs the tasks already queued.
            #expect(taken.withLock { $0 } == ran.withLock { $0 })
            #expect(taken.withLock { $0 } >= threads)
        }
    }

    /// The daemon stopping while its connections still have requests being answered and live
    /// streams delivering: the serve tasks' last hand-offs (a reply, "answered, next please") came
    /// after the loop was gone. Found by the full suite with `SWIFTNIO_STRICT`.
    @Test(.ownThread) func stoppingWhileRequestsAreAnsweredLeavesNothingForTheDeadLoop() async throws {
        for _ in 0..<5 {
            let d = try await TestDaemon.inProcess(speed: 20)
            var connections: [RawConnection] = []
            for i in 0..<4 {
                let raw = try RawConnection(socketPath: d.socket)
                if i < 2 {
                    try await raw.send(#"{"jsonrpc":"2.0","id":0,"method":"stream.subscribe","params":{"device":"imu0"}}"# + "\n")
                }
                let status = #"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n"
                try await raw.send(String(repeating: status, count: 200))
                #expect(try await raw.response()?["result"] != nil)
                connections.append(raw)
            }
            try await d.stop()
            // Had anything reached the dead loop, strict mode would have trapped by now. Every
            // client sees its connection end (`readLine` fails the test on a timeout instead).
            for raw in connections {
                while try await raw.readLine(timeout: 10) != nil {}
            }
        }
    }
}
