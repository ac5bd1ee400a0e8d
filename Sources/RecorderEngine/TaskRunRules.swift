import RecorderModel

/// The start/stop rules of a task run's recorders (as SageResearch), as a pure state machine:
/// each event returns the actions to carry out, in order.
///
/// A recorder starts when the step named `startStepIdentifier` starts (absent: when the run
/// starts) and stops when the step named `stopStepIdentifier` finishes (absent: when the run
/// finishes). A step identifier matches the last component of a `/`-joined step path; one that
/// holds a `/` is a whole step path and matches only that path (a composed task's recorder scoped
/// to its section: `walk-and-balance/walk/motion`, not `walk-and-balance/balance/motion`).
public struct TaskRunRules: Sendable {
    /// What the run must do.
    public enum Action: Sendable, Equatable {
        /// The current step path changed (records after it carry the new path).
        case changeStep(String)
        case startRecorder(String)
        case stopRecorder(String)
    }

    /// A step boundary that does not fit the steps started so far.
    public struct StepOrderError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    enum Phase: Sendable, Equatable { case pending, recording, stopped }

    struct Recorder: Sendable {
        let identifier: String
        let startStep: String?
        let stopStep: String?
        var phase: Phase = .pending
    }

    public let taskIdentifier: String
    var recorders: [Recorder]
    /// Steps started and not finished, outermost first.
    public private(set) var activeSteps: [String] = []
    public private(set) var isFinished = false

    public init(taskIdentifier: String, recorders: [(identifier: String, startStep: String?, stopStep: String?)]) {
        self.taskIdentifier = taskIdentifier
        self.recorders = recorders.map { Recorder(identifier: $0.identifier, startStep: $0.startStep, stopStep: $0.stopStep) }
    }

    public init(taskIdentifier: String, actions: [AsyncActionConfiguration]) {
        self.init(taskIdentifier: taskIdentifier,
                  recorders: actions.map { ($0.identifier, $0.startStepIdentifier, $0.stopStepIdentifier) })
    }

    /// The step path records carry now: the innermost active step, else the task identifier.
    public var currentStepPath: String { activeSteps.last ?? taskIdentifier }

    /// Identifiers of recorders that are recording.
    public var recordingIdentifiers: [String] { recorders.filter { $0.phase == .recording }.map(\.identifier) }

    /// Identifiers of recorders still waiting for their start step.
    public var pendingIdentifiers: [String] { recorders.filter { $0.phase == .pending }.map(\.identifier) }

    /// The last component of a step path (`StepPath.identifier(of:)`).
    public static func stepIdentifier(of path: String) -> Substring {
        StepPath.identifier(of: path)
    }

    /// Whether a recorder's start or stop step `configured` names the step at `path`.
    public static func step(_ configured: String, names path: String) -> Bool {
        configured.contains("/") ? configured == path : configured[...] == stepIdentifier(of: path)
    }

    /// The run starts.
    public mutating func startTask() -> [Action] {
        var actions: [Action] = []
        for i in recorders.indices where recorders[i].startStep == nil && recorders[i].phase == .pending {
            recorders[i].phase = .recording
            actions.append(.startRecorder(recorders[i].identifier))
        }
        return actions
    }

    /// A step starts.
    public mutating func startStep(_ path: String) throws(StepOrderError) -> [Action] {
        guard !isFinished else { throw StepOrderError(description: "the task run has finished") }
        guard !path.isEmpty else { throw StepOrderError(description: "stepPath is empty") }
        guard !activeSteps.contains(path) else {
            throw StepOrderError(description: "step \(path.debugDescription) has already started and not finished")
        }
        activeSteps.append(path)
        var actions: [Action] = [.changeStep(path)]
        for i in recorders.indices where recorders[i].phase == .pending && recorders[i].startStep.map({ Self.step($0, names: path) }) == true {
            recorders[i].phase = .recording
            actions.append(.startRecorder(recorders[i].identifier))
        }
        return actions
    }

    /// A step finishes.
    public mutating func finishStep(_ path: String) throws(StepOrderError) -> [Action] {
        guard !isFinished else { throw StepOrderError(description: "the task run has finished") }
        guard let index = activeSteps.lastIndex(of: path) else {
            throw StepOrderError(description: "step \(path.debugDescription) has not started (active: \(activeSteps.isEmpty ? "none" : activeSteps.joined(separator: ", ")))")
        }
        guard index == activeSteps.count - 1 else {
            throw StepOrderError(description: "step \(path.debugDescription) cannot finish before \(activeSteps.last!.debugDescription)")
        }
        activeSteps.removeLast()
        var actions: [Action] = []
        for i in recorders.indices where recorders[i].phase == .recording && recorders[i].stopStep.map({ Self.step($0, names: path) }) == true {
            recorders[i].phase = .stopped
            actions.append(.stopRecorder(recorders[i].identifier))
        }
        actions.append(.changeStep(currentStepPath))
        return actions
    }

    /// The run finishes (or is cancelled, interrupted, abandoned): every open recorder stops.
    public mutating func finishTask() -> [Action] {
        isFinished = true
        var actions: [Action] = []
        for i in recorders.indices {
            if recorders[i].phase == .recording { actions.append(.stopRecorder(recorders[i].identifier)) }
            recorders[i].phase = .stopped
        }
        return actions
    }
}
