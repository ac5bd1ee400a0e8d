/// Turns one IIO device's sample times into record uptimes and detects kernel-side loss.
///
/// With a timestamp channel, `uptime = timestamp × 1e-9 + offset`, where `offset` maps the device
/// clock to CLOCK_MONOTONIC (0 when `current_timestamp_clock` is `monotonic`); a step of more than
/// 1.5 sample periods between consecutive timestamps is loss, counted as `round(step / period) - 1`
/// samples. Without one, the samples of a refill end at its completion time, `period` apart.
public struct IIOTimeline: Sendable {
    /// Seconds between samples at the device's actual rate.
    public let period: Double
    /// The last sample's device timestamp (ns), for loss detection.
    public private(set) var lastTimestamp: Int64?
    /// The last uptime handed out.
    public private(set) var lastUptime: Double?

    public init(rate: Double) {
        period = 1 / rate
    }

    /// The samples lost before the sample stamped `timestamp` (ns); updates the last timestamp.
    public mutating func lost(before timestamp: Int64) -> Int {
        defer { lastTimestamp = timestamp }
        guard let last = lastTimestamp else { return 0 }
        let step = Double(timestamp &- last) * 1e-9
        guard step > 1.5 * period else { return 0 }
        return max(0, Int(saturating: (step / period).rounded()) &- 1)
    }

    /// The uptime of a timestamped sample.
    public mutating func uptime(timestamp: Int64, offset: Double) -> Double {
        let u = Double(timestamp) * 1e-9 + offset
        lastUptime = u
        return u
    }

    /// The uptime of sample `index` of `count` in a refill completed at `completion` (no timestamp
    /// channel); never earlier than half a period after the previous sample.
    public mutating func uptime(index: Int, of count: Int, completion: Double) -> Double {
        var u = completion - Double(count - 1 - index) * period
        if let last = lastUptime, u < last + period / 2 { u = last + period / 2 }
        lastUptime = u
        return u
    }

    /// Forgets the last sample (after the device was lost: loss is then estimated by the caller).
    public mutating func reset() {
        lastTimestamp = nil
        lastUptime = nil
    }
}
