import Foundation
import RecorderJSON
import RecorderModel

/// Foundation's coders configured as recorderd's own (ISO-8601 dates with milliseconds, keys
/// sorted): the independent reader and writer tests check recorderd's codec against
/// (`JSONTextEncoder`, `JSONValueDecoder`; production code uses those only).
extension TaskResult {
    /// Foundation's encoder writing what `JSONTextEncoder` writes.
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(ISO8601Timestamp.string(from: date))
        }
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Foundation's decoder reading what `JSONValueDecoder` reads.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let s = try c.decode(String.self)
            guard let d = ISO8601Timestamp.date(from: s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected an ISO-8601 date")
            }
            return d
        }
        return decoder
    }
}
