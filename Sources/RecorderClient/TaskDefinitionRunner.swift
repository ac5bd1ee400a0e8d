import FoundationEssentials
import Glibc
import RecorderModel
import RecorderProtocol

/// What a task runner shows while walking a task definition.
public protocol TaskRunPresenter: Sendable {
    /// The task run started (before its first step).
    func taskStarted(_ run: TaskRunHandle, definition: TaskDefinition) async
    /// A step begins: its title and instruction.
    func stepStarted(_ step: TaskDefinition.Step, index: Int, of count: Int) async
    /// Seconds left in a timed step (called once per second).
    func countdown(_ secondsLeft: Int, step: TaskDefinition.Step) async
    /// An untimed step waits for the participant (return when they are ready).
    func waitForContinue(_ step: TaskDefinition.Step) async
    /// A question step asks: returns the text the participant typed, or nil when no more input
    /// can come. `problem` says why the previous text was not an answer (ask again).
    func ask(_ step: TaskDefinition.Step, question: TaskQuestion, problem: AnswerInputProblem?) async -> String?
    /// A step finished: `result` carries what the `gait` analyses found in it (`summaries`).
    func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async
    /// A step is skipped: its conditions on earlier answers are not met.
    func stepSkipped(_ step: TaskDefinition.Step) async
    /// The final summary of a step whose `stepFinished` summary was provisional (the analysis
    /// settled: the walk's last steps confirmed, or its recorder stopped).
    func summaryFinal(_ summary: GaitStepSummary) async
}

extension TaskRunPresenter {
    public func taskStarted(_ run: TaskRunHandle, definition: TaskDefinition) async {}
    public func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async {}
    public func stepSkipped(_ step: TaskDefinition.Step) async {}
    public func summaryFinal(_ summary: GaitStepSummary) async {}
}

/// Why a task run walked by `TaskDefinitionRunner` stopped (the run is cancelled, its files kept).
public enum TaskDefinitionRunnerError: Error, Sendable, CustomStringConvertible {
    /// Input ended before a required question was answered.
    case noAnswer(stepIdentifier: String)
    /// A preset answer (`--answer ID=TEXT`) is not an answer to its question.
    case badPreset(identifier: String, problem: String)

    public var description: String {
        switch self {
        case .noAnswer(let step): return "no answer to the required question \(step.debugDescription): the input ended"
        case .badPreset(let id, let problem): return "--answer \(id): \(problem)"
        }
    }
}

/// Walks a task definition: starts the task run, sends each step's boundaries, waits out each
/// step's duration or asks its question (the answer goes with `step.finish`), skips steps whose
/// conditions the answers so far do not meet, finishes the run. Step paths are
/// `<task identifier>/<step identifier>`. The sections of a composed task (`TaskComposer`) have
/// step boundaries of their own around their steps: a section starts before the first of its
/// steps that runs and finishes after the last (a section none of whose steps run has none). A
/// timed step (`timerSeconds`) counts down and then advances, or, an `active` step without
/// `transitionAutomatically`, waits for the participant as an untimed step does.
///
/// Cancelling the task that runs it (a participant's Cancel) cancels the task run with its files
/// kept, once the presenter returns; when the client's connection is closed first (a browser tab
/// gone), that cancel cannot be sent and the run is left to the daemon's orphan rules.
public struct TaskDefinitionRunner: Sendable {
    public let client: RecorderClient
    public let definition: TaskDefinition
    /// Untimed steps pass at once (no waiting for the participant).
    public let automatic: Bool
    /// When set, every timed step lasts this many seconds (short demo runs).
    public let stepSeconds: Double?
    /// Answers given before the run, as typed, by answer identifier: their questions are not
    /// asked (`recorderctl run --answer ID=TEXT`); `handOrder` (`left,right` or `right,left`)
    /// orders the hands of a hand selection answered `both`.
    public let presetAnswers: [String: String]

    public init(client: RecorderClient, definition: TaskDefinition, automatic: Bool, stepSeconds: Double? = nil,
                presetAnswers: [String: String] = [:]) {
        self.client = client
        self.definition = definition
        self.automatic = automatic
        self.stepSeconds = stepSeconds
        self.presetAnswers = presetAnswers
    }

    /// Why `answers` cannot be preset for `definition`: an identifier no question of it has, a
    /// hand order that is not one. Nil when they can.
    public static func presetProblem(_ answers: [String: String], for definition: TaskDefinition) -> String? {
        let questions = Set(definition.steps.filter { $0.question != nil }.map(\.answerIdentifier))
        for step in definition.steps {
            guard let question = step.question, let text = answers[step.answerIdentifier] else { continue }
            if case .failure(let problem) = question.answer(from: text, identifier: step.answerIdentifier) {
                return "--answer \(step.answerIdentifier): \(problem)"
            }
        }
        for (id, text) in answers.sorted(by: { $0.key < $1.key }) {
            if id == HandSelection.orderIdentifier, !definition.handSelections.isEmpty {
                if HandSelection.order(from: text) == nil { return "--answer \(id): expected left,right or right,left, found \(text.debugDescription)" }
                continue
            }
            if !questions.contains(id) {
                return "--answer \(id): no question of task \(definition.identifier.debugDescription) has that identifier"
                    + (questions.isEmpty ? "" : " (its questions: \(questions.sorted().joined(separator: ", ")))")
            }
        }
        return nil
    }

    /// Runs the task; returns the run's directory and its task result.
    public func run(presenter: some TaskRunPresenter) async throws -> (runDirectory: String, result: TaskResult) {
        let run = try await client.startTask(identifier: definition.identifier, asyncActions: definition.asyncActions,
                                             questionnaire: definition.questionnaire)
        var answers: [String: AnswerResult] = [:]
        // Final summaries of steps answered provisionally, handed to the presenter as they come
        // (checked every second of a timed step and at each boundary).
        var finalsReported = 0
        do {
            await presenter.taskStarted(run, definition: definition)
            var openSections: [String] = []
            var hands: [String: [HandSelection.Hand]] = [:]
            var order = definition.stepOrder(hands: hands)
            var position = 0
            while position < order.count {
                let index = order[position]
                let step = definition.steps[index]
                position += 1
                guard step.isEnabled(by: answers) else {
                    await presenter.stepSkipped(step)
                    continue
                }
                try await enterSections(definition.sections(of: step), open: &openSections, run: run)
                let path = "\(definition.identifier)/\(step.identifier)"
                try await run.startStep(path)
                await presenter.stepStarted(step, index: position - 1, of: definition.steps.count)
                if let question = step.question {
                    let answer = try await ask(step, question, presenter: presenter)
                    try Task.checkCancellation()
                    if let answer { answers[answer.identifier] = answer }
                    if let answer, definition.handSelections.contains(where: { $0.answerIdentifier == answer.identifier }),
                       let chosen = HandSelection.hands(answer: answer.value, order: presetAnswers[HandSelection.orderIdentifier].flatMap(HandSelection.order(from:))) {
                        // The hands' sections from here on in the order chosen (the steps before
                        // them are not moved).
                        hands[answer.identifier] = chosen
                        let done = Array(order[..<position])
                        order = done + definition.stepOrder(hands: hands).filter { !done.contains($0) }
                    }
                    let finished = try await run.finishStep(path, results: answer.map { [$0] } ?? [])
                    await presenter.stepFinished(step, result: finished)
                    continue
                }
                if let duration = step.timerSeconds {
                    let seconds = stepSeconds ?? duration
                    let clock = ContinuousClock()
                    let end = clock.now.advanced(by: .seconds(seconds))
                    var left = Int(saturating: seconds.rounded(.up))
                    while clock.now < end {
                        await reportFinalSummaries(of: run, to: presenter, reported: &finalsReported)
                        await presenter.countdown(left, step: step)
                        let next = min(end, clock.now.advanced(by: .seconds(1)))
                        try await Task.sleep(until: next, clock: clock)
                        left -= 1
                    }
                    if !step.continuesOnFinish, !automatic {
                        await presenter.waitForContinue(step)
                        try Task.checkCancellation()
                    }
                } else if !automatic {
                    await presenter.waitForContinue(step)
                    try Task.checkCancellation()
                }
                let finished = try await run.finishStep(path)
                await presenter.stepFinished(step, result: finished)
                await reportFinalSummaries(of: run, to: presenter, reported: &finalsReported)
            }
            try await enterSections([], open: &openSections, run: run)
        } catch {
            _ = try? await run.cancel(keepFiles: true)
            throw error
        }
        let result = try await run.finish()
        // The last ones arrive before the finish's response.
        await reportFinalSummaries(of: run, to: presenter, reported: &finalsReported)
        return (run.runDirectory, result)
    }

    /// Finishes the open sections `target` does not hold (innermost first) and starts those of
    /// `target` not open (outermost first): the boundaries between one step's sections and the
    /// next's.
    func enterSections(_ target: [String], open: inout [String], run: TaskRunHandle) async throws {
        while let last = open.last, !target.contains(last) {
            _ = try await run.finishStep("\(definition.identifier)/\(last)")
            open.removeLast()
        }
        for section in target where !open.contains(section) {
            try await run.startStep("\(definition.identifier)/\(section)")
            open.append(section)
        }
    }

    /// Hands the presenter the final summaries received for `run` since the `reported` first.
    func reportFinalSummaries(of run: TaskRunHandle, to presenter: some TaskRunPresenter, reported: inout Int) async {
        let finals = client.finalSummaries(of: run.taskRunUUID)
        guard finals.count > reported else { return }
        for final in finals[reported...] { await presenter.summaryFinal(final.summary) }
        reported = finals.count
    }

    /// Asks until the text is an answer (nil: an optional question left empty).
    func ask(_ step: TaskDefinition.Step, _ question: TaskQuestion, presenter: some TaskRunPresenter) async throws(TaskDefinitionRunnerError) -> AnswerResult? {
        var problem: AnswerInputProblem?
        let preset = presetAnswers[step.answerIdentifier]
            ?? (automatic && step.type == HandSelection.stepType ? HandSelection.both : nil)
        if let preset {
            switch question.answer(from: preset, identifier: step.answerIdentifier) {
            case .success(let answer): return answer
            case .failure(let p): throw .badPreset(identifier: step.answerIdentifier, problem: p.description)
            }
        }
        while true {
            let given = await presenter.ask(step, question: question, problem: problem)
            if Task.isCancelled { return nil }
            guard let text = given else {
                if question.isOptional { return nil }
                throw .noAnswer(stepIdentifier: step.identifier)
            }
            switch question.answer(from: text, identifier: step.answerIdentifier) {
            case .success(let answer): return answer
            case .failure(let p): problem = p
            }
        }
    }
}
