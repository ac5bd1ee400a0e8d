import Foundation
@testable import RecorderFleet
import RecorderModel
import Testing
import RecorderProtocol

/// What the fleet link does with a `cmd` payload, without a broker.
@Suite struct RemoteControlTests {
    func reply(_ payload: String) -> JSONRPCResponse? {
        if case .reply(let r) = RemoteControl.decide(Array(payload.utf8)) { return r }
        return nil
    }

    @Test func requestsAreForwardedWithTheirIDs() {
        guard case .forward(let id, let method, let params) = RemoteControl.decide(Array(#"{"jsonrpc":"2.0","id":12345678901234567890,"method":"daemon.status","params":{"disk":false}}"#.utf8)) else {
            Issue.record("not forwarded")
            return
        }
        #expect(id == .number("12345678901234567890") && method == "daemon.status" && params == .object(["disk": .bool(false)]))
        // A notification (no id) is carried out without an answer.
        guard case .forward(nil, "runs.list", nil) = RemoteControl.decide(Array(#"{"jsonrpc":"2.0","method":"runs.list"}"#.utf8)) else {
            Issue.record("a notification is not forwarded")
            return
        }
    }

    @Test func whatCannotBeCarriedOutIsAnsweredAtOnce() throws {
        #expect(reply("{oops")?.error?.code == RPCErrorCode.parseError.rawValue)
        #expect(reply("[1]")?.error?.code == RPCErrorCode.invalidRequest.rawValue)
        #expect(reply(#"{"jsonrpc":"1.0","id":"a","method":"x"}"#).map { ($0.id, $0.error?.code) }.map { $0 == .string("a") && $1 == -32600 } == true)
        let live = try #require(reply(#"{"jsonrpc":"2.0","id":7,"method":"stream.subscribe","params":{"device":"imu0"}}"#))
        #expect(live.id == .number("7") && live.error?.code == RPCErrorCode.methodNotFound.rawValue)
        let huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"p\":\"" + String(repeating: "a", count: RemoteControl.maximumBytes) + "\"}}"
        #expect(reply(huge)?.error?.code == RPCErrorCode.requestTooLarge.rawValue)
        let bytes = RemoteControl.encode(JSONRPCResponse(id: .string("x"), error: RPCError(.limitReached, "busy")))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""id":"x""#))
    }
}
