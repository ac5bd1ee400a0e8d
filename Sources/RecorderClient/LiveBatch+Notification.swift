import RecorderJSON
import RecorderModel
import RecorderProtocol

extension LiveBatch {
    /// The prefix of every `stream.records` notification the daemon writes, up to the
    /// subscription's number (public for the fuzzers, which build notifications around a line).
    public static let notificationPrefix = Array(#"{"jsonrpc":"2.0","method":"stream.records","params":{"subscription":"#.utf8)
    /// What follows the subscription's number, up to the first record.
    public static let recordsKey = Array(#","records":["#.utf8)
    /// What follows the last record.
    public static let notificationSuffix = Array("]}}".utf8)

    /// Reads a `stream.records` notification as the daemon writes it, record by record with
    /// `JSONLinesDecoder`, without a JSON tree; nil when `line` is not one in that form (the
    /// caller then reads it as any message: `init(params:)`), or a record does not read.
    public static func parse(notification line: ArraySlice<UInt8>, cache: inout JSONLinesDecoder.Cache) -> LiveBatch? {
        let bytes = Array(line)
        guard bytes.count > notificationPrefix.count + recordsKey.count + notificationSuffix.count,
              bytes.starts(with: notificationPrefix), bytes.suffix(notificationSuffix.count).elementsEqual(notificationSuffix) else { return nil }
        return bytes.withUnsafeBufferPointer { b -> LiveBatch? in
            var i = notificationPrefix.count
            var subscription = 0
            let digitsStart = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9"), i - digitsStart < 18 {
                subscription = subscription * 10 + Int(b[i] - UInt8(ascii: "0"))
                i += 1
            }
            guard i > digitsStart, !(b[digitsStart] == UInt8(ascii: "0") && i - digitsStart > 1),
                  b.count - i >= recordsKey.count, UnsafeBufferPointer(rebasing: b[i..<(i + recordsKey.count)]).elementsEqual(recordsKey) else { return nil }
            i += recordsKey.count
            let end = b.count - notificationSuffix.count
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
            return LiveBatch(subscription: subscription, records: records, bytes: bytes, textRanges: ranges)
        }
    }

    /// A `stream.records` notification read as any message (a JSON tree), in a form the daemon
    /// does not write: each record's text is written again from the tree.
    package init?(params: JSONValue) {
        guard case .object(let members) = params, case .array(let elements)? = members["records"],
              let batch = try? params.decode(StreamRecordsParams.self) else { return nil }
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for element in elements {
            let start = bytes.count
            guard (try? JSONTextEncoder().encode(element, into: &bytes)) != nil else { return nil }
            ranges.append(start..<bytes.count)
        }
        self.init(subscription: batch.subscription, records: batch.records, bytes: bytes, textRanges: ranges)
    }
}
