import Foundation
import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// The fast JSON-lines decoder against Foundation's JSONDecoder (an independent parser): the
/// same record for every line recorderd writes and for lines it never writes, an error where
/// JSONDecoder fails.
struct JSONLinesDecoderTests {
    static func foundation(_ line: String) -> Record? {
        try? JSONDecoder().decode(Record.self, from: Data(line.utf8))
    }

    @Test func everyKindOfRecordTheEncoderWritesDecodesAsFoundationReadsIt() throws {
        var encoder = JSONLinesEncoder()
        let path = JSONString("gait-balance/walking.outbound")
        encoder.appendMarker(uptime: 3418.070360997, timestamp: 0, timestampDate: "2026-11-22T01:08:46.679+00:00", stepPath: path)
        encoder.appendMotion(uptime: 3418.073889725, timestamp: 0.0035287279997646692, stepPath: path, sensorType: .accelerometer,
                             vector: Vector3(x: 0.9884917383408199, y: -0.05085322578046536, z: -1.3817648565004352e-22))
        encoder.appendGap(uptime: 3419.2, timestamp: 1.13, stepPath: path, sensorType: .gyro, droppedSamples: 12, duration: nil)
        encoder.appendStep(uptime: 12.5, timestamp: 2, stepPath: path)
        encoder.appendBout(uptime: 15, timestamp: 4.5, stepPath: nil, startUptime: 11, steps: 7, cadence: 105.00000000000001)
        encoder.appendError(uptime: 20, timestamp: 9, stepPath: JSONString("task/\"quoted\" step\\"), description: "device lost: \u{1} ✓")
        let lines = String(decoding: encoder.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        for line in lines {
            let ours = try JSONLinesDecoder.decode(Array(line.utf8))
            #expect(ours == Self.foundation(line), "\(line)")
        }
    }

    @Test(arguments: [
        #"{}"#, #"{"uptime":1,"x":null}"#, #"{"uptime":-0.0,"x":1E+2,"y":-1e-300}"#, #"{"sensorType":"gyro","future":"field","x":1}"#,
        #"{"future":{"nested":[1,2]},"x":1}"#, #"{ "uptime" : 1 }"#, #"{"stepPath":"a\u002fb","x":2}"#,
        #"{"droppedSamples":12,"steps":3,"eventAccuracy":-1,"satellitesUsed":9}"#,
    ])
    func linesRecorderdNeverWritesDecodeAsFoundationReadsThem(line: String) throws {
        let expected = try #require(Self.foundation(line))
        #expect(try JSONLinesDecoder.decode(Array(line.utf8)) == expected)
    }

    @Test(arguments: [
        #"{"uptime":1"#, #"{"uptime":01}"#, #"{"uptime":1.}"#, #"{"uptime":1e400}"#, #"{"uptime":"1"}"#, #"{"x":1,"x":2}"#,
        #"{"droppedSamples":1.5}"#, #"{"steps":1e19}"#, #"[1]"#, #"{"sensorType":1}"#, #"{"uptime":NaN}"#, #"{"uptime":1,}"#,
        "{\"stepPath\":\"a\u{0}b\"}", #"{"uptime":--1}"#, "",
    ])
    func malformedLinesAreErrors(line: String) {
        #expect(throws: JSONLinesDecoder.Failure.self) { try JSONLinesDecoder.decode(Array(line.utf8)) }
    }

    /// `Record`'s `Codable` reads each known key as its field's type first: a value of another
    /// type is still an error naming the key, as the fast decoder's is.
    @Test(arguments: [
        (#"{"uptime":"1"}"#, "uptime"), (#"{"droppedSamples":1.5}"#, "droppedSamples"), (#"{"sensorType":1}"#, "sensorType"),
        (#"{"x":true}"#, "x"), (#"{"stepPath":["a"]}"#, "stepPath"), (#"{"future":1,"steps":"3"}"#, "steps"),
    ])
    func foundationsReaderRefusesAValueOfAnotherTypeByItsKey(line: String, key: String) throws {
        #expect(throws: (any Error).self) { try JSONLinesDecoder.decode(Array(line.utf8)) }
        do {
            _ = try JSONDecoder().decode(Record.self, from: Data(line.utf8))
            Issue.record("decoded \(line)")
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context), .dataCorrupted(let context):
                #expect(context.codingPath.map(\.stringValue) == [key], "\(error)")
            default: Issue.record("\(error)")
            }
        }
    }

    @Test func numbersAreExact() throws {
        var state: UInt64 = 7
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = Double(bitPattern: state >> 2 | 0x3000_0000_0000_0000) * (state & 1 == 0 ? 1 : -1)
            guard value.isFinite else { continue }
            let record = try JSONLinesDecoder.decode(Array(#"{"x":\#(value.description)}"#.utf8))
            #expect(record.x == value)
        }
    }

    /// Numbers as people and other programs write them — 1 to 22 digits, the point anywhere, an
    /// exponent or not, halfway cases — read exactly as `strtod` reads them (Swift's
    /// `Double(String)`), whichever of the decoder's paths (integer arithmetic or `strtod`) takes them.
    @Test func decimalTextReadsAsStrtodReadsIt() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: UInt64) -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (state >> 33) % n
        }
        var checked = 0
        for _ in 0..<60_000 {
            let count = Int(next(22)) + 1
            var digits = (0..<count).map { _ in String(next(10)) }.joined()
            if next(4) == 0 { digits = String(digits.dropLast(min(digits.count - 1, 3))) + "5" }  // ties and near-ties
            let point = Int(next(UInt64(digits.count + 1)))
            var text = String(digits.prefix(point)) + (point < digits.count ? "." + digits.dropFirst(point) : "")
            if text.hasPrefix(".") { text = "0" + text }
            // JSON: no leading zeros before other digits.
            while text.count > 1, text.hasPrefix("0"), !text.hasPrefix("0.") { text.removeFirst() }
            if text.hasSuffix(".") { text.removeLast() }
            if next(3) == 0 { text += "e" + (next(2) == 0 ? "-" : "") + String(next(25)) }
            if next(2) == 0 { text = "-" + text }
            guard let expected = Double(text), expected.isFinite else { continue }
            let record = try JSONLinesDecoder.decode(Array(#"{"x":\#(text)}"#.utf8))
            #expect(record.x?.bitPattern == expected.bitPattern, "\(text): \(String(describing: record.x)) vs \(expected)")
            checked += 1
        }
        #expect(checked > 50_000)
    }
}
