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
    /// A clinical walking test scored over one of the task's steps.
    public var walkingTest: WalkingTest?

    /// The heights accepted, m: a small child to the tallest people measured.
    public static let bodyHeightRange = NumberRange(atLeast: 0.5, atMost: 2.75, "a height in metres")
    public static let sensorHeightRange = NumberRange(atLeast: 0.25, atMost: 1.75, "a height in metres")

    public init(sensorLocation: SensorLocation = .lowerBack, bodyHeight: Double? = nil, sensorHeight: Double? = nil,
                walkingTest: WalkingTest? = nil) {
        self.sensorLocation = sensorLocation
        self.bodyHeight = bodyHeight
        self.sensorHeight = sensorHeight
        self.walkingTest = walkingTest
    }

    /// The pendulum's length for step lengths (m): the sensor's height, else the fraction
    /// `sensorHeightPerBodyHeight` of the body's; nil when neither is known.
    public var pendulumLength: Double? {
        sensorHeight ?? bodyHeight.map { $0 * Self.sensorHeightPerBodyHeight }
    }

    /// The sensor's height above the ground per metre of body height, when only the body height
    /// is known: the mean of the three reference participants' (0.58, 0.58 and 0.62: a sensor over
    /// L4–L5 sits a little above the greater trochanter, which anthropometric tables put at
    /// 0.53 of the height).
    public static let sensorHeightPerBodyHeight = 0.6
}
