import FoundationEssentials
import Glibc
import RecorderJSON

/// When a step of a task file is shown (FHIR Questionnaire `enableWhen`): a comparison with the
/// answer of an earlier question, or all / any of several conditions.
///
/// In a task file: `{"question": "fell", "operator": "=", "answer": true}`,
/// `{"question": "pain", "operator": "exists", "answer": true}`, `{"all": [...]}`,
/// `{"any": [...]}`. A question that was not answered (skipped, optional) makes every comparison
/// false except `exists` with `false`.
public indirect enum StepCondition: Sendable, Equatable {
    /// FHIR's enableWhen operators.
    public enum Operator: String, Sendable, Codable, CaseIterable {
        case exists
        case equal = "="
        case notEqual = "!="
        case greater = ">"
        case less = "<"
        case greaterOrEqual = ">="
        case lessOrEqual = "<="
    }

    /// `question`: the identifier of the earlier answer; `answer`: the value compared with (a
    /// boolean for `exists`); `system`: for coded choices, the code system that must match too.
    case answer(question: String, operator: Operator, answer: JSONValue, system: String?)
    case all([StepCondition])
    case any([StepCondition])

    /// Whether the step is shown, given the answers so far (by identifier).
    public func isMet(by answers: [String: AnswerResult]) -> Bool {
        switch self {
        case .all(let conditions): return conditions.allSatisfy { $0.isMet(by: answers) }
        case .any(let conditions): return conditions.contains { $0.isMet(by: answers) }
        case let .answer(question, op, expected, system):
            guard let given = answers[question] else { return op == .exists && expected == .bool(false) }
            if let system, given.system != system { return op == .notEqual }
            switch op {
            case .exists: return expected == .bool(true)
            case .equal: return Self.compare(given, expected) == .orderedSame
            case .notEqual: return Self.compare(given, expected) != .orderedSame
            case .greater: return Self.compare(given, expected) == .orderedDescending
            case .less: return Self.compare(given, expected) == .orderedAscending
            case .greaterOrEqual: return [.orderedDescending, .orderedSame].contains(Self.compare(given, expected))
            case .lessOrEqual: return [.orderedAscending, .orderedSame].contains(Self.compare(given, expected))
            }
        }
    }

    /// How `given` compares with `expected`: numbers by value, dates in time, strings and
    /// booleans only for equality; nil when they cannot be compared.
    static func compare(_ given: AnswerResult, _ expected: JSONValue) -> ComparisonResult? {
        switch (given.value, expected) {
        case let (.number(a), .number(b)):
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case let (.string(a), .string(b)):
            if given.answerType == .date, let x = AnswerDate.instant(a), let y = AnswerDate.instant(b) {
                return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
            }
            return a == b ? .orderedSame : nil
        case let (.bool(a), .bool(b)):
            return a == b ? .orderedSame : nil
        default:
            return nil
        }
    }

    /// The identifiers of the answers the condition reads.
    public var questions: [String] {
        switch self {
        case .answer(let q, _, _, _): return [q]
        case .all(let c), .any(let c): return c.flatMap(\.questions)
        }
    }
}

extension StepCondition: Codable {
    enum CodingKeys: String, CodingKey { case question, `operator`, answer, system, all, any }

    /// The deepest nesting of all / any accepted.
    public static let maximumDepth = 8

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if decoder.codingPath.count > 4 * Self.maximumDepth + 8 {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "conditions nested too deeply"))
        }
        if c.contains(.all) {
            self = .all(try c.decode([StepCondition].self, forKey: .all))
        } else if c.contains(.any) {
            self = .any(try c.decode([StepCondition].self, forKey: .any))
        } else {
            let question = try c.decode(String.self, forKey: .question)
            guard RecorderIdentifier.isValid(question) else {
                throw DecodingError.dataCorruptedError(forKey: .question, in: c, debugDescription: "expected the identifier of an earlier question, \(RecorderIdentifier.expectation)")
            }
            let name = try c.decode(String.self, forKey: .operator)
            guard let op = Operator(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .operator, in: c,
                                                       debugDescription: "unknown operator \(name.debugDescription); expected one of \(Operator.allCases.map(\.rawValue).joined(separator: " "))")
            }
            let answer = try c.decode(JSONValue.self, forKey: .answer)
            if let problem = Self.comparisonProblem(op, answer) {
                throw DecodingError.dataCorruptedError(forKey: .answer, in: c, debugDescription: problem)
            }
            self = .answer(question: question, operator: op, answer: answer, system: try AnswerResult.decodeText(c, .system))
        }
    }

    /// Why `op` cannot compare an answer with `answer`, or nil: `exists` takes a boolean, the
    /// orderings a number or a date, `=` and `!=` a boolean, number or string.
    public static func comparisonProblem(_ op: Operator, _ answer: JSONValue) -> String? {
        switch (op, answer) {
        case (.exists, .bool), (.equal, .bool), (.notEqual, .bool):
            return nil
        case (.exists, _):
            return "exists compares with true or false"
        case (_, .number), (.equal, .string), (.notEqual, .string):
            return nil
        case (_, .string(let s)) where AnswerDate(s) != nil:
            return nil
        default:
            return "operator \(op.rawValue) cannot compare with \(answer.typeName)"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .all(let conditions): try c.encode(conditions, forKey: .all)
        case .any(let conditions): try c.encode(conditions, forKey: .any)
        case let .answer(question, op, answer, system):
            try c.encode(question, forKey: .question)
            try c.encode(op, forKey: .operator)
            try c.encode(answer, forKey: .answer)
            try c.encodeIfPresent(system, forKey: .system)
        }
    }
}

extension AnswerDate {
    /// The instant a date answer names (a calendar date: its start in UTC), for comparisons.
    static func instant(_ text: String) -> Date? {
        guard let date = AnswerDate(text) else { return nil }
        return date.hasTime ? ISO8601Timestamp.date(from: text) : ISO8601Timestamp.date(from: text + "T00:00:00Z")
    }
}
