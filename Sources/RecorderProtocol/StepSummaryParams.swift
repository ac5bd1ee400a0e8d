import FoundationEssentials
import RecorderModel

/// The params of a `step.summary` notification: an analysis's final summary of a step whose
/// `step.finish` answered with a provisional one (`GaitStepSummary.provisional`), sent on the
/// connection that finished the step once the analysis has settled — the walk's last steps
/// confirmed, seconds later, or when the recorder stops. It equals the step's summary in the task
/// result.
public struct StepSummaryParams: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var stepPath: String
    public var summary: GaitStepSummary

    public init(taskRunUUID: UUID, stepPath: String, summary: GaitStepSummary) {
        self.taskRunUUID = taskRunUUID
        self.stepPath = stepPath
        self.summary = summary
    }
}
