import RecorderFHIR
import RecorderModel
import RecorderProtocol

/// What `tasks.mustache` shows: runs in progress (to cancel one a closed tab left) and the task
/// files of the task folder, each with what reading it gave.
struct TasksView {
    struct Active {
        let id: String
        let uuid: String
        let task: String
        let step: String
        let recording: String
    }

    struct Task {
        let name: String
        /// Set for a file that reads as a task (not `title`: a nil one would find the page's).
        let taskTitle: String?
        let identifier: String
        let steps: Int
        let timed: String
        let recorders: String?
        /// Set for a file that does not.
        let problem: String?
    }

    let active: [Active]
    let folder: String
    let folderError: String?
    let noTasks: Bool
    let tasks: [Task]

    init(_ listed: Result<[WebSite.ListedTask], TaskFileError>, active: [ActiveTaskRun], folder: String) {
        self.active = active.map { run in
            Active(id: run.taskRunUUID.uuidString.lowercased(), uuid: run.taskRunUUID.uuidString, task: run.taskIdentifier,
                   step: run.currentStepPath ?? "between steps", recording: run.recording.joined(separator: ", "))
        }
        self.folder = folder
        switch listed {
        case .failure(let error):
            folderError = error.description
            tasks = []
        case .success(let list):
            folderError = nil
            tasks = list.map { task in
                switch task.definition {
                case .success(let d):
                    let recorders = d.asyncActions.map(\.identifier).joined(separator: ", ")
                    return Task(name: task.name, taskTitle: d.steps.first?.title ?? d.identifier, identifier: d.identifier, steps: d.steps.count,
                                timed: HTML.number(d.steps.compactMap(\.duration).reduce(0, +), digits: 0),
                                recorders: recorders.isEmpty ? nil : recorders, problem: nil)
                case .failure(let error):
                    return Task(name: task.name, taskTitle: nil, identifier: "", steps: 0, timed: "", recorders: nil, problem: error.description)
                }
            }
        }
        noTasks = folderError == nil && tasks.isEmpty
    }
}
