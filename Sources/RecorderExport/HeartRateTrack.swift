/// A heart-rate recording's notifications as SampledData series: seconds from the first, and
/// the rate (`E` for a reading without skin contact: not a heart rate).
struct HeartRateTrack {
    var offsets = SampledDataSeries()
    var rates = SampledDataSeries()
    private var first: Double?
    private var intervals: [Double] = []
    private var last: Double?

    var count: Int { offsets.count }

    mutating func append(uptime: Double, rate: Int, contact: Bool?) throws(ExportError) {
        let start = first ?? uptime
        first = start
        if let last { intervals.append(uptime - last) }
        last = uptime
        try offsets.append(uptime - start)
        if contact == false || rate <= 0 { try rates.appendGap(1) } else { try rates.append(Double(rate)) }
    }

    /// The typical time between notifications in milliseconds (1000 for one): SampledData needs a
    /// period; the time-offset component gives each its own time.
    var medianIntervalMilliseconds: Double {
        guard !intervals.isEmpty else { return 1000 }
        let sorted = intervals.sorted()
        let median = sorted[sorted.count / 2] * 1000
        return median > 0 ? median : 1000
    }
}
