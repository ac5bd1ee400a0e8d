import Foundation

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

        public init(identifier: String, title: String? = nil, text: String? = nil, duration: Double? = nil) {
            self.identifier = identifier
            self.title = title
            self.text = text
            self.duration = duration
        }
    }

    public var identifier: String
    public var steps: [Step]
    public var asyncActions: [AsyncActionConfiguration]

    public init(identifier: String, steps: [Step], asyncActions: [AsyncActionConfiguration]) {
        self.identifier = identifier
        self.steps = steps
        self.asyncActions = asyncActions
    }

    /// Decodes a task file; errors name the JSON path.
    public static func decode(_ data: Data) throws(ConfigurationError) -> TaskDefinition {
        do {
            return try JSONDecoder().decode(TaskDefinition.self, from: data)
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
    }
}
