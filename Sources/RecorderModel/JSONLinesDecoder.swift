import FoundationEssentials
import Glibc
import RecorderJSON

/// Decodes one line of a recorderd JSON-lines file into a `Record`, by the fields of a
/// `RecordSchema` (recorderd's own by default): the counterpart of `JSONLinesEncoder`, for
/// exports that read millions of lines.
///
/// The lines recorderd writes are flat objects of numbers, plain strings and nulls; those are
/// read directly (numbers exactly: in integer arithmetic, or by `strtod`). Anything else — an escaped string, a nested
/// value, a key out of the usual form — goes through the strict `JSONParser` and
/// `Record.init(_:schema:)`, so every valid line decodes the same either way and an invalid one is
/// an error, never a guess. Unknown keys (a newer recorderd's fields) are ignored, as
/// `Record.init(_:schema:)` ignores them.
public enum JSONLinesDecoder {
    /// Why a line is not a record.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The strings of the last line decoded, reused when the next line repeats them (a file's
    /// step path and sensor types repeat on every line: no new String for each).
    public struct Cache: Sendable {
        var strings: [(bytes: [UInt8], string: String)] = []

        public init() {}

        mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return "" }
            for entry in strings where entry.bytes.count == bytes.count {
                if entry.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, bytes.count) == 0 }) { return entry.string }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            if strings.count >= 8 { strings.removeFirst() }
            strings.append((Array(bytes), text))
            return text
        }
    }

    /// The record on `line` (without its newline), as `schema` has records.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, schema: RecordSchema = .standard) throws(Failure) -> Record {
        var cache = Cache()
        return try decode(line, cache: &cache, schema: schema)
    }

    /// The record on `line` (without its newline), reusing the strings of earlier lines.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, cache: inout Cache, schema: RecordSchema = .standard) throws(Failure) -> Record {
        var record = Record()
        try decode(line, cache: &cache, into: &record, schema: schema)
        return record
    }

    /// Decodes `line` into `record` (which is reset first): no copy of the record, for readers of
    /// millions of lines that keep their records in place.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, cache: inout Cache, into record: inout Record,
                              schema: RecordSchema = .standard) throws(Failure) {
        record = Record()
        if fast(line, cache: &cache, into: &record, keys: schema.keys) { return }
        do {
            let value = try JSONParser.parse(line)
            guard case .object = value else { throw Failure(message: "not a JSON object") }
            record = try Record(value, schema: schema)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: DecodingErrorDescription.describe(error))
        }
    }

    /// The record on `line`, from a byte array.
    public static func decode(_ line: [UInt8], schema: RecordSchema = .standard) throws(Failure) -> Record {
        do {
            return try line.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws -> Record in try decode(p, schema: schema) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "\(error)")
        }
    }

    // MARK: The direct path

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")

    /// Fills `record` (fresh) from the line, by the schema's `keys`; false when the line needs the
    /// strict parser (an escaped string, a nested value, a key no field has or one seen twice, a
    /// value of another type than its field's: the parser's path decides).
    static func fast(_ b: UnsafeBufferPointer<UInt8>, cache: inout Cache, into record: inout Record, keys: RecordKeyTable) -> Bool {
        var i = 0
        let n = b.count
        guard n >= 2, b[0] == UInt8(ascii: "{"), b[n - 1] == UInt8(ascii: "}") else { return false }
        i = 1
        var seen: UInt64 = 0
        if b[i] == UInt8(ascii: "}") { return i == n - 1 }
        while i < n - 1 {
            // "key":
            guard b[i] == quote else { return false }
            let keyStart = i + 1
            var j = keyStart
            while j < n, b[j] != quote {
                if b[j] == backslash || b[j] < 0x20 { return false }
                j += 1
            }
            guard j + 1 < n, b[j + 1] == colon else { return false }
            guard let field = keys.entry(UnsafeBufferPointer(rebasing: b[keyStart..<j])), seen & (1 << UInt64(field.index)) == 0 else { return false }
            seen |= 1 << UInt64(field.index)
            i = j + 2
            guard i < n - 1 else { return false }
            // value
            let c = b[i]
            if c == quote {
                var k = i + 1
                while k < n, b[k] != quote {
                    if b[k] == backslash || b[k] < 0x20 { return false }
                    k += 1
                }
                guard k < n - 1, field.type == .string else { return false }
                guard let text = cache.string(UnsafeBufferPointer(rebasing: b[(i + 1)..<k])) else { return false }
                record.texts[field.slot] = text
                i = k + 1
            } else if c == UInt8(ascii: "n") {
                guard i + 4 <= n - 1, b[i + 1] == UInt8(ascii: "u"), b[i + 2] == UInt8(ascii: "l"), b[i + 3] == UInt8(ascii: "l") else { return false }
                // null: the field stays absent (what the encoder writes for a non-finite number).
                guard b[i + 4] == comma || i + 4 == n - 1 else { return false }
                i += 4
            } else if c == UInt8(ascii: "-") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
                var k = i
                while k < n - 1, b[k] != comma { k += 1 }
                guard let number = JSONNumber.parse(UnsafeBufferPointer(rebasing: b[i..<k])) else { return false }
                switch field.type {
                case .number, .time: break
                case .integer: guard Record.exactInteger(number) != nil else { return false }
                case .boolean, .string, .numbers: return false
                }
                record.scalars[field.slot] = number
                record.present |= 1 &<< UInt64(field.slot)
                i = k
            } else if c == UInt8(ascii: "t") || c == UInt8(ascii: "f") {
                let word = c == UInt8(ascii: "t") ? 4 : 5
                guard field.type == .boolean, i + word <= n - 1, b[i + word] == comma || i + word == n - 1,
                      c == UInt8(ascii: "t") ? (b[i + 1] == UInt8(ascii: "r") && b[i + 2] == UInt8(ascii: "u") && b[i + 3] == UInt8(ascii: "e"))
                          : (b[i + 1] == UInt8(ascii: "a") && b[i + 2] == UInt8(ascii: "l") && b[i + 3] == UInt8(ascii: "s") && b[i + 4] == UInt8(ascii: "e"))
                else { return false }
                record.scalars[field.slot] = c == UInt8(ascii: "t") ? 1 : 0
                record.present |= 1 &<< UInt64(field.slot)
                i += word
            } else {
                return false
            }
            if i == n - 1 { return true }
            guard b[i] == comma else { return false }
            i += 1
        }
        return false
    }
}
