import Foundation
import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// The streaming reader: lines across its 1 MiB blocks, a torn last line, a bad line in the
/// middle, a line too long.
struct RecordFileReaderTests {
    static func write(_ text: String) throws -> String {
        let directory = try Fixtures.temporaryDirectory()
        let path = directory + "/motion.jsonl"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func everyLineAcrossBlocksIsReadInOrder() throws {
        var text = ""
        for i in 0..<40_000 { text += #"{"uptime":\#(i),"sensorType":"accelerometer","x":\#(Double(i) * 0.5),"y":0,"z":1}"# + "\n" }
        #expect(text.utf8.count > 2 << 20)
        let path = try Self.write(text)
        var next = 0
        let outcome = try RecordFileReader(path: path).forEach { (r) throws(ExportError) in
            #expect(r.uptime == Double(next) && r.x == Double(next) * 0.5)
            next += 1
        }
        #expect(outcome == RecordFileReader.Outcome(records: 40_000, tornLastLine: false) && next == 40_000)
    }

    @Test func aTornLastLineIsSkippedAndSaidAndACompleteOneWithoutNewlineIsKept() throws {
        let torn = try Self.write(#"{"uptime":1,"x":1}"# + "\n" + #"{"uptime":2,"x""#)
        #expect(try RecordFileReader(path: torn).forEach { _ in } == RecordFileReader.Outcome(records: 1, tornLastLine: true))
        let whole = try Self.write(#"{"uptime":1,"x":1}"# + "\n" + #"{"uptime":2,"x":2}"#)
        #expect(try RecordFileReader(path: whole).forEach { _ in } == RecordFileReader.Outcome(records: 2, tornLastLine: false))
    }

    @Test func aBadLineInTheMiddleIsAnErrorNamingItsLine() throws {
        let path = try Self.write(#"{"uptime":1}"# + "\n" + #"{"uptime":2}"# + "\n" + "\u{0}\u{0}garbage\n" + #"{"uptime":4}"# + "\n")
        #expect {
            try RecordFileReader(path: path).forEach { _ in }
        } throws: { error in
            guard case .malformedLine(let file, let line, _) = error as? ExportError else { return false }
            return file == "motion.jsonl" && line == 3
        }
    }

    @Test func aLineLongerThanAMebibyteIsAnError() throws {
        let path = try Self.write(#"{"stepPath":""# + String(repeating: "a", count: 3 << 20) + "\"}\n")
        #expect {
            try RecordFileReader(path: path).forEach { _ in }
        } throws: { error in
            guard case .malformedLine(_, _, let message) = error as? ExportError else { return false }
            return message.contains("longer than")
        }
    }
}
