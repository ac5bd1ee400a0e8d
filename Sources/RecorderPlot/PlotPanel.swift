/// One panel: a sensor type of one recorder against time, with its gaps and errors.
struct PlotPanel {
    /// "motion · accelerometer (g)".
    var title: String
    var sensorType: String
    /// The device whose gait steps are marked on it.
    var device: String
    var series: [PlotSeries]
    /// Gaps: uptime, samples lost, seconds lost (audio) when known.
    var gaps: [(uptime: Double, dropped: Int, duration: Double?)] = []
    /// Errors: uptime and description.
    var errors: [(uptime: Double, description: String)] = []

    /// The series' names by sensor type: x, y, z (and w), or the fields a type plots.
    static func seriesNames(_ sensorType: String) -> [(String, PlotColor)] {
        switch sensorType {
        case "attitude": return [("w", .w), ("x", .x), ("y", .y), ("z", .z)]
        case "location": return [("speed (m/s)", PlotColor.other[0]), ("horizontal accuracy (m)", PlotColor.other[1])]
        case "soundLevel": return [("average", PlotColor.other[0]), ("peak", PlotColor.other[1])]
        case "heartRate": return [("heart rate (count/min)", PlotColor.other[0])]
        default: return [("x", .x), ("y", .y), ("z", .z)]
        }
    }

    /// The values of a record for each series, in order.
    static func values(_ r: RecordValues, sensorType: String) -> [Double?] {
        switch sensorType {
        case "attitude": return [r.w, r.x, r.y, r.z]
        case "location": return [r.speed, r.horizontalAccuracy]
        case "soundLevel": return [r.average, r.peak]
        // A reading without skin contact is no heart rate: not drawn.
        case "heartRate": return [r.heartRate.map(Double.init)]
        default: return [r.x, r.y, r.z]
        }
    }
}

/// The fields a panel reads from a record.
struct RecordValues {
    var x, y, z, w, speed, horizontalAccuracy, average, peak: Double?
    /// A heart rate with skin contact (`Record.heartRateReading`).
    var heartRate: Int?
}
