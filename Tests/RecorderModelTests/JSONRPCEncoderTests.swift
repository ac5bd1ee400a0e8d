import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import Testing

/// The one writer of JSON-RPC envelopes: each kind of line as it is written (golden), read back
/// by the protocol's readers, and accepted by Foundation's parser (an independent reader).
@Suite("Writing JSON-RPC envelopes")
struct JSONRPCEncoderTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static func foundationReads(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes.last == 0x0A ? bytes.dropLast() : bytes[...]))) as? [String: Any]
    }

    @Test func aRequestReadsBackAsTheSameRequest() throws {
        let params = Array(#"{"taskRunUUID":"3F2504E0-4F89-41D3-9A0C-0305E82C3301","stepPath":"a/b"}"#.utf8)
        let line = JSONRPCEncoder.request(id: .number("9007199254740993"), method: "step.\"start\"", encodedParams: params)
        #expect(Self.text(line) == #"{"jsonrpc":"2.0","id":9007199254740993,"method":"step.\"start\"","params":{"taskRunUUID":"3F2504E0-4F89-41D3-9A0C-0305E82C3301","stepPath":"a/b"}}"# + "\n")
        let request = try JSONRPCRequest.parse(line: line.dropLast())
        #expect(request.id == .number("9007199254740993") && request.method == "step.\"start\"")
        #expect(request.params?["stepPath"] == .string("a/b"))
        #expect(Self.foundationReads(line)?["method"] as? String == "step.\"start\"")
        // A client's notification: no id member; an MQTT payload: no newline.
        let notification = JSONRPCEncoder.request(id: nil, method: "daemon.status", encodedParams: nil, newline: false)
        #expect(Self.text(notification) == #"{"jsonrpc":"2.0","method":"daemon.status"}"#)
        #expect(try JSONRPCRequest.parse(line: notification).id == nil)
    }

    @Test func responsesAndErrorsReadBackAsTheSameMessages() throws {
        let success = try JSONRPCEncoder.response(id: .string("a\"b"), result: ["uptime": 12.5])
        #expect(Self.text(success) == #"{"jsonrpc":"2.0","id":"a\"b","result":{"uptime":12.5}}"# + "\n")
        let read = try JSONRPCMessage.parse(line: success.dropLast())
        #expect(read.id == .string("a\"b") && read.result == .object(["uptime": .number(12.5)]) && read.error == nil)

        let failure = JSONRPCEncoder.failure(id: .null, error: RPCError(.limitReached, "too many", data: .object(["limit": .number(16)])))
        #expect(Self.text(failure) == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"data":{"limit":16},"message":"too many"}}"# + "\n")
        let error = try JSONRPCMessage.parse(line: failure.dropLast())
        #expect(error.id == .null && error.error == RPCError(.limitReached, "too many", data: .object(["limit": .number(16)])))
        #expect((Self.foundationReads(failure)?["error"] as? [String: Any])?["code"] as? Int == -32011)

        // A response as a value, as the fleet link answers over MQTT.
        let value = JSONRPCEncoder.response(JSONRPCResponse(id: JSONRPCID(7), result: .array([.bool(true)])), newline: false)
        #expect(Self.text(value) == #"{"jsonrpc":"2.0","id":7,"result":[true]}"#)
    }

    @Test func aNotificationCarriesItsMethodAndParams() throws {
        let line = try JSONRPCEncoder.notification(method: ControlMethod.stepSummaryNotification, params: ["stepPath": "walk/out"])
        #expect(Self.text(line) == #"{"jsonrpc":"2.0","method":"step.summary","params":{"stepPath":"walk/out"}}"# + "\n")
        let message = try JSONRPCMessage.parse(line: line.dropLast())
        #expect(message.id == nil && message.method == "step.summary" && message.params?["stepPath"] == .string("walk/out"))
    }

    @Test func streamRecordsCarryTheLinesAsTheyAreAndReadBackBothWays() throws {
        let lines = Array("{\"uptime\":1.5,\"timestamp\":0.5,\"sensorType\":\"gyro\",\"x\":1,\"y\":-2,\"z\":0.25}\n{\"uptime\":2,\"timestamp\":1,\"event\":\"gap\",\"sensorType\":\"gyro\",\"droppedSamples\":3}\n".utf8)
        var bytes: [UInt8] = []
        StreamRecordsNotification.append(subscription: 12, lines: lines, to: &bytes)
        #expect(Self.text(bytes) == #"{"jsonrpc":"2.0","method":"stream.records","params":{"subscription":12,"records":[{"uptime":1.5,"timestamp":0.5,"sensorType":"gyro","x":1,"y":-2,"z":0.25},{"uptime":2,"timestamp":1,"event":"gap","sensorType":"gyro","droppedSamples":3}]}}"# + "\n")
        var cache = JSONLinesDecoder.Cache()
        let fast = try #require(StreamRecordsNotification.parse(bytes.dropLast(), cache: &cache))
        #expect(fast.subscription == 12 && fast.records.count == 2)
        #expect(fast.records[0].x == 1 && fast.records[1].droppedSamples == 3)
        #expect(Self.text(Array(fast.bytes[fast.textRanges[1]])) == #"{"uptime":2,"timestamp":1,"event":"gap","sensorType":"gyro","droppedSamples":3}"#)
        // The same notification as any message: the same records.
        let message = try JSONRPCMessage.parse(line: bytes.dropLast())
        #expect(message.method == ControlMethod.streamRecordsNotification)
        let params = try #require(message.params)
        let generic = try #require(StreamRecordsNotification.batch(params: params))
        #expect(generic.subscription == 12 && generic.records == fast.records)
        // Another form (spaces) is not the fast path's: nil, and the generic path reads it.
        let spaced = Array(#"{"jsonrpc": "2.0","method":"stream.records","params":{"subscription":1,"records":[]}}"#.utf8)
        #expect(StreamRecordsNotification.parse(spaced[...], cache: &cache) == nil)
        #expect(Self.foundationReads(bytes) != nil)
    }
}
