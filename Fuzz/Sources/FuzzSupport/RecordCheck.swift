import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// Oracles for the records' one reader and writer, over arbitrary bytes, under AddressSanitizer:
/// the JSON-lines decoder's direct path and its parser path read a line alike; the client's
/// reading of a live notification agrees with it; what the encoder writes of a record reads back
/// as the same record; `JSONNumber` and `JSONParser` agree on a number.
public enum RecordCheck {
    public static func run(_ bytes: [UInt8]) {
        let line = bytes.filter { $0 != 0x0A }
        let direct = try? JSONLinesDecoder.decode(line)
        // The parser's reading: the same record, or the same refusal.
        let parsed: Record? = {
            guard case .object? = try? JSONParser.parse(line) else { return nil }
            return try? JSONValueDecoder().decode(Record.self, from: line)
        }()
        if direct != parsed { fail("the record decoder and the parser read a line differently", bytes) }
        // A live notification with this one record.
        var cache = JSONLinesDecoder.Cache()
        let notification = StreamRecordsNotification.prefix + Array("7".utf8) + StreamRecordsNotification.recordsKey + line + StreamRecordsNotification.suffix
        if let batch = StreamRecordsNotification.parse(notification[...], cache: &cache), batch.records.count == 1, let direct {
            if batch.records[0] != direct || Array(batch.bytes[batch.textRanges[0]]) != line { fail("a live record read differently", bytes) }
        }
        // Written again, read back the same.
        if let record = direct {
            var encoder = JSONLinesEncoder(reservingCapacity: 256)
            encoder.appendRecord(record)
            guard let again = try? JSONLinesDecoder.decode(Array(encoder.bytes.dropLast())), again == record else {
                fail("a record written again does not read back the same", bytes)
            }
        }
        // A number alone.
        if line.count < 400 {
            let number = line.withUnsafeBufferPointer { JSONNumber.parse($0) }
            let viaParser: Double? = { if case .number(let n)? = try? JSONParser.parse(line) { return n } else { return nil } }()
            if let number, number != viaParser { fail("JSONNumber and JSONParser read a number differently", bytes) }
        }
    }

    static func fail(_ message: String, _ bytes: [UInt8]) -> Never {
        FileHandle.standardError.write(Data("\(message): \(String(decoding: bytes, as: UTF8.self).debugDescription)\n".utf8))
        abort()
    }
}
