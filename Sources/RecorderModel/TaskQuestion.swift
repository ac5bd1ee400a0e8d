import RecorderJSON

/// A question step of a task file (`"question": {…}`): what `recorderctl run` asks, how it checks
/// the answer, and the `AnswerResult` it sends with `step.finish`.
public struct TaskQuestion: Sendable, Codable, Equatable {
    /// One choice of a `choice` question: the text shown and the value sent. A task file may give
    /// a plain string (shown and sent as is) or `{"text", "value", "system"?}`; a `system` makes
    /// the value a code of that code system (FHIR `valueCoding`).
    public struct Choice: Sendable, Codable, Equatable {
        public var text: String
        /// A string or a number.
        public var value: JSONValue
        public var system: String?

        public init(text: String, value: JSONValue, system: String? = nil) {
            self.text = text
            self.value = value
            self.system = system
        }

        enum CodingKeys: String, CodingKey { case text, value, system }

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
                if let problem = AnswerResult.problem(value: .string(text), type: .choice) {
                    throw DecodingError.dataCorruptedError(in: single, debugDescription: problem)
                }
                self.init(text: text, value: .string(text))
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let text = try c.decode(String.self, forKey: .text)
            if let problem = AnswerResult.textProblem(text, allowingLineBreaks: false) {
                throw DecodingError.dataCorruptedError(forKey: .text, in: c, debugDescription: problem)
            }
            let value = try c.decode(JSONValue.self, forKey: .value)
            if let problem = AnswerResult.problem(value: value, type: .choice) {
                throw DecodingError.dataCorruptedError(forKey: .value, in: c, debugDescription: problem)
            }
            self.init(text: text, value: value, system: try AnswerResult.decodeText(c, .system))
        }
    }

    public var answerType: AnswerType
    /// The choices of a `choice` question (1 to `maximumChoices`, values distinct).
    public var choices: [Choice]?
    /// Bounds of a number (`integer`, `decimal`, `scale`); a scale needs both.
    public var min: Double?
    public var max: Double?
    /// The unit of a number, sent with the answer.
    public var unit: String?
    /// True: an empty answer skips the question.
    public var optional: Bool?

    public init(answerType: AnswerType, choices: [Choice]? = nil, min: Double? = nil, max: Double? = nil,
                unit: String? = nil, optional: Bool? = nil) {
        self.answerType = answerType
        self.choices = choices
        self.min = min
        self.max = max
        self.unit = unit
        self.optional = optional
    }

    /// The most choices a question may offer.
    public static let maximumChoices = 100
    /// Bounds a task file may give.
    public static let boundRange = NumberRange(atLeast: -1e15, atMost: 1e15, "a bound")

    enum CodingKeys: String, CodingKey { case answerType, choices, min, max, unit, optional }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let typeName = try c.decode(String.self, forKey: .answerType)
        guard let type = AnswerType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .answerType, in: c,
                                                   debugDescription: "unknown answer type \(typeName.debugDescription); expected one of \(AnswerType.expectation)")
        }
        answerType = type
        choices = try c.decodeIfPresent([Choice].self, forKey: .choices)
        min = try c.decodeIfPresent(Double.self, forKey: .min, in: Self.boundRange)
        max = try c.decodeIfPresent(Double.self, forKey: .max, in: Self.boundRange)
        unit = try AnswerResult.decodeText(c, .unit)
        optional = try c.decodeIfPresent(Bool.self, forKey: .optional)
        if let (key, message) = problem() {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: message)
        }
    }

    /// Why the question cannot be asked, and the member at fault, or nil: what a task file's
    /// question and one made from a FHIR Questionnaire item must both satisfy.
    func problem() -> (CodingKeys, String)? {
        let type = answerType
        for (key, bound) in [(CodingKeys.min, min), (.max, max)] {
            if let bound, !Self.boundRange.contains(bound) { return (key, Self.boundRange.description) }
        }
        if let unit, let problem = AnswerResult.textProblem(unit, allowingLineBreaks: false) { return (.unit, problem) }
        if type == .choice {
            guard let choices, (1...Self.maximumChoices).contains(choices.count) else {
                return (.choices, "a choice question needs 1 to \(Self.maximumChoices) choices")
            }
            for choice in choices {
                if let problem = AnswerResult.textProblem(choice.text, allowingLineBreaks: false) ?? AnswerResult.problem(value: choice.value, type: .choice)
                    ?? choice.system.flatMap({ AnswerResult.textProblem($0, allowingLineBreaks: false) }) {
                    return (.choices, problem)
                }
            }
            if Set(choices.map(\.value)).count != choices.count { return (.choices, "two choices have the same value") }
        } else if choices != nil {
            return (.choices, "choices belong to a choice question, not a \(type.rawValue) question")
        }
        if ![AnswerType.integer, .decimal, .scale].contains(type), min != nil || max != nil || unit != nil {
            return (min != nil ? .min : max != nil ? .max : .unit,
                    "min, max and unit belong to a number (integer, decimal or scale), not a \(type.rawValue) question")
        }
        if type == .scale, min == nil || max == nil { return (min == nil ? .min : .max, "a scale needs min and max") }
        if let min, let max, min > max { return (.max, "expected max >= min (\(NumberRange.format(min)))") }
        if type == .integer || type == .scale, [min, max].contains(where: { $0.map { $0.rounded() != $0 } ?? false }) {
            return (.min, "the bounds of an \(type.rawValue) question are whole numbers")
        }
        return nil
    }

    /// Why the question cannot be asked (`min: a scale needs min and max`), or nil.
    public var problemDescription: String? {
        problem().map { "\($0.0.stringValue): \($0.1)" }
    }

    /// True when an empty answer skips the question.
    public var isOptional: Bool { optional ?? false }
}
