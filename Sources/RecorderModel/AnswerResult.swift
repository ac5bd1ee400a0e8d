import RecorderJSON

/// One answer a step collected, in SageResearch's `RSDAnswerResult` shape: sent with
/// `step.finish` (`results`) and kept in the step's entry of `stepHistory`.
///
/// Decoding validates it: the identifier follows `RecorderIdentifier`, the value has the JSON type
/// and range its `answerType` needs (`AnswerResult.problem`), strings are bounded; errors name
/// the JSON path (`params.results[1].value: …`).
public struct AnswerResult: Sendable, Equatable, Codable {
    /// The question's identifier (a step identifier's last component, a Questionnaire item's linkId).
    public var identifier: String
    public var answerType: AnswerType
    /// A string (`string`, `date`, `choice`), a number (`integer`, `decimal`, `scale`, `choice`)
    /// or a boolean (`boolean`).
    public var value: JSONValue
    /// The unit of a number (UCUM where it comes from a Questionnaire: `mm[Hg]`, `/min`).
    public var unit: String?
    /// `choice` answers from coded options (FHIR `valueCoding`): the code system and the text
    /// shown for the code (`value` is the code).
    public var system: String?
    public var display: String?

    public init(identifier: String, answerType: AnswerType, value: JSONValue, unit: String? = nil,
                system: String? = nil, display: String? = nil) {
        self.identifier = identifier
        self.answerType = answerType
        self.value = value
        self.unit = unit
        self.system = system
        self.display = display
    }

    /// The longest string value, unit, system or display accepted, in UTF-8 bytes.
    public static let maximumStringLength = 8192
    /// The largest magnitude of an `integer` answer: integers a JSON number holds exactly.
    public static let largestInteger: Double = 9_007_199_254_740_991
    /// The most answers one `step.finish` may carry.
    public static let maximumCount = 256

    enum CodingKeys: String, CodingKey { case identifier, answerType, value, unit, system, display }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        guard RecorderIdentifier.isValid(identifier) else {
            throw DecodingError.dataCorruptedError(forKey: .identifier, in: c,
                                                   debugDescription: "expected \(RecorderIdentifier.expectation), found \(identifier.debugDescription)")
        }
        let typeName = try c.decode(String.self, forKey: .answerType)
        guard let type = AnswerType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .answerType, in: c,
                                                   debugDescription: "unknown answer type \(typeName.debugDescription); expected one of \(AnswerType.expectation)")
        }
        answerType = type
        value = try c.decode(JSONValue.self, forKey: .value)
        if let problem = Self.problem(value: value, type: type) {
            throw DecodingError.dataCorruptedError(forKey: .value, in: c, debugDescription: problem)
        }
        unit = try Self.decodeText(c, .unit)
        system = try Self.decodeText(c, .system)
        display = try Self.decodeText(c, .display)
        if unit != nil, ![.integer, .decimal, .scale].contains(type) {
            throw DecodingError.dataCorruptedError(forKey: .unit, in: c, debugDescription: "a unit belongs to a number (integer, decimal or scale), not a \(type.rawValue) answer")
        }
        if system != nil || display != nil, type != .choice {
            throw DecodingError.dataCorruptedError(forKey: system != nil ? .system : .display, in: c,
                                                   debugDescription: "system and display belong to a choice answer, not a \(type.rawValue) answer")
        }
    }

    /// An optional single-line text member, checked by `textProblem`.
    static func decodeText<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> String? {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        if let problem = Self.textProblem(text, allowingLineBreaks: false) {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: problem)
        }
        return text
    }

    /// Why `value` is not an answer of `type`, or nil when it is.
    public static func problem(value: JSONValue, type: AnswerType) -> String? {
        let expectation = "(answerType \(type.rawValue))"
        switch (type, value) {
        case (.string, .string(let s)):
            return textProblem(s, allowingLineBreaks: true)
        case (.integer, .number(let n)):
            guard n.rounded() == n, abs(n) <= largestInteger else {
                return "expected an integer of magnitude at most 2^53 - 1 \(expectation), found \(n)"
            }
            return nil
        case (.decimal, .number), (.scale, .number), (.boolean, .bool):
            return nil
        case (.date, .string(let s)):
            return AnswerDate(s) == nil ? "expected a date (yyyy-MM-dd) or an ISO-8601 date and time with a UTC offset \(expectation), found \(s.prefix(64).debugDescription)" : nil
        case (.choice, .string(let s)):
            return s.isEmpty ? "expected a choice's value \(expectation), found an empty string" : textProblem(s, allowingLineBreaks: false)
        case (.choice, .number):
            return nil
        default:
            let expected: String
            switch type {
            case .string, .date: expected = "a string"
            case .integer: expected = "an integer"
            case .decimal, .scale: expected = "a number"
            case .boolean: expected = "a boolean"
            case .choice: expected = "a string or a number"
            }
            return "expected \(expected) \(expectation), found \(value.typeName)"
        }
    }

    /// Why `text` cannot be kept in a manifest and shown on a terminal, or nil: too long, or a
    /// control character (line breaks and tabs allowed in free text).
    static func textProblem(_ text: String, allowingLineBreaks: Bool) -> String? {
        let length = text.utf8.count
        if length > maximumStringLength { return "expected at most \(maximumStringLength) bytes, found \(length)" }
        return ControlCharacters.problem(in: text, place: "the text", allowingLineBreaks: allowingLineBreaks)
    }

    /// Why a list of answers cannot be kept together, or nil: too many, or one identifier twice.
    public static func listProblem(_ answers: [AnswerResult]) -> String? {
        if answers.count > maximumCount { return "expected at most \(maximumCount) answers, found \(answers.count)" }
        var seen = Set<String>()
        for a in answers where !seen.insert(a.identifier).inserted {
            return "the identifier \(a.identifier.debugDescription) is answered twice"
        }
        return nil
    }
}
