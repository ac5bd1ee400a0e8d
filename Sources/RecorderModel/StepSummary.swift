/// A recorder's or an analysis's summary of one step of a task run: what `step.finish` answers
/// with, each kind in its own list.
public enum StepSummary: Sendable, Equatable {
    case gait(GaitStepSummary)
    case heartRate(HeartRateStepSummary)

    public var gait: GaitStepSummary? {
        if case .gait(let summary) = self { summary } else { nil }
    }

    public var heartRate: HeartRateStepSummary? {
        if case .heartRate(let summary) = self { summary } else { nil }
    }
}
