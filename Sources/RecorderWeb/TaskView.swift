import RecorderModel

/// What `task.mustache` shows before a task starts: its first screen (the script walks the rest).
struct TaskView {
    let name: String
    let identifier: String
    let steps: Int
    let title: String
    let text: String

    init(name: String, _ definition: TaskDefinition) {
        self.name = name
        identifier = definition.identifier
        steps = definition.steps.count
        title = definition.steps.first?.title ?? definition.identifier
        text = definition.steps.first?.text ?? ""
    }
}
