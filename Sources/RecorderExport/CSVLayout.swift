import RecorderModel

/// The columns of one recorder's CSV: which values of a record go where, in which unit.
struct CSVLayout {
    /// A motion sensor's columns: the record's x, y, z (and w) times `scale`.
    struct Vector {
        var sensorType: String
        var prefix: String
        var scale: Double
        var unit: String
        var hasW = false
    }

    enum Kind { case motion, location, soundLevel, gait, heartRate, other }

    static let gravity = 9.80665
    static let degreesPerRadian = 180 / Double.pi

    /// Motion sensor types in column order, with their SI units (mobgap's m/s² and deg/s).
    static let vectors: [Vector] = [
        Vector(sensorType: "accelerometer", prefix: "acc", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "gyro", prefix: "gyr", scale: degreesPerRadian, unit: "deg/s"),
        Vector(sensorType: "magnetometer", prefix: "mag", scale: 1, unit: "uT"),
        Vector(sensorType: "attitude", prefix: "att", scale: 1, unit: "unit quaternion", hasW: true),
        Vector(sensorType: "gravity", prefix: "grav", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "userAcceleration", prefix: "uacc", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "rotationRate", prefix: "rot", scale: degreesPerRadian, unit: "deg/s"),
        Vector(sensorType: "magneticField", prefix: "mfield", scale: 1, unit: "uT"),
    ]

    let kind: Kind
    /// For motion: the vectors present, in column order, and the first value column of each.
    let motion: [Vector]
    let motionColumns: [Int]

    init(units: [String: String]) {
        let types = Set(units.keys)
        motion = Self.vectors.filter { types.contains($0.sensorType) }
        var column = 0
        motionColumns = motion.map { v in
            defer { column += v.hasW ? 4 : 3 }
            return column
        }
        if !motion.isEmpty { kind = .motion }
        else if types.contains("location") { kind = .location }
        else if types.contains("soundLevel") { kind = .soundLevel }
        else if types.contains("step") { kind = .gait }
        else if types.contains("heartRate") { kind = .heartRate }
        else { kind = .other }
    }

    /// The header line's columns after `time,uptime,stepPath`, with units for the README.
    var columns: [(name: String, unit: String)] {
        switch kind {
        case .motion:
            return motion.flatMap { v in
                (v.hasW ? ["x", "y", "z", "w"] : ["x", "y", "z"]).map { ("\(v.prefix)_\($0)", v.unit) }
            }
        case .location:
            return [("latitude", "deg"), ("longitude", "deg"), ("altitude", "m"), ("horizontalAccuracy", "m"), ("verticalAccuracy", "m"),
                    ("course", "deg"), ("speed", "m/s"), ("relativeDistance", "m"), ("totalDistance", "m"), ("mode", ""),
                    ("satellitesUsed", "")]
        case .soundLevel:
            return [("timeInterval", "s"), ("average", "dBFS"), ("peak", "dBFS")]
        case .gait:
            return [("event", "step|bout"), ("side", "left|right"), ("startUptime", "s"), ("duration", "s"), ("steps", ""),
                    ("cadence", "steps/min"), ("distance", "m"), ("walkingSpeed", "m/s"), ("strideLength", "m")]
        case .heartRate:
            return [("heartRate", "count/min"), ("contact", "true|false"), ("energyExpended", "kJ"), ("rrIntervals", "s, space-separated")]
        case .other:
            return [("sensorType", ""), ("x", ""), ("y", ""), ("z", "")]
        }
    }

    /// True when `record` is a row of this layout's table (not an event: marker, gap, error).
    func isRow(_ r: Record) -> Bool {
        if kind == .gait { return r.event == "step" || r.event == "bout" }
        return r.isSample
    }
}
