import RecorderModel

/// One motion sensor type of a recording as FHIR SampledData: a series per axis (x, y, z; w for
/// attitude), `E` for each sample a gap lost, and the first and last sample times (for a
/// recording whose manifest has no rate).
struct MotionSeries {
    let type: SensorType
    private(set) var axes: [SampledDataSeries]
    private(set) var first: Double?
    private(set) var last: Double?

    init(type: SensorType) {
        self.type = type
        axes = Array(repeating: SampledDataSeries(), count: FHIRCodes.axes(type).count)
    }

    /// Points in each axis, gaps included.
    var count: Int { axes[0].count }

    /// A sample; throws when it lacks an axis.
    mutating func append(_ r: Record, file: String) throws(ExportError) {
        guard let x = r.x, let y = r.y, let z = r.z, type != .attitude || r.w != nil else {
            throw .badFile("\(file): a \(type.rawValue) record without all of its \(FHIRCodes.axes(type).joined(separator: ", ")) values")
        }
        if let uptime = r.uptime {
            if first == nil { first = uptime }
            last = uptime
        }
        try axes[0].append(x)
        try axes[1].append(y)
        try axes[2].append(z)
        if let w = r.w, type == .attitude { try axes[3].append(w) }
    }

    /// `n` samples lost.
    mutating func appendGap(_ n: Int) throws(ExportError) {
        for i in axes.indices { try axes[i].appendGap(n) }
    }

    /// The rate the samples show (gaps counted), or nil with fewer than two samples.
    var observedRate: Double? {
        guard let first, let last, last > first, count > 1 else { return nil }
        return Double(count - 1) / (last - first)
    }
}
