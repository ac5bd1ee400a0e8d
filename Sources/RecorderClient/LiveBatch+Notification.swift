import RecorderJSON
import RecorderModel
import RecorderProtocol

extension LiveBatch {
    /// The batch of a `stream.records` notification as the wire's reader read it
    /// (`StreamRecordsNotification.parse`).
    init(_ batch: StreamRecordsNotification.Batch) {
        self.init(subscription: batch.subscription, records: batch.records, bytes: batch.bytes, textRanges: batch.textRanges)
    }

    /// A `stream.records` notification read as any message (a JSON tree), in a form the daemon
    /// does not write: each record's text is written again from the tree.
    package init?(params: JSONValue) {
        guard let batch = StreamRecordsNotification.batch(params: params) else { return nil }
        self.init(batch)
    }
}
