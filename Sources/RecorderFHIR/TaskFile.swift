import Foundation
import RecorderJSON
import RecorderModel

/// A task file (`{identifier, steps, asyncActions}`) or an HL7 FHIR R4 Questionnaire read as a
/// task definition: what `recorderctl run` and the web page's Tasks page read.
public enum TaskFile {
    /// The largest task file read.
    public static let maximumSize = 16 << 20

    /// Reads a task file or a FHIR Questionnaire.
    public static func load(_ path: String) throws(TaskFileError) -> TaskDefinition {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        return try decode(data, path: path)
    }

    /// Decodes a task file's bytes (`path` names it in errors).
    public static func decode(_ data: Data, path: String) throws(TaskFileError) -> TaskDefinition {
        guard data.count <= maximumSize else { throw .invalid(path, "larger than \(maximumSize >> 20) MiB") }
        if let value = try? JSONParser.parse(data), QuestionnaireConverter.isQuestionnaire(value) {
            do {
                return try QuestionnaireConverter.taskDefinition(from: value)
            } catch {
                throw .invalid(path, "Questionnaire: \(error.description)")
            }
        }
        do {
            return try TaskDefinition.decode(data)
        } catch {
            throw .invalid(path, error.message)
        }
    }

    /// The keys of a task file recorderd ignores (SageResearch files carry keys recorderd does
    /// not read, so they are not errors, but a typo among them would go unseen).
    public static func ignoredKeys(_ data: Data) -> [String] {
        guard let value = try? JSONParser.parse(data), !QuestionnaireConverter.isQuestionnaire(value) else { return [] }
        return TaskDefinition.keys.unknownKeys(in: value, path: "")
    }
}

/// Why a task file cannot be used.
public enum TaskFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It does not exist or cannot be read.
    case unreadable(String)
    /// It is not a task definition: the path and the reason.
    case invalid(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): return "cannot read \(path)"
        case .invalid(let path, let why): return "\(path): \(why)"
        }
    }
}
