import Foundation
import RecorderModel

/// What a task runner shows while walking a task definition.
public protocol TaskRunPresenter: Sendable {
    /// A step begins: its title and instruction.
    func stepStarted(_ step: TaskDefinition.Step, index: Int, of count: Int) async
    /// Seconds left in a timed step (called once per second).
    func countdown(_ secondsLeft: Int, step: TaskDefinition.Step) async
    /// An untimed step waits for the participant (return when they are ready).
    func waitForContinue(_ step: TaskDefinition.Step) async
    /// A step finished: `result` carries what the `gait` analyses found in it (`summaries`).
    func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async
}

extension TaskRunPresenter {
    public func stepFinished(_ step: TaskDefinition.Step, result: StepResult) async {}
}

/// Walks a task definition: starts the task run, sends each step's boundaries, waits out each
/// step's duration, finishes the run. Step paths are `<task identifier>/<step identifier>`.
public struct TaskDefinitionRunner: Sendable {
    public let client: RecorderClient
    public let definition: TaskDefinition
    /// Untimed steps pass at once (no waiting for the participant).
    public let automatic: Bool
    /// When set, every timed step lasts this many seconds (short demo runs).
    public let stepSeconds: Double?

    public init(client: RecorderClient, definition: TaskDefinition, automatic: Bool, stepSeconds: Double? = nil) {
        self.client = client
        self.definition = definition
        self.automatic = automatic
        self.stepSeconds = stepSeconds
    }

    /// Runs the task; returns the run's directory and its task result.
    public func run(presenter: some TaskRunPresenter) async throws -> (runDirectory: String, result: TaskResult) {
        let run = try await client.startTask(identifier: definition.identifier, asyncActions: definition.asyncActions)
        do {
            for (index, step) in definition.steps.enumerated() {
                let path = "\(definition.identifier)/\(step.identifier)"
                try await run.startStep(path)
                await presenter.stepStarted(step, index: index, of: definition.steps.count)
                if let duration = step.duration, duration > 0 {
                    let seconds = stepSeconds ?? duration
                    let clock = ContinuousClock()
                    let end = clock.now.advanced(by: .seconds(seconds))
                    var left = Int(saturating: seconds.rounded(.up))
                    while clock.now < end {
                        await presenter.countdown(left, step: step)
                        let next = min(end, clock.now.advanced(by: .seconds(1)))
                        try await Task.sleep(until: next, clock: clock)
                        left -= 1
                    }
                } else if !automatic {
                    await presenter.waitForContinue(step)
                }
                let finished = try await run.finishStep(path)
                await presenter.stepFinished(step, result: finished)
            }
        } catch {
            _ = try? await run.cancel(keepFiles: true)
            throw error
        }
        return (run.runDirectory, try await run.finish())
    }
}
