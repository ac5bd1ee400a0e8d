import RecorderModel

/// What an IIO channel measures, from its id (`accel_x`, `anglvel_z`, `magn_y`, `timestamp`), and
/// the factor from its scaled IIO unit to the file unit.
public enum IIOChannelRole: Sendable, Equatable {
    /// One axis (0 = x, 1 = y, 2 = z) of a motion sensor.
    case axis(SensorType, Int)
    case timestamp

    /// Standard gravity: IIO accelerations are in m/s², the files in g.
    public static let standardGravity = 9.80665

    /// The role of channel `id`, or nil for channels recorderd does not record.
    public init?(channelID id: String) {
        if id == "timestamp" { self = .timestamp; return }
        let parts = id.split(separator: "_")
        guard parts.count == 2, let axis = ["x": 0, "y": 1, "z": 2][String(parts[1])] else { return nil }
        switch parts[0] {
        case "accel": self = .axis(.accelerometer, axis)
        case "anglvel": self = .axis(.gyro, axis)
        case "magn": self = .axis(.magnetometer, axis)
        default: return nil
        }
    }

    /// From the IIO unit (after offset and scale) to the file unit: m/s² → g, rad/s stays,
    /// gauss → µT.
    public static func unitFactor(_ type: SensorType) -> Double {
        switch type {
        case .accelerometer: return 1 / standardGravity
        case .magnetometer: return 100
        default: return 1
        }
    }
}
