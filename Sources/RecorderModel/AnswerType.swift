/// The kinds of answer a step can collect (SageResearch's answer types, as `RSDAnswerResult`
/// names them in `answerType`).
public enum AnswerType: String, Sendable, Codable, CaseIterable {
    /// Text.
    case string
    /// A whole number (exactly representable: |value| <= 2^53 - 1).
    case integer
    /// A number.
    case decimal
    /// Yes or no.
    case boolean
    /// A calendar date (`yyyy-MM-dd`) or an ISO-8601 date and time with a UTC offset.
    case date
    /// One of a question's choices: its value (a string or a number).
    case choice
    /// A number on a scale (a pain scale from 0 to 10).
    case scale

    /// The answer types, for error messages.
    public static let expectation = allCases.map(\.rawValue).joined(separator: ", ")
}
