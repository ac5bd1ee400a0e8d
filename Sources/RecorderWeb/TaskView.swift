import RecorderJSON
import RecorderModel

/// What `task.mustache` shows before a task starts: its first screen (the script walks the rest),
/// and for a task with a gait action, the participant's heights (a walking speed, distance or
/// six-minute walk needs one of them).
struct TaskView {
    let name: String
    let identifier: String
    let steps: Int
    let title: String
    let text: String
    /// The participant fields, for a task that analyses gait; nil otherwise.
    let participant: ParticipantFields?

    /// The heights' inputs: their bounds, as the task file's gait options have them.
    struct ParticipantFields {
        let bodyHeightMin = NumberRange.format(GaitOptions.bodyHeightRange.lower)
        let bodyHeightMax = NumberRange.format(GaitOptions.bodyHeightRange.upper)
        let sensorHeightMin = NumberRange.format(GaitOptions.sensorHeightRange.lower)
        let sensorHeightMax = NumberRange.format(GaitOptions.sensorHeightRange.upper)
    }

    init(name: String, _ definition: TaskDefinition) {
        self.name = name
        identifier = definition.identifier
        steps = definition.steps.count
        title = definition.steps.first?.title ?? definition.identifier
        text = definition.steps.first?.text ?? ""
        participant = definition.asyncActions.contains { $0.type == .gait } ? ParticipantFields() : nil
    }
}
