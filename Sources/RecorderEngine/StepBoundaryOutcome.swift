import RecorderModel

/// What a step boundary did: when it was applied, the recorders it started and stopped, and (a
/// finished step) what the analyses and heart-rate recorders measured in the step.
public struct StepBoundaryOutcome: Sendable, Equatable {
    /// The boundary's time (CLOCK_MONOTONIC seconds).
    public var uptime: Double
    public var startedRecorders: [String]
    public var stoppedRecorders: [String]
    /// A finished step: the `gait` analyses' summaries, from the samples read when it finished
    /// (provisional ones are made final later: `TaskRunRegistry.whenSummariesFinal`).
    public var gait: [GaitStepSummary]
    /// A finished step: the `heartRate` recorders' summaries.
    public var heartRate: [HeartRateStepSummary]

    public init(uptime: Double, startedRecorders: [String], stoppedRecorders: [String], gait: [GaitStepSummary] = [],
                heartRate: [HeartRateStepSummary] = []) {
        self.uptime = uptime
        self.startedRecorders = startedRecorders
        self.stoppedRecorders = stoppedRecorders
        self.gait = gait
        self.heartRate = heartRate
    }
}
