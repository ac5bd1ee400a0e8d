import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

/// The client's reading of a line against Foundation's decoder reading the same members: the same
/// message for every kind of line the daemon sends.
@Suite("Reading a response or notification line")
struct JSONRPCMessageParseTests {

    static let lines = [
        #"{"jsonrpc":"2.0","id":42,"result":{"startedRecorders":["m"],"stoppedRecorders":[],"uptime":12345.678901234}}"#,
        #"{"jsonrpc":"2.0","id":"abc","result":null}"#,
        #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON"}}"#,
        #"{"jsonrpc":"2.0","id":7,"error":{"code":-32011,"message":"out of open files","data":{"limit":160}}}"#,
        #"{"jsonrpc":"2.0","method":"stream.records","params":{"subscription":3,"records":[{"uptime":1.5,"x":-0.25}]}}"#,
        #"{"jsonrpc":"2.0","id":9007199254740993,"result":[1,"two",true,null,{"k":[]}]}"#,
        #" { "result" : 1.5e-7 , "id" : -3 , "jsonrpc" : "2.0" } "#,
    ]

    @Test(arguments: lines)
    func sameMessageAsFoundationReads(line: String) throws {
        let ours = try JSONRPCMessage.parse(line: Array(line.utf8))
        let foundation = try JSONDecoder().decode(FoundationRPCMessage.self, from: Data(line.utf8))
        #expect(ours.method == foundation.method)
        #expect(ours.params == foundation.params)
        #expect(ours.result == foundation.result)
        #expect(ours.error == foundation.error)
        // A numeric id keeps its exact text (Foundation's goes through Int64 or Double).
        if case .number(let text)? = ours.id, let integer = Int64(text) {
            #expect(ours.id?.integerValue == integer)
            #expect(foundation.id?.integerValue == integer || abs(integer) > 1 << 53)
        } else if ours.id == .null {
            // A null id (an answer to a line whose id could not be read) is kept as one; the
            // conformance's `decodeIfPresent` made it look like a notification's missing id.
            #expect(foundation.id == nil)
        } else {
            #expect(ours.id == foundation.id)
        }
    }

    @Test func exactNumericIDsAreKept() throws {
        let message = try JSONRPCMessage.parse(line: Array(#"{"jsonrpc":"2.0","id":9007199254740993,"result":0}"#.utf8))
        #expect(message.id == .number("9007199254740993"))
        #expect(message.id?.integerValue == 9_007_199_254_740_993)
    }

    @Test(arguments: [#"[1,2]"#, #"{"id":[1],"result":0}"#, #"{"method":3}"#, #"{"error":{"code":"x"}}"#, #"{"id":1,"result":tru}"#, ""])
    func malformedLinesAreErrors(line: String) {
        #expect(throws: (any Error).self) { try JSONRPCMessage.parse(line: Array(line.utf8)) }
    }
}
