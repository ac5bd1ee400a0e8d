import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderFHIR
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// Prints steps and countdowns on the terminal.
struct TerminalPresenter: TaskRunPresenter {
    func stepStarted(_ step: TaskDefinition.Step, index: Int, of count: Int) async {
        print("\n[\(index + 1)/\(count)] \(step.title ?? step.identifier)")
        if let text = step.text { print("    \(text)") }
    }

    func countdown(_ secondsLeft: Int, step: TaskDefinition.Step) async {
        print("    \(secondsLeft) s", terminator: secondsLeft <= 1 ? "\n" : "\r")
        fflush(nil)
    }

    func waitForContinue(_ step: TaskDefinition.Step) async {
        print("    press Enter to continue", terminator: "")
        fflush(nil)
        _ = await Self.readLine()
    }

    func ask(_ step: TaskDefinition.Step, question: TaskQuestion, problem: AnswerInputProblem?) async -> String? {
        if let problem {
            print("    \(problem); try again")
        } else {
            for (i, choice) in (question.choices ?? []).enumerated() { print("    \(i + 1)) \(choice.text)") }
        }
        print("    \(Self.hint(question))> ", terminator: "")
        fflush(nil)
        let line = await Self.readLine()
        // A terminal echoes what was typed; text from a pipe is shown, so the transcript reads
        // as a conversation.
        if isatty(STDIN_FILENO) == 0 { print(line ?? "(end of input)") }
        return line
    }

    /// What the answer looks like, before the prompt: `(yes/no) `, `(0 to 10) `.
    static func hint(_ question: TaskQuestion) -> String {
        var parts: [String] = []
        switch question.answerType {
        case .boolean: parts.append("yes/no")
        case .date: parts.append("yyyy-MM-dd")
        case .choice: parts.append("1 to \(question.choices?.count ?? 0)")
        case .integer, .decimal, .scale:
            if let min = question.min, let max = question.max {
                parts.append("\(NumberRange.format(min)) to \(NumberRange.format(max))")
            }
            if let unit = question.unit { parts.append(unit) }
        case .string: break
        }
        if question.isOptional { parts.append("Enter to skip") }
        return parts.isEmpty ? "" : "(\(parts.joined(separator: ", "))) "
    }

    /// A line of standard input (nil at its end), read on a thread of its own: readLine blocks.
    static func readLine() async -> String? {
        await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
            DetachedThread.start { c.resume(returning: Swift.readLine()) }
        }
    }

    func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async {
        for summary in result.summaries ?? [] { print("    \(summary.identifier): \(summary.headline)") }
        for summary in result.heartRate ?? [] { print("    \(summary.identifier): \(summary.headline)") }
    }

    func stepSkipped(_ step: TaskDefinition.Step) async {
        print("\n(skipped \(step.title ?? step.identifier))")
    }

    /// Comes during a later step's countdown: on a terminal it takes the countdown's line (which
    /// the next second writes again below it); elsewhere it starts a line of its own.
    func summaryFinal(_ summary: GaitStepSummary) async {
        let start = isatty(STDOUT_FILENO) != 0 ? "\r\u{1B}[2K" : "\n"
        print(start + "    \(summary.identifier) (final): \(summary.headline)")
    }
}

/// Prints a task result's summary.
enum Summary {
    static func print(_ result: TaskResult, runDirectory: String) {
        Swift.print("\ntask \(result.taskIdentifier) \(result.status.rawValue): \(result.taskRunUUID)")
        Swift.print("run directory: \(runDirectory)")
        for step in result.stepHistory {
            let duration = step.endUptime.map { CFormat.string("%.2f s", $0 - step.startUptime) } ?? "open"
            Swift.print("  step \(step.stepPath): \(duration)")
            for answer in step.results ?? [] {
                Swift.print("    answer \(answer.identifier): \(answer.display ?? answer.value.plainText ?? "-")\(answer.unit.map { " " + $0 } ?? "")")
            }
        }
        for async in result.asyncResults {
            switch async {
            case .file(let f):
                let span = f.endUptime.map { CFormat.string("%.2f s", $0 - f.startUptime) } ?? "open"
                Swift.print("  file \(f.relativePath): \(f.sampleCount) records over \(span), \(f.droppedSamples) dropped in \(f.gapCount) gaps, sha256 \(f.sha256?.prefix(16) ?? "-")…")
                for summary in f.stepSummaries ?? [] { Swift.print("    \(summary.headline)") }
                for summary in f.heartRateSummaries ?? [] { Swift.print("    \(summary.headline)") }
            case .error(let e):
                Swift.print("  error \(e.identifier): \(e.errorDescription)")
            }
        }
    }
}

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Walk a task definition: instructions, countdowns, step boundaries, result.")
    @OptionGroup var socket: SocketOptions
    @Argument(help: "Task file ({identifier, steps, asyncActions}) or an HL7 FHIR R4 Questionnaire (JSON).") var taskFile: String
    @Flag(help: "Pass untimed steps at once.") var auto = false
    @Option(name: .customLong("step-seconds"), help: "Make every timed step this long.") var stepSeconds: Double?
    @Flag(help: "List the keys recorderd ignores in the task file.") var verbose = false
    @Option(name: .customLong("body-height"), help: "The participant's height in metres, for the gait actions' walking speed and distance.")
    var bodyHeight: Double?
    @Option(name: .customLong("sensor-height"), help: "The lower-back sensor's height above the ground in metres (better than --body-height).")
    var sensorHeight: Double?
    @Option(name: .customLong("answer"), help: ArgumentHelp("Answer a question before the run, as typed (repeatable): ID=TEXT, e.g. handSelection=left, handOrder=right,left.", valueName: "id=text"))
    var answers: [String] = []

    /// `--answer`s by identifier.
    func presetAnswers() throws -> [String: String] {
        var preset: [String: String] = [:]
        for given in answers {
            guard let equals = given.firstIndex(of: "="), equals != given.startIndex else {
                throw ValidationError("--answer \(given.debugDescription): expected ID=TEXT")
            }
            let id = String(given[..<equals])
            guard preset.updateValue(String(given[given.index(after: equals)...]), forKey: id) == nil else {
                throw ValidationError("--answer \(id): given twice")
            }
        }
        return preset
    }

    func validate() throws {
        _ = try presetAnswers()
        for (name, value, range) in [("--body-height", bodyHeight, GaitOptions.bodyHeightRange), ("--sensor-height", sensorHeight, GaitOptions.sensorHeightRange)] {
            if let value, !range.contains(value) { throw ValidationError("\(name): \(range.description)") }
        }
    }

    func run() async throws {
        var definition = try TaskFile.load(taskFile, verbose: verbose)
        definition.setParticipant(bodyHeight: bodyHeight, sensorHeight: sensorHeight)
        let preset = try presetAnswers()
        if let problem = TaskDefinitionRunner.presetProblem(preset, for: definition) { throw CommandFailure(problem, .usage) }
        let client = try await socket.connect()
        let runner = TaskDefinitionRunner(client: client, definition: definition, automatic: auto, stepSeconds: stepSeconds,
                                          presetAnswers: preset)
        let (directory, result) = try await runner.run(presenter: TerminalPresenter())
        Summary.print(result, runDirectory: directory)
    }
}

extension TaskFile {
    /// Reads a task file or a FHIR Questionnaire for a command; `verbose` lists on standard error
    /// the keys recorderd ignores in a task file.
    static func load(_ path: String, verbose: Bool) throws -> TaskDefinition {
        do {
            let definition = try load(path)
            if verbose, let data = FileManager.default.contents(atPath: path) {
                for warning in ignoredKeys(data) { StandardStreams.error("recorderctl: \(path): ignored \(warning)\n") }
            }
            if verbose {
                for warning in unknownStepTypes(definition) { StandardStreams.error("recorderctl: \(path): step \(warning)\n") }
            }
            return definition
        } catch {
            switch error {
            case .unreadable: throw CommandFailure(error.description, .noInput)
            case .invalid: throw CommandFailure(error.description, .dataError)
            }
        }
    }

    /// Lists the keys of `data` that `keys` does not know (`--actions`).
    static func reportIgnoredKeys(_ data: Data, keys: ConfigurationKeys, source: String, path: String = "") {
        guard let value = try? JSONParser.parse(data) else { return }
        for warning in keys.unknownKeys(in: value, path: path) {
            StandardStreams.error("recorderctl: \(source): ignored \(warning)\n")
        }
    }
}

struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a task run (prints its UUID and directory).")
    @OptionGroup var socket: SocketOptions
    @Argument(help: "Task file, or a task identifier with --actions.") var task: String
    @Option(help: "JSON array of async-action configurations (with a task identifier).") var actions: String?
    @Flag(help: "List the keys recorderd ignores in the task.") var verbose = false

    func run() async throws {
        let identifier: String
        let asyncActions: [AsyncActionConfiguration]
        if let actions {
            identifier = task
            if verbose { TaskFile.reportIgnoredKeys(Data(actions.utf8), keys: AsyncActionConfiguration.arrayKeys, source: "--actions", path: "actions") }
            do {
                asyncActions = try JSONValueDecoder().decode([AsyncActionConfiguration].self, from: Array(actions.utf8))
            } catch {
                throw ValidationError("--actions: \(DecodingErrorDescription.describe(error, prefix: "actions"))")
            }
        } else {
            let definition = try TaskFile.load(task, verbose: verbose)
            identifier = definition.identifier
            asyncActions = definition.asyncActions
        }
        let client = try await socket.connect()
        let run = try await client.startTask(identifier: identifier, asyncActions: asyncActions)
        print(run.taskRunUUID.uuidString)
        print(run.runDirectory)
        for e in run.errors { StandardStreams.error("warning: \(e.identifier): \(e.errorDescription)\n") }
    }
}

struct StepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "step", abstract: "Send a step boundary: step start|finish UUID STEPPATH.")
    enum Boundary: String, ExpressibleByArgument { case start, finish }
    @OptionGroup var socket: SocketOptions
    @Argument var boundary: Boundary
    @Argument var taskRunUUID: String
    @Argument var stepPath: String

    func run() async throws {
        guard let uuid = UUID(uuidString: taskRunUUID) else { throw ValidationError("not a UUID: \(taskRunUUID)") }
        let client = try await socket.connect()
        let params = StepParams(taskRunUUID: uuid, stepPath: stepPath)
        let result: StepResult = try await client.call(boundary == .start ? .stepStart : .stepFinish, params)
        try Output.json(result)
    }
}

struct FinishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "finish", abstract: "Finish a task run; prints its task result.")
    @OptionGroup var socket: SocketOptions
    @Argument var taskRunUUID: String

    func run() async throws {
        guard let uuid = UUID(uuidString: taskRunUUID) else { throw ValidationError("not a UUID: \(taskRunUUID)") }
        let client = try await socket.connect()
        let result: TaskResult = try await client.call(.taskFinish, TaskRunParams(taskRunUUID: uuid))
        try Output.json(result)
    }
}

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a task run (deletes its files unless --keep-files).")
    @OptionGroup var socket: SocketOptions
    @Argument var taskRunUUID: String
    @Flag(name: .customLong("keep-files")) var keepFiles = false

    func run() async throws {
        guard let uuid = UUID(uuidString: taskRunUUID) else { throw ValidationError("not a UUID: \(taskRunUUID)") }
        let client = try await socket.connect()
        let result: TaskResult = try await client.call(.taskCancel, TaskCancelParams(taskRunUUID: uuid, keepFiles: keepFiles))
        try Output.json(result)
    }
}
