/// The times of irregular measurements (GPS fixes, heart-rate notifications) as a SampledData
/// series: seconds from the first, and the typical interval SampledData needs as its period.
struct TimeOffsetSeries {
    private(set) var offsets = SampledDataSeries()
    private var first: Double?
    private var last: Double?
    private var intervals: [Double] = []

    var count: Int { offsets.count }

    mutating func append(_ uptime: Double) throws(ExportError) {
        let start = first ?? uptime
        first = start
        if let last { intervals.append(uptime - last) }
        last = uptime
        try offsets.append(uptime - start)
    }

    /// The median time between measurements in milliseconds (1000 for a single one): the
    /// period; the time-offset component gives each measurement its own time.
    var medianIntervalMilliseconds: Double {
        guard !intervals.isEmpty else { return 1000 }
        let sorted = intervals.sorted()
        let median = sorted[sorted.count / 2] * 1000
        return median > 0 ? median : 1000
    }
}
