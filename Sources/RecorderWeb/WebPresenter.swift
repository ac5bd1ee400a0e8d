import FoundationEssentials
import Glibc
import HummingbirdWebSocket
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// The task screen's presenter: each thing `TaskDefinitionRunner` shows becomes a JSON message to
/// the browser (`started`, `step`, `countdown`, `wait`, `ask`, `finished`, `skipped`); what the
/// participant does comes back through the inbox (`next`, `answer`). The browser draws the
/// screens (instruction, countdown, active step, question, conclusion) from these.
struct WebPresenter: TaskRunPresenter {
    let outbound: WebSocketOutboundWriter
    let inbox: BrowserInbox

    func send(_ members: [String: JSONValue]) async {
        try? await outbound.writeTextMessage(WebMessage.text(members))
    }

    func taskStarted(_ run: TaskRunHandle, definition: TaskDefinition) async {
        await send(["type": .string("started"), "task": .string(definition.identifier), "taskRunUUID": .string(run.taskRunUUID.uuidString.lowercased()),
                    "steps": .number(Double(definition.steps.count)),
                    "errors": .array(run.errors.map { .string("\($0.identifier): \($0.errorDescription)") })])
    }

    func stepStarted(_ step: TaskDefinition.Step, index: Int, of count: Int) async {
        var message: [String: JSONValue] = ["type": .string("step"), "index": .number(Double(index)), "count": .number(Double(count)),
                                            "identifier": .string(step.identifier), "title": .string(step.title ?? step.identifier)]
        if let text = step.text { message["text"] = .string(text) }
        if let duration = step.duration, duration > 0, step.question == nil { message["duration"] = .number(duration) }
        await send(message)
    }

    func countdown(_ secondsLeft: Int, step: TaskDefinition.Step) async {
        await send(["type": .string("countdown"), "seconds": .number(Double(secondsLeft))])
    }

    func waitForContinue(_ step: TaskDefinition.Step) async {
        await send(["type": .string("wait")])
        while let message = await inbox.next() {
            if message == .next { return }
        }
    }

    func ask(_ step: TaskDefinition.Step, question: TaskQuestion, problem: AnswerInputProblem?) async -> String? {
        var message: [String: JSONValue] = ["type": .string("ask"), "question": (try? JSONValue(encoding: question)) ?? .null]
        if let problem { message["problem"] = .string("\(problem)") }
        await send(message)
        while let reply = await inbox.next() {
            if case .answer(let text) = reply { return text ?? "" }
        }
        return nil
    }

    func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async {
        await send(["type": .string("finished"), "identifier": .string(step.identifier),
                    "summaries": .array((result.summaries ?? []).map { .string("\($0.identifier): \($0.headline)") })])
    }

    func summaryFinal(_ summary: GaitStepSummary) async {
        await send(["type": .string("final"), "summary": .string("\(summary.identifier) (final): \(summary.headline)")])
    }

    func stepSkipped(_ step: TaskDefinition.Step) async {
        await send(["type": .string("skipped"), "identifier": .string(step.identifier), "title": .string(step.title ?? step.identifier)])
    }
}
