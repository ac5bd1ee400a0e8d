import RecorderJSON

/// What a `heartRate` recorder measured in one step of a task run: in the heart-rate file's
/// result (`heartRateSummaries`) and in the `step.finish` response of that step (`heartRate`).
/// Rates in count/min; notifications without skin contact (`contact` false, or a rate of 0)
/// are counted apart and left out of the statistics.
public struct HeartRateStepSummary: Sendable, Equatable, Codable {
    /// The `heartRate` async action.
    public var identifier: String
    public var stepPath: String
    /// CLOCK_MONOTONIC seconds the step began (for the recorder), and of its last measurement.
    public var startUptime: Double
    public var endUptime: Double
    /// Measurements with contact, and those without.
    public var count: Int
    public var withoutContact: Int
    public var mean: Double?
    public var minimum: Int?
    public var maximum: Int?
    /// The first rate of the step (its first measurement), and the first at or after 60 s into
    /// the step.
    public var atStart: Int?
    public var at60Seconds: Int?
    /// Heart-rate recovery over the step's first minute: `atStart` − `at60Seconds` (count/min;
    /// positive when the rate fell — after exercise, the rest step's figure). Nil for a step
    /// shorter than a minute.
    public var recovery: Int?
    /// Gaps in the step (the sensor out of reach) and their seconds.
    public var gapCount: Int
    public var gapSeconds: Double

    public init(identifier: String, stepPath: String, startUptime: Double) {
        self.identifier = identifier
        self.stepPath = stepPath
        self.startUptime = startUptime
        endUptime = startUptime
        count = 0
        withoutContact = 0
        gapCount = 0
        gapSeconds = 0
    }

    /// One line for people: "rest: heart rate 96 mean, 88–121 count/min, recovery 25 in 60 s".
    public var headline: String {
        guard let mean, let minimum, let maximum else {
            return "\(stepPath): no heart rate" + (withoutContact > 0 ? " (\(withoutContact) without skin contact)" : "") + gapSuffix
        }
        var s = "\(stepPath): heart rate \(Int(mean.rounded())) mean, \(minimum)–\(maximum) count/min"
        if let recovery { s += ", recovery \(recovery) in 60 s" }
        return s + gapSuffix
    }

    private var gapSuffix: String {
        gapCount == 0 ? "" : " (\(gapCount) gap\(gapCount == 1 ? "" : "s"), " + FixedDecimal.text(gapSeconds, decimals: 1) + " s)"
    }
}
