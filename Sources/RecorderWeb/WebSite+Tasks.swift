import FoundationEssentials
import Glibc
import RecorderJSON
import Hummingbird
import HummingbirdWebSocket
import RecorderClient
import RecorderFHIR
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// `/tasks`: the task files of the task folder (task definitions and FHIR Questionnaires), runs
/// in progress (to cancel one a closed tab left), and each task's screen, which walks the task
/// through a `TaskSession`.
extension WebSite {
    /// A task file listed: its name (file name without `.json`) and what reading it gave.
    struct ListedTask {
        var name: String
        var definition: Result<TaskDefinition, TaskFileError>
    }

    /// The largest number of task files listed.
    static let maximumTasks = 500

    func registerTasks(on router: Router<Context>) {
        router.get("/tasks") { _, _ in
            let status = try await withDaemon { client throws(RecorderClientError) in try await client.status() }
            let folder = taskDirectory
            let tasks = await QueueHandOff.blocking { Self.listTasks(in: folder) }
            return page(title: "Tasks", section: "tasks", template: "tasks", TasksView(tasks, active: status.taskRuns, folder: folder))
        }
        router.get("/tasks/:name") { _, context in
            let (name, definition) = try await task(context)
            return page(title: definition.steps.first?.title ?? definition.identifier, section: "tasks", template: "task", TaskView(name: name, definition))
        }
        router.post("/api/tasks/:name/sessions") { request, context in
            var (_, definition) = try await task(context)
            let participant = try Self.participant(request.uri.queryParameters)
            definition.setParticipant(bodyHeight: participant.bodyHeight, sensorHeight: participant.sensorHeight)
            guard let id = await sessions.create(definition) else { throw WebError(.tooManyRequests, "too many task screens are starting at once") }
            return try Self.json(["session": id])
        }
        router.ws("/ws/sessions/:id") { _, context in
            guard let id = context.parameters.get("id"), id.utf8.count == 64 else { return .dontUpgrade }
            return .upgrade()
        } onUpgrade: { inbound, outbound, context in
            guard let id = context.requestContext.parameters.get("id"), let definition = await sessions.take(id) else {
                try? await outbound.writeTextMessage(WebMessage.error("this task screen has expired: start the task again"))
                try? await outbound.close(.normalClosure, reason: nil)
                return
            }
            await withSocketPlace(outbound) {
                await TaskSession(site: self, definition: definition).run(inbound: inbound, outbound: outbound)
            }
        }
    }

    /// The participant's heights a task screen sends with its start (`bodyHeight`, `sensorHeight`,
    /// metres; each optional, empty as absent), range-checked as a task file's gait options are.
    static func participant(_ query: Parameters) throws(WebError) -> (bodyHeight: Double?, sensorHeight: Double?) {
        func height(_ key: String, _ range: NumberRange) throws(WebError) -> Double? {
            guard let text = query[Substring(key)].map(String.init), !text.isEmpty else { return nil }
            guard text.utf8.count <= 12, let value = Double(text), range.contains(value) else {
                throw WebError(.badRequest, "\(key): \(range)")
            }
            return value
        }
        return (try height("bodyHeight", GaitOptions.bodyHeightRange), try height("sensorHeight", GaitOptions.sensorHeightRange))
    }

    /// True for a task name: a file name of letters, digits, `.`, `_`, `-`, not starting with `.`.
    static func isTaskName(_ name: String) -> Bool {
        (1...100).contains(name.utf8.count) && !name.hasPrefix(".")
            && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 46 || $0 == 95 || $0 == 45 }
    }

    /// The task a request names, read from the task folder.
    func task(_ context: Context) async throws(WebError) -> (String, TaskDefinition) {
        guard let name = context.parameters.get("name"), Self.isTaskName(name) else {
            throw WebError(.badRequest, "a task is named by its file name (letters, digits, . _ -)")
        }
        let path = taskDirectory + "/" + name + ".json"
        let result = await QueueHandOff.blocking { Result { () throws(TaskFileError) in try TaskFile.load(path) } }
        switch result {
        case .success(let definition): return (name, definition)
        case .failure(.unreadable): throw WebError(.notFound, "no task \(name.debugDescription) in the task folder")
        case .failure(let error): throw WebError(.unprocessableContent, "the task file does not parse: \(error)")
        }
    }

    static func listTasks(in folder: String) -> Result<[ListedTask], TaskFileError> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return .failure(.unreadable(folder)) }
        let files = names.filter { $0.hasSuffix(".json") && isTaskName(String($0.dropLast(5))) }.sorted().prefix(maximumTasks)
        return .success(files.map { file in
            ListedTask(name: String(file.dropLast(5)), definition: Result { () throws(TaskFileError) in try TaskFile.load(folder + "/" + file) })
        })
    }
}
