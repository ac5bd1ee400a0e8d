import FoundationEssentials
import Glibc
import RecorderJSON

/// A task file for `recorderctl run`: steps with instructions and durations, and the async
/// actions to record.
public struct TaskDefinition: Sendable, Codable, Equatable {
    /// One step of the task.
    public struct Step: Sendable, Codable, Equatable {
        public var identifier: String
        public var title: String?
        public var text: String?
        /// Seconds; absent or 0: waits for the user (or passes at once in `--auto`).
        public var duration: Double?
        /// A question step: what it asks; the answer goes with `step.finish`.
        public var question: TaskQuestion?
        /// When the step is shown: all (`enableBehavior` `all`, the default) or any of these
        /// conditions on earlier answers; otherwise it is skipped (no step boundaries are sent).
        public var enableWhen: [StepCondition]?
        public var enableBehavior: EnableBehavior?
        /// SageResearch's step `type` as written (`instruction`, `active`, `countdown`…), nil when
        /// absent. What it means for a run: `kind`.
        public var type: String?
        /// SageResearch's active-step `commands` as written (`transitionAutomatically`,
        /// `continueOnFinish`, `playSound`…); only the transition commands change a run.
        public var commands: [String]?

        /// How a step's conditions combine.
        public enum EnableBehavior: String, Sendable, Codable { case all, any }

        public init(identifier: String, title: String? = nil, text: String? = nil, duration: Double? = nil,
                    question: TaskQuestion? = nil, enableWhen: [StepCondition]? = nil, enableBehavior: EnableBehavior? = nil,
                    type: String? = nil, commands: [String]? = nil) {
            self.identifier = identifier
            self.type = type
            self.commands = commands
            self.title = title
            self.text = text
            self.duration = duration
            self.question = question
            self.enableWhen = enableWhen
            self.enableBehavior = enableBehavior
        }

        /// The identifier of the step's answer: the last component of its identifier (`pain` for
        /// `after/pain`).
        public var answerIdentifier: String {
            identifier.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? identifier
        }

        /// The step's conditions as one, or nil when it is always shown.
        public var condition: StepCondition? {
            guard let enableWhen, !enableWhen.isEmpty else { return nil }
            if enableWhen.count == 1 { return enableWhen[0] }
            return enableBehavior == .any ? .any(enableWhen) : .all(enableWhen)
        }

        /// Whether the step is shown, given the answers so far.
        public func isEnabled(by answers: [String: AnswerResult]) -> Bool {
            condition?.isMet(by: answers) ?? true
        }

        /// Step durations a task file may give.
        public static let durationRange = NumberRange(atLeast: 0, atMost: 86_400, "seconds")

        enum CodingKeys: String, CodingKey { case identifier, title, text, duration, question, enableWhen, enableBehavior, type, commands }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try c.decode(String.self, forKey: .identifier)
            if let problem = StepPath.problem(identifier) {
                throw DecodingError.dataCorruptedError(forKey: .identifier, in: c, debugDescription: problem)
            }
            title = try c.decodeIfPresent(String.self, forKey: .title)
            text = try c.decodeIfPresent(String.self, forKey: .text)
            duration = try c.decodeIfPresent(Double.self, forKey: .duration, in: Self.durationRange)
            question = try c.decodeIfPresent(TaskQuestion.self, forKey: .question)
            if question != nil, !RecorderIdentifier.isValid(answerIdentifier) {
                throw DecodingError.dataCorruptedError(forKey: .identifier, in: c,
                                                       debugDescription: "a question's identifier ends in its answer's identifier: \(RecorderIdentifier.expectation)")
            }
            enableWhen = try c.decodeIfPresent([StepCondition].self, forKey: .enableWhen)
            enableBehavior = try c.decodeIfPresent(EnableBehavior.self, forKey: .enableBehavior)
            type = try c.decodeIfPresent(String.self, forKey: .type)
            commands = try c.decodeIfPresent([String].self, forKey: .commands)
            if let type, let problem = ControlCharacters.problem(in: type, place: "the step type") {
                throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: problem)
            }
        }
    }

    public var identifier: String
    public var steps: [Step]
    public var asyncActions: [AsyncActionConfiguration]
    /// The canonical URL of the FHIR Questionnaire the task was made from.
    public var questionnaire: String?
    /// The sections of a composed task (SageResearch's `section` steps, included or not), as
    /// paths relative to the task (`walk`, `tremor/left`), outermost first. A step whose
    /// identifier starts with a section's path and `/` runs inside it: the runner starts the
    /// section (its own step boundary, `<task>/<section>`) before its first step that runs and
    /// finishes it after its last. Not part of a task file: `TaskComposer` makes it.
    public var sections: [String] = []
    /// Its hand-selection steps and the hand sections each decides (`TaskComposer`).
    public var handSelections: [HandSelection] = []

    enum CodingKeys: String, CodingKey { case identifier, steps, asyncActions, questionnaire }

    public init(identifier: String, steps: [Step], asyncActions: [AsyncActionConfiguration], questionnaire: String? = nil,
                sections: [String] = []) {
        self.identifier = identifier
        self.steps = steps
        self.asyncActions = asyncActions
        self.questionnaire = questionnaire
        self.sections = sections
    }

    /// The sections `step` lies in, outermost first (paths relative to the task).
    public func sections(of step: Step) -> [String] {
        guard !sections.isEmpty else { return [] }
        return sections.filter { step.identifier.hasPrefix($0 + "/") }.sorted { $0.count < $1.count }
    }

    /// The keys of a task file; keys not among them are ignored (`recorderctl run --verbose`
    /// lists them).
    public static var keys: ConfigurationKeys {
        let condition = ConfigurationKeys.keys(["question", "operator", "answer", "system", "all", "any"])
        let question = ConfigurationKeys.object(["answerType": .any, "choices": .any, "min": .any, "max": .any, "unit": .any, "optional": .any])
        return .object(["identifier": .any, "questionnaire": .any,
                        "steps": .array(.object(Step.keys(question: question, condition: condition))),
                        "asyncActions": AsyncActionConfiguration.arrayKeys])
    }

    /// Why the steps do not fit together, or nil: a step identifier twice, two questions with the
    /// same answer identifier, a condition on a question that is not asked before the step.
    public func stepsProblem() -> String? {
        var steps = Set<String>()
        var answers = Set<String>()
        for (i, step) in self.steps.enumerated() {
            guard steps.insert(step.identifier).inserted else { return "steps[\(i)].identifier: \(step.identifier.debugDescription) names two steps" }
            for question in step.condition?.questions ?? [] where !answers.contains(question) {
                return "steps[\(i)].enableWhen: \(question.debugDescription) is not a question asked before this step"
            }
            if step.question != nil, !answers.insert(step.answerIdentifier).inserted {
                return "steps[\(i)].identifier: the answer identifier \(step.answerIdentifier.debugDescription) is used by an earlier question"
            }
        }
        return nil
    }

    /// Decodes a task file; errors name the JSON path.
    public static func decode(_ data: Data) throws(ConfigurationError) -> TaskDefinition {
        let definition: TaskDefinition
        do {
            definition = try JSONValueDecoder().decode(TaskDefinition.self, from: data)
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
        if let problem = definition.stepsProblem() { throw ConfigurationError(problem) }
        if let url = definition.questionnaire, let problem = CanonicalURL.problem(url) {
            throw ConfigurationError("questionnaire: \(problem)")
        }
        return definition
    }
}
