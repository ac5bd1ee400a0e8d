import FoundationEssentials
import Glibc
import RecorderJSON

/// Decodes one line of a recorderd JSON-lines file into a `Record`: the counterpart of
/// `JSONLinesEncoder`, for exports that read millions of lines.
///
/// The lines recorderd writes are flat objects of numbers, plain strings and nulls; those are
/// read directly (numbers exactly: in integer arithmetic, or by `strtod`). Anything else — an escaped string, a nested
/// value, a key out of the usual form — goes through the strict `JSONParser` and the record's
/// `Decodable` conformance, so every valid line decodes the same either way and an invalid one is
/// an error, never a guess. Unknown keys (a newer recorderd's fields) are ignored, as
/// `Record`'s `Decodable` conformance ignores them.
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

    /// The record on `line` (without its newline).
    public static func decode(_ line: UnsafeBufferPointer<UInt8>) throws(Failure) -> Record {
        var cache = Cache()
        return try decode(line, cache: &cache)
    }

    /// The record on `line` (without its newline), reusing the strings of earlier lines.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, cache: inout Cache) throws(Failure) -> Record {
        var record = Record()
        try decode(line, cache: &cache, into: &record)
        return record
    }

    /// Decodes `line` into `record` (which is reset first): no copy of the record, for readers of
    /// millions of lines that keep their records in place.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, cache: inout Cache, into record: inout Record) throws(Failure) {
        record = Record()
        if fast(line, cache: &cache, into: &record) { return }
        do {
            let value = try JSONParser.parse(line)
            guard case .object = value else { throw Failure(message: "not a JSON object") }
            record = try value.decode(Record.self)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: DecodingErrorDescription.describe(error))
        }
    }

    /// The record on `line`, from a byte array.
    public static func decode(_ line: [UInt8]) throws(Failure) -> Record {
        do {
            return try line.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws -> Record in try decode(p) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "\(error)")
        }
    }

    // MARK: The direct path

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")

    /// Fills `record` (fresh) from the line; false when the line needs the strict parser.
    static func fast(_ b: UnsafeBufferPointer<UInt8>, cache: inout Cache, into record: inout Record) -> Bool {
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
            // A key that is no field, or one seen before: the strict parser decides.
            guard let field = field(UnsafeBufferPointer(rebasing: b[keyStart..<j])), seen & (1 << field) == 0 else { return false }
            seen |= 1 << field
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
                guard k < n - 1 else { return false }
                guard let text = cache.string(UnsafeBufferPointer(rebasing: b[(i + 1)..<k])) else { return false }
                guard assign(string: text, field: field, in: &record) else { return false }
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
                guard assign(number: number, field: field, in: &record) else { return false }
                i = k
            } else {
                return false
            }
            if i == n - 1 { return true }
            guard b[i] == comma else { return false }
            i += 1
        }
        return false
    }

    private static func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let p = name.utf8Start
        for k in 0..<key.count where key[k] != p[k] { return false }
        return true
    }

    /// An integer field's value: whole and within Int's range.
    private static func integer(_ number: Double) -> Int? {
        guard number == number.rounded(), abs(number) < 9.0e18 else { return nil }
        return Int(number)
    }

    /// The bits of the decoder's seen-mask: the 29 numeric fields take 0…28 (uptime 0, timestamp
    /// 1, x…w 2…5, heading 6, duration 7, latitude 8, longitude 9, horizontalAccuracy 10,
    /// verticalAccuracy 11, altitude 12, course 13, speed 14, relativeDistance 15, totalDistance
    /// 16, startUptime 17, cadence 18, timeInterval 19, average 20, peak 21, droppedSamples 22,
    /// eventAccuracy 23, satellitesUsed 24, steps 25, distance 26, walkingSpeed 27, strideLength
    /// 28), the 9 string fields follow from here.
    private static let stringFields = 29

    /// The bit of `key` in the seen-mask, or nil for a key that is no field of `Record`: by the
    /// key's length first (one or two comparisons instead of thirty-five).
    private static func field(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = stringFields
        func pick(_ candidates: (StaticString, Int)...) -> Int? {
            for (name, bit) in candidates where matches(key, name) { return bit }
            return nil
        }
        switch key.count {
        case 1:
            switch key[0] {
            case UInt8(ascii: "x"): return 2
            case UInt8(ascii: "y"): return 3
            case UInt8(ascii: "z"): return 4
            case UInt8(ascii: "w"): return 5
            default: return nil
            }
        case 4: return pick(("mode", n + 6), ("peak", 21), ("unit", n + 7), ("side", n + 8))
        case 5: return pick(("event", n + 3), ("speed", 14), ("steps", 25))
        case 6: return pick(("uptime", 0), ("course", 13))
        case 7: return pick(("heading", 6), ("average", 20), ("cadence", 18))
        case 8: return pick(("stepPath", n + 1), ("duration", 7), ("latitude", 8), ("altitude", 12), ("distance", 26))
        case 9: return pick(("timestamp", 1), ("longitude", 9))
        case 10: return pick(("sensorType", n))
        case 11: return pick(("startUptime", 17))
        case 12: return pick(("timeInterval", 19), ("walkingSpeed", 27), ("strideLength", 28))
        case 13: return pick(("timestampDate", n + 2), ("totalDistance", 16), ("eventAccuracy", 23))
        case 14: return pick(("droppedSamples", 22), ("satellitesUsed", 24))
        case 16: return pick(("verticalAccuracy", 11), ("relativeDistance", 15), ("errorDescription", n + 5))
        case 18: return pick(("horizontalAccuracy", 10))
        case 19: return pick(("referenceCoordinate", n + 4))
        default: return nil
        }
    }

    /// Sets a field from a number; false when the key is not numeric or the value does not fit.
    private static func assign(number: Double, field: Int, in r: inout Record) -> Bool {
        switch field {
        case 0: r.uptime = number
        case 1: r.timestamp = number
        case 2: r.x = number
        case 3: r.y = number
        case 4: r.z = number
        case 5: r.w = number
        case 6: r.heading = number
        case 7: r.duration = number
        case 8: r.latitude = number
        case 9: r.longitude = number
        case 10: r.horizontalAccuracy = number
        case 11: r.verticalAccuracy = number
        case 12: r.altitude = number
        case 13: r.course = number
        case 14: r.speed = number
        case 15: r.relativeDistance = number
        case 16: r.totalDistance = number
        case 17: r.startUptime = number
        case 18: r.cadence = number
        case 19: r.timeInterval = number
        case 20: r.average = number
        case 21: r.peak = number
        case 22: guard let v = integer(number) else { return false }; r.droppedSamples = v
        case 23: guard let v = integer(number) else { return false }; r.eventAccuracy = v
        case 24: guard let v = integer(number) else { return false }; r.satellitesUsed = v
        case 25: guard let v = integer(number) else { return false }; r.steps = v
        case 26: r.distance = number
        case 27: r.walkingSpeed = number
        case 28: r.strideLength = number
        default: return false
        }
        return true
    }

    /// Sets a field from a string; false when the key is not a string field.
    private static func assign(string: String, field: Int, in r: inout Record) -> Bool {
        switch field - stringFields {
        case 0: r.sensorType = string
        case 1: r.stepPath = string
        case 2: r.timestampDate = string
        case 3: r.event = string
        case 4: r.referenceCoordinate = string
        case 5: r.errorDescription = string
        case 6: r.mode = string
        case 7: r.unit = string
        case 8: r.side = string
        default: return false
        }
        return true
    }
}
