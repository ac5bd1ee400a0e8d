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

        /// Step durations a task file may give.
        public static let durationRange = NumberRange(atLeast: 0, atMost: 86_400, "seconds")

        enum CodingKeys: String, CodingKey { case identifier, title, text, duration }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try c.decode(String.self, forKey: .identifier)
            if let problem = StepPath.problem(identifier) {
                throw DecodingError.dataCorruptedError(forKey: .identifier, in: c, debugDescription: problem)
            }
            title = try c.decodeIfPresent(String.self, forKey: .title)
            text = try c.decodeIfPresent(String.self, forKey: .text)
            duration = try c.decodeIfPresent(Double.self, forKey: .duration, in: Self.durationRange)
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

    /// The keys of a task file; keys not among them are ignored (`recorderctl run --verbose`
    /// lists them).
    public static var keys: ConfigurationKeys {
        .object(["identifier": .any, "steps": .array(.keys(["identifier", "title", "text", "duration"])),
                 "asyncActions": AsyncActionConfiguration.arrayKeys])
    }

    /// Decodes a task file; errors name the JSON path.
    public static func decode(_ data: Data) throws(ConfigurationError) -> TaskDefinition {
        do {
            return try JSONValueDecoder().decode(TaskDefinition.self, from: data)
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
    }
}
