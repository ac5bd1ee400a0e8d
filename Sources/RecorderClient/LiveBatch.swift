import RecorderJSON
import RecorderModel

/// One `stream.records` notification: its records, read by the records' one reader
/// (`JSONLinesDecoder`, the reader of exports and recovery), and each record's JSON text as the
/// daemon wrote it (a recording's line without its step path), to pass on without writing it
/// again.
public struct LiveBatch: Sendable {
    /// The subscription the records belong to.
    public var subscription: Int
    /// The records, in the daemon's order.
    public var records: [Record]
    /// The notification's bytes, which `textRanges` index.
    let bytes: [UInt8]
    let textRanges: [Range<Int>]

    init(subscription: Int, records: [Record], bytes: [UInt8], textRanges: [Range<Int>]) {
        self.subscription = subscription
        self.records = records
        self.bytes = bytes
        self.textRanges = textRanges
    }

    /// The JSON text of `records[index]`, as the daemon wrote it.
    public func text(at index: Int) -> ArraySlice<UInt8> {
        bytes[textRanges[index]]
    }

    /// The records' texts as one JSON array (`[{…},{…}]`), for the indices in `indices`.
    public func jsonArray(_ indices: some Sequence<Int>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for index in indices {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: text(at: index))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
