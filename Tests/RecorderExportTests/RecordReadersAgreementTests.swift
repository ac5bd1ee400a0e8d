import Foundation
import RecorderClient
import RecorderEngine
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

/// The records' three readers — recovery (`RunRecovery.repair`), export (`RecordFileReader`) and
/// live streams (the client's reading of a `stream.records` notification, record by record, and
/// as any message when it is in another form) — agree line by line: a line one accepts, all
/// accept, as the same record; a line one refuses, all refuse. Lines are the encoder's own,
/// then mutated (fixed seeds: a failure names its round and replays).
@Suite("One reader of records: recovery, export and live agree")
struct RecordReadersAgreementTests {
    /// What one reader made of a line: nil (refused) or the record.
    typealias Reading = Record?

    @Test("generated and mutated lines are read alike by recovery, export and live", arguments: [UInt64(1), 2, 3])
    func readersAgreeLineByLine(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var accepted = 0, refused = 0
        for round in 0..<1_500 {
            let original = Self.line(for: Self.record(&random))
            let line = round % 5 == 0 ? original : Self.mutated(original, &random)
            let export = try Self.exportReading(line, directory: directory)
            let recovery = try Self.recoveryReading(line, directory: directory)
            let liveFast = Self.liveReading(line)
            let liveAsMessage = Self.liveReadingAsMessage(line)
            let context = "seed \(seed) round \(round): \(String(decoding: line, as: UTF8.self).debugDescription)"
            #expect(recovery == export, "recovery and export disagree on \(context)")
            #expect(liveFast == export, "live (record by record) and export disagree on \(context)")
            #expect(liveAsMessage == export, "live (as a message) and export disagree on \(context)")
            if export == nil { refused += 1 } else { accepted += 1 }
        }
        // Both sides of the property were exercised.
        #expect(accepted > 300 && refused > 300, "accepted \(accepted), refused \(refused)")
    }

    @Test("hand-picked lines at the edges of the grammar", arguments: [
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":1e-400,"y":0,"z":0}"#,
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":1e400,"y":0,"z":0}"#,
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":-0,"y":0.0,"z":0E0}"#,
        #"{"uptime":1,"uptime":2,"timestamp":0,"sensorType":"gyro","x":1,"y":2,"z":3}"#,
        #"{"uptime":1,"timestamp":0,"stepPath":"a\"b\\c\u0041\ud83d\ude00","sensorType":"gyro","x":1,"y":2,"z":3}"#,
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":1,"y":2,"z":3,"extra":{"nested":[1,2]}}"#,
        #"{"uptime":1,"timestamp":0,"event":"gap","sensorType":"gyro","droppedSamples":9007199254740993}"#,
        #"{"uptime":1,"timestamp":0,"event":"gap","sensorType":"gyro","droppedSamples":1.5}"#,
        #"{"uptime":01,"timestamp":0}"#, #"{"uptime":1.,"timestamp":0}"#, #"{"uptime":.5}"#, #"{"uptime":+1}"#,
        #"{"uptime":1,"timestamp":0,"sensorType":null,"x":1}"#, #"{"uptime":"1"}"#, #" {"uptime":1} "#, "{}", "[]", #""x""#,
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro\u0000","x":1,"y":2,"z":3}"#, "{\"uptime\":1,\"stepPath\":\"\u{7}\"}",
        #"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":1,"y":2,"z":3}x"#, #"{"uptime":1}}"#, #"{"uptime":1,}"#,
    ])
    func readersAgreeOnEdges(text: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let line = Array(text.utf8)
        let export = try Self.exportReading(line, directory: directory)
        #expect(try Self.recoveryReading(line, directory: directory) == export)
        #expect(Self.liveReading(line) == export)
        #expect(Self.liveReadingAsMessage(line) == export)
    }

    // MARK: The readers

    /// Export: the line as a whole file, read by `RecordFileReader`.
    static func exportReading(_ line: [UInt8], directory: String) throws -> Reading {
        let path = directory + "/export.jsonl"
        try Data(line + [0x0A]).write(to: URL(fileURLWithPath: path))
        var records: [Record] = []
        do {
            _ = try RecordFileReader(path: path).forEach { records.append($0) }
        } catch {
            return nil
        }
        return records.count == 1 ? records[0] : nil
    }

    /// Recovery: the line as a whole file of an interrupted run, repaired; accepted when kept.
    static func recoveryReading(_ line: [UInt8], directory: String) throws -> Reading {
        let path = directory + "/recovery.jsonl"
        try Data(line + [0x0A]).write(to: URL(fileURLWithPath: path))
        let summary = try RunRecovery.repair(path: path)
        guard summary.truncatedBytes == 0 else { return nil }
        // Kept: the record it counted is the one export reads (recovery keeps no record of its own).
        return try exportReading(line, directory: directory).map { record in
            #expect(summary.sampleCount == (record.isSample ? 1 : 0))
            return record
        }
    }

    /// Live: the line as the one record of a notification, read as the client reads the daemon's.
    static func liveReading(_ line: [UInt8]) -> Reading {
        let notification = StreamRecordsNotification.prefix + Array("1".utf8) + StreamRecordsNotification.recordsKey + line + StreamRecordsNotification.suffix
        var cache = JSONLinesDecoder.Cache()
        if let batch = StreamRecordsNotification.parse(notification[...], cache: &cache) {
            return batch.records.count == 1 ? batch.records[0] : nil
        }
        return liveReadingAsMessage(line)
    }

    /// Live, in a form the daemon does not write: the notification read as any message.
    static func liveReadingAsMessage(_ line: [UInt8]) -> Reading {
        let notification = Array(#"{"jsonrpc":"2.0","method":"stream.records","params":{"subscription":1,"records":["#.utf8) + line + Array("]}}".utf8)
        guard let message = try? JSONRPCMessage.parse(line: notification), let params = message.params,
              let batch = LiveBatch(params: params), batch.records.count == 1 else { return nil }
        return batch.records[0]
    }

    // MARK: Lines

    static func line(for record: Record) -> [UInt8] {
        var encoder = JSONLinesEncoder(reservingCapacity: 512)
        encoder.appendRecord(record)
        return Array(encoder.bytes.dropLast())  // without its newline
    }

    static let numbers: [Double] = [0, -0.0, 1, -1, 0.1, 1e-7, 123456.789, 3418.070360997, 1e300, -2.5e-300, 9007199254740993, .pi]
    static let strings = ["gyro", "accelerometer", "task/step.one", "a\"b", "back\\slash", "ünï", "😀", "tab\tin", ""]

    static func record(_ random: inout SplitMix) -> Record {
        var r = Record()
        func maybe<T>(_ values: [T]) -> T? { random.uniform() < 0.5 ? values[Int(random.next() % UInt64(values.count))] : nil }
        r.uptime = maybe(numbers)
        r.timestamp = maybe(numbers)
        r.timestampDate = maybe(["2026-11-22T01:08:46.679+00:00"])
        r.stepPath = maybe(strings)
        r.sensorType = maybe(strings)
        r.event = maybe(["gap", "error", "step", "bout"])
        r.x = maybe(numbers)
        r.y = maybe(numbers)
        r.z = maybe(numbers)
        r.w = maybe(numbers)
        r.droppedSamples = maybe([0, 1, 12, Int(Int32.max)])
        r.errorDescription = maybe(strings)
        r.latitude = maybe(numbers)
        r.steps = maybe([0, 3])
        r.side = maybe(["left", "right"])
        r.average = maybe(numbers)
        return r
    }

    /// One to three edits: a byte replaced, removed or inserted, or the line cut.
    static func mutated(_ line: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        let interesting = Array(#"{}[]",:\ -+.eE0123456789un"#.utf8) + [0x00, 0x07, 0x7F, 0xC3, 0xFF]
        var out = line
        for _ in 0..<(1 + Int(random.next() % 3)) {
            guard !out.isEmpty else { break }
            let at = Int(random.next() % UInt64(out.count))
            let byte = interesting[Int(random.next() % UInt64(interesting.count))]
            switch random.next() % 4 {
            case 0: out[at] = byte
            case 1: out.remove(at: at)
            case 2: out.insert(byte, at: at)
            default: out = Array(out.prefix(at))
            }
        }
        return out.filter { $0 != 0x0A }  // a line has no newline in it
    }
}
