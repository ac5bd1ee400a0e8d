/// A file a person wrote (recorderd.json, a task file, a device entry) that cannot be used; the
/// message names the JSON path.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
