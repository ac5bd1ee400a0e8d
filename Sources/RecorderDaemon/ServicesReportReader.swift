import RecorderJSON
import RecorderProtocol

/// Lines the services process reports on its descriptor 3, cut from the bytes as they come:
/// each complete line a `ServicesReport` (JSON). A line longer than `ServicesReport.maximumBytes`,
/// or one that does not decode, is counted and skipped.
struct ServicesReportReader {
    private var partial: [UInt8] = []
    /// Whether the bytes since the last newline are being skipped (the line grew too long).
    private var skipping = false
    /// Lines skipped so far.
    private(set) var discarded = 0
    /// Set by the reader's owner once it has said so.
    var discardLogged = false

    /// The reports in the complete lines of `bytes` (with what came before), in order.
    mutating func take(_ bytes: some Collection<UInt8>) -> [ServicesReport] {
        var states: [ServicesReport] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if skipping {
                    skipping = false
                } else if !partial.isEmpty {
                    if let info = try? JSONValueDecoder().decode(ServicesReport.self, from: partial) {
                        states.append(info)
                    } else {
                        discarded += 1
                    }
                }
                partial.removeAll(keepingCapacity: true)
            } else if !skipping {
                if partial.count >= ServicesReport.maximumBytes {
                    skipping = true
                    discarded += 1
                    partial.removeAll(keepingCapacity: true)
                } else {
                    partial.append(byte)
                }
            }
        }
        return states
    }
}
