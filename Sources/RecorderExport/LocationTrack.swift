/// A location recording's saved fixes, as SampledData series: seconds from the first fix,
/// latitude, longitude, horizontal accuracy (`E` when the fix had none).
struct LocationTrack {
    var offsets = SampledDataSeries()
    var latitudes = SampledDataSeries()
    var longitudes = SampledDataSeries()
    var accuracies = SampledDataSeries()
    private var first: Double?
    private var intervals: [Double] = []
    private var last: Double?

    var count: Int { offsets.count }

    mutating func append(uptime: Double, latitude: Double, longitude: Double, accuracy: Double?) throws(ExportError) {
        let start = first ?? uptime
        first = start
        if let last { intervals.append(uptime - last) }
        last = uptime
        try offsets.append(uptime - start)
        try latitudes.append(latitude)
        try longitudes.append(longitude)
        if let accuracy { try accuracies.append(accuracy) } else { try accuracies.appendGap(1) }
    }

    /// The typical time between fixes in milliseconds (1000 for a single fix): SampledData needs
    /// a period; the time-offset component gives each fix's own time.
    var medianIntervalMilliseconds: Double {
        guard !intervals.isEmpty else { return 1000 }
        let sorted = intervals.sorted()
        let median = sorted[sorted.count / 2] * 1000
        return median > 0 ? median : 1000
    }
}
