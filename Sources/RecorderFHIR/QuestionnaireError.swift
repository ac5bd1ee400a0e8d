/// Why a FHIR Questionnaire cannot become a task: names the item (`linkId`) or the JSON path.
public struct QuestionnaireError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }

    static func item(_ linkId: String, _ problem: String) -> QuestionnaireError {
        QuestionnaireError("item \(linkId.debugDescription): \(problem)")
    }
}
