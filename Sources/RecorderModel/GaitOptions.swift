import RecorderJSON

/// Where a gait analysis's motion sensor is worn.
public enum SensorLocation: String, Sendable, Codable, CaseIterable {
    /// On the lower back (L4–L5), the location the methods were validated at.
    case lowerBack
    /// In a trouser pocket.
    case pocket
    /// Held in the hand.
    case hand
}

/// Options of a `gait` analysis: steps, cadence, walking bouts and postural sway computed from a
/// motion device as its samples arrive.
///
/// Stride length, walking speed and distance need the participant's `bodyHeight` or, better, the
/// `sensorHeight`: the lower-back sensor's height above the ground, the length of the inverted
/// pendulum the trunk vaults on (`PendulumStepLength`). Without either, steps are still counted.
public struct GaitOptions: Sendable, Equatable {
    /// Where the sensor is worn (default `lowerBack`).
    public var sensorLocation: SensorLocation = .lowerBack
    /// The participant's height, m.
    public var bodyHeight: Double?
    /// The sensor's height above the ground, standing, m.
    public var sensorHeight: Double?

    /// The heights accepted, m: a small child to the tallest people measured.
    public static let bodyHeightRange = NumberRange(atLeast: 0.5, atMost: 2.75, "a height in metres")
    public static let sensorHeightRange = NumberRange(atLeast: 0.25, atMost: 1.75, "a height in metres")

    public init(sensorLocation: SensorLocation = .lowerBack, bodyHeight: Double? = nil, sensorHeight: Double? = nil) {
        self.sensorLocation = sensorLocation
        self.bodyHeight = bodyHeight
        self.sensorHeight = sensorHeight
    }
}
