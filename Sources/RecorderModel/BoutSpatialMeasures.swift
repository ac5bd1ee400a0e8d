/// How far and how fast a walk went: a walking bout's (on its `bout` record) or a step's walking
/// over all its bouts (in `WalkingMeasures`). From the step lengths of an inverted-pendulum
/// model, so only when the participant's height is known.
public struct BoutSpatialMeasures: Sendable, Equatable, Codable {
    /// Metres walked: the mean step length times the intervals stepped.
    public var distance: Double
    /// Metres per second: `distance` over the time from the first contact to the last.
    public var walkingSpeed: Double?
    /// Mean stride length (two steps), m.
    public var strideLength: Double

    public init(distance: Double, walkingSpeed: Double?, strideLength: Double) {
        self.distance = distance
        self.walkingSpeed = walkingSpeed
        self.strideLength = strideLength
    }
}
