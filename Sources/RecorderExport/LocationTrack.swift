/// A location recording's saved fixes, as SampledData series: seconds from the first fix,
/// latitude, longitude, horizontal accuracy (`E` when the fix had none).
struct LocationTrack {
    private(set) var times = TimeOffsetSeries()
    var latitudes = SampledDataSeries()
    var longitudes = SampledDataSeries()
    var accuracies = SampledDataSeries()

    var count: Int { times.count }
    var offsets: SampledDataSeries { times.offsets }
    var medianIntervalMilliseconds: Double { times.medianIntervalMilliseconds }

    mutating func append(uptime: Double, latitude: Double, longitude: Double, accuracy: Double?) throws(ExportError) {
        try times.append(uptime)
        try latitudes.append(latitude)
        try longitudes.append(longitude)
        if let accuracy { try accuracies.append(accuracy) } else { try accuracies.appendGap(1) }
    }
}
