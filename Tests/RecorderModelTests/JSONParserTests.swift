import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

@Suite("Strict JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func valuesOfEveryKind() throws {
        let v = try parse(#" {"a": [1, -2.5, 3e2, true, false, null, "x\"y\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(v == .object([
            "a": .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null, .string("x\"yé😀")]),
            "b": .object([:]),
        ]))
    }

    /// Foundation's parser is the independent truth for documents both accept.
    @Test func agreesWithFoundationOnRandomDocuments() throws {
        var generator = SplitMix(seed: 1007)
        for _ in 0..<300 {
            let document = Self.randomValue(depth: 0, using: &generator)
            let data = try JSONSerialization.data(withJSONObject: ["v": document])
            let ours = try JSONParser.parse(data)
            let theirs = try JSONDecoder().decode(JSONValue.self, from: data)
            #expect(ours == theirs, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    static func randomValue(depth: Int, using g: inout SplitMix) -> Any {
        switch Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &g) {
        case 0: return Double.random(in: -1e6...1e6, using: &g)
        case 1: return Int.random(in: -1_000_000...1_000_000, using: &g)
        case 2: return String((0..<Int.random(in: 0..<12, using: &g)).map { _ in "aé\"\\\n😀/z".randomElement(using: &g)! })
        case 3: return Bool.random(using: &g)
        case 4: return (0..<Int.random(in: 0..<4, using: &g)).map { _ in randomValue(depth: depth + 1, using: &g) }
        default:
            var o: [String: Any] = [:]
            for i in 0..<Int.random(in: 0..<4, using: &g) { o["k\(i)"] = randomValue(depth: depth + 1, using: &g) }
            return o
        }
    }

    @Test(arguments: [
        ("", "empty input"),
        ("{", "unexpected end of input"),
        ("[1,]", "unexpected character ']'"),
        ("{\"a\":1,}", "expected a string key"),
        ("01", "unexpected '1' after the JSON value"),
        ("1.", "expected a digit after the decimal point"),
        ("-", "expected a digit"),
        ("1e400", "number 1e400 is out of range"),
        ("-1e309", "number -1e309 is out of range"),
        ("2e-324", "number 2e-324 is out of range"),
        ("-1.0e-400", "number -1.0e-400 is out of range"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("\"\\ud800\"", "lone surrogate"),
        ("\"\\udc00x\"", "lone surrogate"),
        ("\"a\u{01}b\"", "control character"),
        ("\"\\x\"", "invalid escape"),
        ("nul", "unexpected end of input"),
        ("[1] [2]", "after the JSON value"),
        ("NaN", "unexpected character 'N'"),
    ])
    func refused(text: String, message: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.message.contains(message), "\(text.debugDescription): \(error)")
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    /// A document nested a million levels deep is refused at the depth limit, without recursion
    /// (Foundation's decoder would exhaust the stack on some such inputs).
    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() throws {
        let deep = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        do {
            _ = try parse(deep)
            Issue.record("accepted a million levels")
        } catch {
            #expect(error.message == "nesting deeper than 64 levels")
        }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(ok) }
    }

    @Test func membersOfATopLevelObjectKeepTheirExactText() throws {
        let document = try JSONParser.parseDocument(Array(#"{ "id" : 9223372036854775807 , "x": {"y": [1, 2]},"z":1e3}"#.utf8))
        #expect(String(decoding: document.topLevelMembers["id"]!, as: UTF8.self) == "9223372036854775807")
        #expect(String(decoding: document.topLevelMembers["x"]!, as: UTF8.self) == #"{"y": [1, 2]}"#)
        #expect(String(decoding: document.topLevelMembers["z"]!, as: UTF8.self) == "1e3")
    }
}

@Suite("Decoding from JSON values: numbers are range-checked where they enter")
struct JSONValueDecoderTests {
    struct Sample: Decodable, Equatable {
        var count: Int
        var small: UInt8?
        var ratio: Double?
        var nested: [Inner]?
        struct Inner: Decodable, Equatable { var id: Int64 }
    }

    func decode(_ text: String) throws -> Sample {
        try JSONValueDecoder().decode(Sample.self, from: Array(text.utf8))
    }

    func message(_ text: String) -> String {
        do {
            _ = try decode(text)
            return "decoded"
        } catch {
            return DecodingErrorDescription.describe(error, prefix: "params")
        }
    }

    @Test func integersAndNumbers() throws {
        #expect(try decode(#"{"count": 3, "small": 255, "ratio": 0.5, "nested": [{"id": -9007199254740992}]}"#)
            == Sample(count: 3, small: 255, ratio: 0.5, nested: [.init(id: -9_007_199_254_740_992)]))
    }

    @Test(arguments: [
        (#"{"count": 1e300}"#, "params.count: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"count": 5e-324}"#, "params.count: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"count": 1.5}"#, "params.count: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"count": 9223372036854775807}"#, "params.count: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"count": 1, "small": 256}"#, "params.small: expected an integer between 0 and 255"),
        (#"{"count": 1, "small": -1}"#, "params.small: expected an integer between 0 and 255"),
        (#"{"count": "1"}"#, "params.count: expected an integer"),
        (#"{"count": null}"#, "params.count: expected an integer, found null"),
        (#"{"count": 1, "nested": [{"id": 1}, {"id": 2.5}]}"#, "params.nested[1].id: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{}"#, "params.count: required key is missing"),
        (#"{"count": 1e999}"#, "params: malformed JSON: number 1e999 is out of range at byte 10"),
    ])
    func refusedWithThePath(text: String, expected: String) {
        #expect(message(text) == expected)
    }

    @Test func boundedDoublesNameTheirRange() throws {
        struct Rate: Decodable {
            var rate: Double?
            enum CodingKeys: String, CodingKey { case rate }
            init(from decoder: any Decoder) throws {
                rate = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Double.self, forKey: .rate, in: SubscribeParams.rateRange)
            }
        }
        for bad in ["1e-20", "5e-324", "0", "-1", "1e300", "100000.5"] {
            do {
                _ = try JSONValueDecoder().decode(Rate.self, from: Array(#"{"rate": \#(bad)}"#.utf8))
                Issue.record("accepted rate \(bad)")
            } catch {
                #expect(DecodingErrorDescription.describe(error) == "rate: expected a rate in Hz >= 0.001 and <= 100000")
            }
        }
        #expect(try JSONValueDecoder().decode(Rate.self, from: Array(#"{"rate": 100000}"#.utf8)).rate == 100_000)
    }

    @Test func saturatingConversionNeverTraps() {
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: .infinity) == .max && Int(saturating: -.infinity) == .min)
        #expect(Int(saturating: 1e300) == .max && Int(saturating: -1e300) == .min)
        #expect(Int(saturating: 9.223372036854775807e18) == .max)
        #expect(Int(saturating: 2.9) == 2 && Int(saturating: -2.9) == -2)
    }
}

@Suite("JSON-RPC ids are echoed exactly")
struct JSONRPCIDTests {
    @Test(arguments: ["9007199254740993", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
                      "123456789012345678901234567890", "0", "-0", "1e3", "1.5", "2.50E-3"])
    func numericIDs(text: String) throws {
        let request = try JSONRPCRequest.parse(line: Array(#"{"jsonrpc":"2.0","id":\#(text),"method":"daemon.status"}"#.utf8))
        #expect(request.id == .number(text))
        #expect(request.id?.jsonBytes == Array(text.utf8))
    }

    @Test func stringIDsAreReencoded() throws {
        let request = try JSONRPCRequest.parse(line: Array(#"{"jsonrpc":"2.0","id":"a\"b\u0001","method":"x"}"#.utf8))
        #expect(request.id == .string("a\"b\u{01}"))
        #expect(String(decoding: request.id!.jsonBytes, as: UTF8.self) == #""a\"b\u0001""#)
    }

    @Test func clientIDsRoundTrip() throws {
        let id = JSONRPCID(Int64.max)
        #expect(id.integerValue == .max)
        let decoded = try JSONDecoder().decode(JSONRPCID.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
    }
}

@Suite("Step paths")
struct StepPathTests {
    @Test func accepted() {
        #expect(StepPath.problem("gait-balance/walking.outbound") == nil)
        #expect(StepPath.problem("tâche/étape 1") == nil)
        #expect(StepPath.problem(String(repeating: "a", count: StepPath.maximumLength)) == nil)
    }

    @Test(arguments: [
        ("", "expected a step path, found an empty string"),
        (String(repeating: "a", count: 257), "expected a step path of at most 256 bytes, found 257"),
        (String(repeating: "é", count: 129), "expected a step path of at most 256 bytes, found 258"),
        ("a\u{1B}[31mred", "control character U+001B in the step path"),
        ("a\nb", "control character U+000A in the step path"),
        ("a\u{7F}", "control character U+007F in the step path"),
        ("a\u{85}", "control character U+0085 in the step path"),
        ("a\u{0}", "control character U+0000 in the step path"),
    ])
    func refused(path: String, problem: String) {
        #expect(StepPath.problem(path) == problem)
    }

    @Test func stepParamsRefuseThemWithThePath() throws {
        let uuid = UUID().uuidString
        let long = String(repeating: "x", count: 1 << 20)
        for path in [long, "a\u{1B}b"] {
            do {
                _ = try JSONValue.object(["taskRunUUID": .string(uuid), "stepPath": .string(path)]).decode(StepParams.self)
                Issue.record("accepted a step path of \(path.utf8.count) bytes")
            } catch {
                #expect(DecodingErrorDescription.describe(error, prefix: "params").hasPrefix("params.stepPath: "))
            }
        }
    }
}
