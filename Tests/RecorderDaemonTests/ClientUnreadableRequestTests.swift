import Foundation
@testable import RecorderClient
import RecorderModel
import Testing
import RecorderConfiguration
import RecorderJSON
import RecorderProtocol
import RecorderTestSupport

/// Calls the daemon cannot read, or cannot tie to their id: each ends with the daemon's error,
/// none waits forever, and the connection goes on where the daemon keeps it.
@Suite("Client: requests the daemon cannot read")
struct ClientUnreadableRequestTests {
    /// `{"pad":[[…]]}` with `levels` arrays.
    static func nested(_ levels: Int) -> JSONValue {
        var value = JSONValue.array([])
        for _ in 1..<levels { value = .array([value]) }
        return .object(["pad": value])
    }

    /// Closes `client` after `seconds` unless cancelled: a call that would wait forever fails
    /// (`connectionClosed`) instead of hanging the test. Generous, as the reads' timeouts below:
    /// in the whole suite the gait tests can hold every thread of the cooperative pool, where
    /// these calls run, for 20 s and more.
    static func watchdog(_ client: RecorderClient, seconds: Int = 120) -> Task<Void, Never> {
        Task {
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
            client.close()
        }
    }

    /// The deepest line the daemon reads is sent; one level more is refused by the client with the
    /// daemon's parse error, before it is sent, and the connection goes on. (Before: the daemon
    /// answered it with a null id and the call waited forever.)
    @Test(.ownThread) func aRequestNestedDeeperThanTheDaemonReadsIsRefusedBeforeItIsSent() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let watchdog = Self.watchdog(client)
        defer { watchdog.cancel() }
        // The line's object and the params' object hold the arrays.
        let deepest = JSONParser.defaultMaximumDepth - 2
        let read = try await client.send(method: ControlMethod.daemonStatus.rawValue, params: Self.nested(deepest))
        #expect(read.id == .number("1"), "the daemon answered this call")
        #expect(read.error?.code != RPCErrorCode.parseError.rawValue, "\(String(describing: read.error))")
        await #expect {
            _ = try await client.send(method: ControlMethod.daemonStatus.rawValue, params: Self.nested(deepest + 1))
        } throws: { error in
            guard case .rpc(let e) = error as? RecorderClientError else { return false }
            return e.code == RPCErrorCode.parseError.rawValue && e.message.contains("nesting deeper than \(JSONParser.defaultMaximumDepth) levels") && e.message.hasSuffix("not sent")
        }
        #expect(try await client.devices().count == 1)
        client.close()
        try await d.stop()
    }

    /// A line over the daemon's limit is not sent: the call gets `-32009` and the connection stays
    /// open. (Before: the daemon refused it and closed the connection; the call saw only that.)
    @Test(.ownThread) func aRequestLineOverTheLimitIsRefusedBeforeItIsSent() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let watchdog = Self.watchdog(client)
        defer { watchdog.cancel() }
        let pad = String(repeating: "x", count: ControlLine.maximumLength)
        await #expect {
            _ = try await client.send(method: ControlMethod.daemonStatus.rawValue, params: .object(["pad": .string(pad)]))
        } throws: { error in
            guard case .rpc(let e) = error as? RecorderClientError else { return false }
            return e.code == RPCErrorCode.requestTooLarge.rawValue && e.message.hasSuffix("not sent")
        }
        #expect(try await client.devices().count == 1)
        client.close()
        try await d.stop()
    }

    /// A connection over the daemon's limit: the call fails with the daemon's reason, not with
    /// "the connection closed".
    @Test(.ownThread) func aRefusedConnectionsCallsFailWithTheDaemonsReason() async throws {
        let d = try await TestDaemon.inProcess(limits: DaemonLimits(connections: 1, taskRuns: 16, recordersPerRun: 16))
        let admitted = try await d.client()
        #expect(try await admitted.devices().count == 1)
        let refused = try await d.client()
        let watchdog = Self.watchdog(refused)
        defer { watchdog.cancel() }
        await #expect(throws: RecorderClientError.rpc(RPCError(.limitReached, "too many connections: recorderd serves at most 1 at once"))) {
            _ = try await refused.status()
        }
        // And so does a call made after the connection ended.
        await #expect(throws: RecorderClientError.rpc(RPCError(.limitReached, "too many connections: recorderd serves at most 1 at once"))) {
            _ = try await refused.devices()
        }
        admitted.close()
        refused.close()
        try await d.stop()
    }

    /// Against a peer that answers as the daemon does when it cannot parse a line (an error with a
    /// null id, in turn) or refuses the connection (a null-id error, then EOF).
    @Test(.ownThread) func anErrorWithANullIDAnswersTheOldestCallOrEndsTheConnection() async throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let client = RecorderClient.start(descriptor: fds[0])
        let peer = RawConnection(descriptor: fds[1])
        let watchdog = Self.watchdog(client)
        defer { watchdog.cancel() }

        let unreadable = Task { try await client.send(method: "daemon.status", params: nil) }
        #expect(try await peer.readLine(timeout: 90)?.contains(#""id":1,"#) == true)
        try await peer.send(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: x"}}"# + "\n")
        #expect(try await unreadable.value.error == RPCError(.parseError, "parse error: x"))

        // The connection goes on.
        let next = Task { try await client.send(method: "daemon.status", params: nil) }
        #expect(try await peer.readLine(timeout: 90)?.contains(#""id":2,"#) == true)
        try await peer.send(#"{"jsonrpc":"2.0","id":2,"result":{"ok":true}}"# + "\n")
        #expect(try await next.value.result == .object(["ok": .bool(true)]))

        // A refusal, then EOF: the waiting call fails with it.
        let refused = Task { try await client.send(method: "daemon.status", params: nil) }
        #expect(try await peer.readLine(timeout: 90)?.contains(#""id":3,"#) == true)
        try await peer.send(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"busy"}}"# + "\n")
        shutdown(peer.fd, Int32(SHUT_RDWR))
        await #expect(throws: RecorderClientError.rpc(RPCError(.limitReached, "busy"))) { _ = try await refused.value }
        client.close()
    }
}
