/// Walking measures of one step (see `GaitStepSummary`).
public struct WalkingMeasures: Sendable, Equatable, Codable {
    /// One walking bout: its first and last initial contact (uptimes) and its steps.
    public struct Bout: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var steps: Int
        /// Metres walked, metres per second and the mean stride length (m), when the
        /// participant's height is known.
        public var distance: Double?
        public var walkingSpeed: Double?
        public var strideLength: Double?

        public init(start: Double, end: Double, steps: Int) {
            self.start = start
            self.end = end
            self.steps = steps
        }
    }

    public var stepCount = 0
    /// Steps per minute over the bouts: 60 × (intervals stepped) / (time they took).
    public var cadence: Double?
    /// Seconds from each bout's first contact to its last, summed.
    public var walkingDuration = 0.0
    public var bouts: [Bout] = []
    /// Mean and coefficient of variation (standard deviation / mean) of the step times within
    /// bouts, seconds.
    public var stepTimeMean: Double?
    public var stepTimeCV: Double?
    /// Autocorrelation of the vertical acceleration within the bouts at the step and stride lags
    /// (Moe-Nilssen & Helbostad), and their ratio.
    public var stepRegularity: Double?
    public var strideRegularity: Double?
    public var symmetry: Double?
    /// Metres walked in the bouts (each bout's mean step length times its intervals), when the
    /// participant's height is known (the gait action's `bodyHeight` or `sensorHeight`).
    public var distance: Double?
    /// Metres per second over the bouts: `distance` over `walkingDuration`.
    public var walkingSpeed: Double?
    /// Mean stride length (two steps), m, and the coefficient of variation of the strides'.
    public var strideLength: Double?
    public var strideLengthCV: Double?

    public init() {}
}
