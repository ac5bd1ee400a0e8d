import RecorderJSON
import RecorderConfiguration
import RecorderModel

/// A `replay` device: real recordings played back as an honest sensor source.
///
/// ```json
/// {"name": "imu0", "kind": "replay", "file": "walk.csv", "frequency": 100,
///  "columns": {"accelerometer": ["acc_x","acc_y","acc_z"], "gyro": ["gyr_x","gyr_y","gyr_z"]},
///  "units": {"accelerometer": "g", "gyro": "deg/s"}, "speed": 1.0, "loop": true,
///  "mountMatrix": [[1,0,0],[0,1,0],[0,0,1]]}
/// ```
public struct ReplayConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    /// A CSV file with a header line, or a recorderd `.jsonl` file.
    public var file: String
    /// Rows per second of the file (CSV default 100; JSONL default: from its uptimes).
    public var frequency: Double?
    /// CSV columns of each sensor type (x, y, z).
    public var columns: [SensorType: [String]]
    /// Unit of each sensor type in the file: accelerometer `g` or `m/s^2`, gyro `deg/s` or `rad/s`,
    /// magnetometer `uT` or `gauss`.
    public var units: [SensorType: String]
    /// Playback speed; > 1 plays faster (the device's rate is `frequency × speed`).
    public var speed: Double
    /// Start again at the end of the file (default true).
    public var loop: Bool
    /// How the file's sensor sat in the device: every motion vector is played as `M · v` (a
    /// rotation, as the IIO `mount_matrix`; absent: as recorded).
    public var mountMatrix: MountMatrix?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, file, frequency, columns, units, speed, loop, mountMatrix }

    /// Allowed file rates and playback speeds; the played rate (`frequency × speed`, also when the
    /// rate comes from a JSON-lines file) is at most `maximumRate`.
    public static let frequencyRange = NumberRange(greaterThan: 0, atMost: 100_000, "a frequency in Hz")
    public static let speedRange = NumberRange(greaterThan: 0, atMost: 100_000, "a speed")
    public static let maximumRate = 1_000_000.0

    /// Accepted units and their factor to the file unit.
    static let unitFactors: [SensorType: [String: Double]] = [
        .accelerometer: ["g": 1, "m/s^2": 1 / 9.80665, "m/s2": 1 / 9.80665],
        .gyro: ["rad/s": 1, "deg/s": Double.pi / 180],
        .magnetometer: ["uT": 1, "µT": 1, "gauss": 100],
    ]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        file = try c.decode(String.self, forKey: .file)
        frequency = try c.decodeIfPresent(Double.self, forKey: .frequency, in: Self.frequencyRange)
        let rawColumns = try c.decodeIfPresent([String: [String]].self, forKey: .columns)
            ?? ["accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]]
        var columns: [SensorType: [String]] = [:]
        for (key, names) in rawColumns {
            guard let type = SensorType(rawValue: key), SensorType.motionTypes.contains(type) else {
                throw DecodingError.dataCorruptedError(forKey: .columns, in: c, debugDescription: "unknown sensor type \(key.debugDescription): expected accelerometer, gyro or magnetometer")
            }
            guard names.count == 3 else {
                throw DecodingError.dataCorruptedError(forKey: .columns, in: c, debugDescription: "\(key): expected three column names (x, y, z)")
            }
            columns[type] = names
        }
        self.columns = columns
        let rawUnits = try c.decodeIfPresent([String: String].self, forKey: .units) ?? [:]
        var units: [SensorType: String] = [:]
        for (key, unit) in rawUnits {
            guard let type = SensorType(rawValue: key), let accepted = Self.unitFactors[type] else {
                throw DecodingError.dataCorruptedError(forKey: .units, in: c, debugDescription: "unknown sensor type \(key.debugDescription)")
            }
            guard accepted[unit] != nil else {
                throw DecodingError.dataCorruptedError(forKey: .units, in: c, debugDescription: "\(key): unknown unit \(unit.debugDescription): expected one of \(accepted.keys.sorted().joined(separator: ", "))")
            }
            units[type] = unit
        }
        self.units = units
        speed = try c.decodeIfPresent(Double.self, forKey: .speed, in: Self.speedRange) ?? 1
        if let frequency, frequency * speed > Self.maximumRate {
            throw DecodingError.dataCorruptedError(
                forKey: .speed, in: c,
                debugDescription: "frequency × speed is \(NumberRange.format(frequency * speed)) Hz: expected at most \(NumberRange.format(Self.maximumRate)) Hz")
        }
        loop = try c.decodeIfPresent(Bool.self, forKey: .loop) ?? true
        mountMatrix = try c.decodeIfPresent(MountMatrix.self, forKey: .mountMatrix)
    }

    /// The factor from the file's unit to the record unit for `type`.
    public func factor(for type: SensorType) -> Double {
        let unit = units[type] ?? type.unit
        return Self.unitFactors[type]?[unit] ?? 1
    }
}
