/// Why a time service's answer could not be read, or the service not asked.
public struct TimeServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    /// At most 120 characters of `text` from outside, quoted, for a message.
    static func excerpt(_ text: String) -> String {
        let cut = text.count > 120 ? String(text.prefix(120)) + "…" : text
        return cut.debugDescription
    }
}
