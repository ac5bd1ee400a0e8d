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
public struct GaitOptions: Sendable, Equatable {
    /// Where the sensor is worn (default `lowerBack`).
    public var sensorLocation: SensorLocation = .lowerBack

    public init(sensorLocation: SensorLocation = .lowerBack) {
        self.sensorLocation = sensorLocation
    }
}
