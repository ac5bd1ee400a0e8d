import Glibc
import RecorderJSON
import RecorderModel

/// The `stream.records` notification: a live subscription's records, batch by batch. Written
/// and read here only, as `JSONRPCEncoder` writes every other envelope:
///
///     {"jsonrpc":"2.0","method":"stream.records","params":{"subscription":N,"records":[{…},{…}]}}
///
/// Its records are the JSON lines a recording writes (without the step path), copied in as they
/// are: no record is encoded twice. Read back record by record with `JSONLinesDecoder` (the
/// reader of exports and recovery), without a JSON tree; a notification in another form (members
/// reordered, spaces) reads through the generic path (`StreamRecordsParams`).
public enum StreamRecordsNotification {
    /// The notification's bytes up to the subscription's number.
    public static let prefix = Array(#"{"jsonrpc":"2.0","method":"stream.records","params":{"subscription":"#.utf8)
    /// What follows the subscription's number, up to the first record.
    public static let recordsKey = Array(#","records":["#.utf8)
    /// What follows the last record.
    public static let suffix = Array("]}}".utf8)

    /// Appends the notification of `subscription` carrying `lines` — JSON lines, each ending in
    /// `\n` (an encoded record holds no raw newline) — and a newline.
    public static func append(subscription: Int, lines: [UInt8], to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + prefix.count + recordsKey.count + suffix.count + 21 + lines.count)
        bytes += prefix
        appendDecimal(subscription, to: &bytes)
        bytes += recordsKey
        lines.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            // Line by line (memchr finds each end): the lines become the array's elements.
            var start = 0
            while start < b.count, let found = memchr(base + start, 0x0A, b.count - start) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if start > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
                start = end + 1
            }
        }
        bytes += suffix
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A non-negative integer's decimal digits (a subscription's number), without a String.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { d in
            var v = value.magnitude
            var n = 0
            repeat {
                d[19 - n] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
                n += 1
            } while v > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: d[(20 - n)...]))
        }
    }

    /// A notification read: its subscription, its records, and where each record's JSON text lies
    /// in the line it was read from.
    public struct Batch: Sendable {
        public var subscription: Int
        public var records: [Record]
        /// The notification's bytes (without its newline), which `textRanges` index.
        public var bytes: [UInt8]
        public var textRanges: [Range<Int>]

        public init(subscription: Int, records: [Record], bytes: [UInt8], textRanges: [Range<Int>]) {
            self.subscription = subscription
            self.records = records
            self.bytes = bytes
            self.textRanges = textRanges
        }
    }

    /// Reads `line` (without its newline) when it is a notification in the form `append`
    /// writes; nil otherwise (the caller then reads it as any message: `JSONRPCMessage.parse`,
    /// then `batch(params:)`), or when a record does not read.
    public static func parse(_ line: ArraySlice<UInt8>, cache: inout JSONLinesDecoder.Cache) -> Batch? {
        guard line.starts(with: prefix) else { return nil }
        let bytes = Array(line)
        guard bytes.count > prefix.count + recordsKey.count + suffix.count,
              bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        return bytes.withUnsafeBufferPointer { b -> Batch? in
            var i = prefix.count
            var subscription = 0
            let digitsStart = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9"), i - digitsStart < 18 {
                subscription = subscription * 10 + Int(b[i] - UInt8(ascii: "0"))
                i += 1
            }
            guard i > digitsStart, !(b[digitsStart] == UInt8(ascii: "0") && i - digitsStart > 1),
                  b.count - i >= recordsKey.count, UnsafeBufferPointer(rebasing: b[i..<(i + recordsKey.count)]).elementsEqual(recordsKey) else { return nil }
            i += recordsKey.count
            let end = b.count - suffix.count
            var records: [Record] = []
            var ranges: [Range<Int>] = []
            while i < end {
                if !records.isEmpty {
                    guard b[i] == UInt8(ascii: ",") else { return nil }
                    i += 1
                }
                guard i < end, b[i] == UInt8(ascii: "{"), let recordEnd = JSONParser.valueEnd(in: b, from: i), recordEnd <= end,
                      let record = try? JSONLinesDecoder.decode(UnsafeBufferPointer(rebasing: b[i..<recordEnd]), cache: &cache) else { return nil }
                records.append(record)
                ranges.append(i..<recordEnd)
                i = recordEnd
            }
            return Batch(subscription: subscription, records: records, bytes: bytes, textRanges: ranges)
        }
    }

    /// The records of a notification read as any message (a JSON tree: a form `append` does not
    /// write), each record's text written again from the tree.
    public static func batch(params: JSONValue) -> Batch? {
        guard case .object(let members) = params, case .array(let elements)? = members["records"],
              let decoded = try? params.decode(StreamRecordsParams.self) else { return nil }
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for element in elements {
            let start = bytes.count
            guard (try? JSONTextEncoder().encode(element, into: &bytes)) != nil else { return nil }
            ranges.append(start..<bytes.count)
        }
        return Batch(subscription: decoded.subscription, records: decoded.records, bytes: bytes, textRanges: ranges)
    }
}

/// The params of a `stream.records` notification, as any JSON reader reads them.
public struct StreamRecordsParams: Sendable, Codable {
    public var subscription: Int
    public var records: [Record]

    public init(subscription: Int, records: [Record]) {
        self.subscription = subscription
        self.records = records
    }
}
