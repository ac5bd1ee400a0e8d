import RecorderModel

/// A heart-rate recording's notifications as SampledData series: seconds from the first, and
/// the rate (`E` for a reading without skin contact: not a heart rate).
struct HeartRateTrack {
    private(set) var times = TimeOffsetSeries()
    var rates = SampledDataSeries()

    var count: Int { times.count }
    var offsets: SampledDataSeries { times.offsets }
    var medianIntervalMilliseconds: Double { times.medianIntervalMilliseconds }

    mutating func append(uptime: Double, rate: Int, contact: Bool?) throws(ExportError) {
        try times.append(uptime)
        if let reading = HeartRateMeasurement.reading(rate: rate, contact: contact) { try rates.append(Double(reading)) } else { try rates.appendGap(1) }
    }
}
