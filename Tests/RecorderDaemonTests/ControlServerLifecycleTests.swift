import Foundation
import RecorderConfiguration
@testable import RecorderDaemon
import RecorderTestSupport
import Testing

/// The control server's connections are child tasks of its `run`: ending the service group ends
/// them, and `run` returns only after they have.
@Suite("Control server lifecycle", .timeLimit(.minutes(1)))
struct ControlServerLifecycleTests {
    @Test(.ownThread) func runReturnsOnceItsConnectionsHaveEnded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.socket = directory + "/control.sock"
        configuration.dataDirectory = directory + "/data"
        configuration.devices = [Fixtures.replayDevice(file: Fixtures.shortWalk, speed: 1, loop: true)]
        let daemon = RecorderDaemon(configuration: configuration, components: .recorderd, baseDirectory: directory, logger: Fixtures.logger)
        // Served on a thread of its own, as `TestDaemon` serves (the pool is the suite's).
        let running = Task(executorPreference: DedicatedExecutor(label: "test.lifecycle")) { try await daemon.run(handleSignals: false) }
        await daemon.server.waitUntilListening()
        // Two connections that were answered, one in the middle of a request line.
        var connections: [RawConnection] = []
        for _ in 0..<2 {
            let raw = try RawConnection(socketPath: configuration.socket)
            try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n")
            let response = try #require(try await raw.response())
            #expect(response["result"] != nil, "\(response)")
            connections.append(raw)
        }
        let unfinished = try RawConnection(socketPath: configuration.socket)
        try await unfinished.send(#"{"jsonrpc":"2.0","id":1,"#)
        connections.append(unfinished)
        running.cancel()
        _ = await running.result
        for raw in connections { #expect(try await raw.readLine() == nil, "the connection ended with the server") }
        #expect(!FileManager.default.fileExists(atPath: configuration.socket))
    }
}
