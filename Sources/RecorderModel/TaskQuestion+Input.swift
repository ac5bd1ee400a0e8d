import FoundationEssentials
import Glibc
import RecorderJSON

/// Reading an answer typed by a participant: the one place where terminal text becomes an
/// `AnswerResult`, so that every front end checks answers the same way.
extension TaskQuestion {
    /// The answer `text` gives (surrounding spaces ignored), nil when the question is optional and
    /// `text` is empty, or a sentence saying what is expected (to show before asking again).
    ///
    /// Integers and scales take whole numbers, decimals any number, both within `min`…`max`;
    /// booleans `yes`/`no`/`y`/`n`/`true`/`false`; dates `yyyy-MM-dd`; choices the number of a
    /// choice (1-based), its text or its value.
    public func answer(from text: String, identifier: String) -> Result<AnswerResult?, AnswerInputProblem> {
        let input = text.trimmingWhitespace()
        if input.isEmpty {
            return isOptional ? .success(nil) : .failure(AnswerInputProblem("an answer is required"))
        }
        func made(_ value: JSONValue, unit: String? = nil, system: String? = nil, display: String? = nil) -> Result<AnswerResult?, AnswerInputProblem> {
            .success(AnswerResult(identifier: identifier, answerType: answerType, value: value, unit: unit, system: system, display: display))
        }
        switch answerType {
        case .string:
            if let problem = AnswerResult.problem(value: .string(input), type: .string) { return .failure(AnswerInputProblem(problem)) }
            return made(.string(input))
        case .integer, .scale, .decimal:
            guard let number = Double(input), number.isFinite, input.allSatisfy({ "0123456789+-.eE".contains($0) }) else {
                return .failure(AnswerInputProblem("expected \(answerType == .decimal ? "a number" : "a whole number")\(boundsText)"))
            }
            if answerType != .decimal, number.rounded() != number || abs(number) > AnswerResult.largestInteger {
                return .failure(AnswerInputProblem("expected a whole number\(boundsText)"))
            }
            if let min, number < min { return .failure(AnswerInputProblem("expected a number\(boundsText)")) }
            if let max, number > max { return .failure(AnswerInputProblem("expected a number\(boundsText)")) }
            return made(.number(number), unit: unit)
        case .boolean:
            switch input.lowercased() {
            case "y", "yes", "true": return made(.bool(true))
            case "n", "no", "false": return made(.bool(false))
            default: return .failure(AnswerInputProblem("expected yes or no"))
            }
        case .date:
            guard AnswerDate(input) != nil else { return .failure(AnswerInputProblem("expected a date as yyyy-MM-dd")) }
            return made(.string(input))
        case .choice:
            let options = choices ?? []
            let picked: Choice?
            if let n = Int(input), (1...options.count).contains(n) {
                picked = options[n - 1]
            } else {
                picked = options.first { $0.text.lowercased() == input.lowercased() || $0.value.plainText == input }
            }
            guard let picked else { return .failure(AnswerInputProblem("expected the number of a choice (1 to \(options.count))")) }
            return made(picked.value, system: picked.system, display: picked.system == nil ? nil : picked.text)
        }
    }

    var boundsText: String {
        switch (min, max) {
        case let (min?, max?): return " from \(NumberRange.format(min)) to \(NumberRange.format(max))"
        case let (min?, nil): return " of at least \(NumberRange.format(min))"
        case let (nil, max?): return " of at most \(NumberRange.format(max))"
        case (nil, nil): return ""
        }
    }
}

/// Why typed text is not an answer: shown to the participant, who is asked again.
public struct AnswerInputProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// A string as is, a number without a needless `.0`; nil for other values.
    public var plainText: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return NumberRange.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }
}
