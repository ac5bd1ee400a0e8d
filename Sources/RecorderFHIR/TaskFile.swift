import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// A task file (`{identifier, steps, asyncActions}`), a SageResearch task composed of sections
/// and included files (`TaskComposer`), or an HL7 FHIR R4 Questionnaire read as a task
/// definition: what `recorderctl run` and the web page's Tasks page read.
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
        if let value = try? JSONParser.parse(data) {
            if QuestionnaireConverter.isQuestionnaire(value) {
                do {
                    return try QuestionnaireConverter.taskDefinition(from: value)
                } catch {
                    throw .invalid(path, "Questionnaire: \(error.description)")
                }
            }
            if TaskComposer.isComposed(value) {
                do {
                    return try TaskComposer.compose(value, file: path, load: include)
                } catch {
                    throw .invalid(path, error.message)
                }
            }
        }
        do {
            return try TaskDefinition.decode(data)
        } catch {
            throw .invalid(path, error.message)
        }
    }

    /// A file a transform step includes: `name` beside `includingFile`.
    static func include(_ name: String, from includingFile: String) throws(ConfigurationError) -> (value: JSONValue, file: String) {
        let directory = includingFile.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let file = includingFile.hasPrefix("/") && directory.isEmpty ? "/" + name : (directory.isEmpty ? name : directory + "/" + name)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("cannot read \(file) (included by \(includingFile))")
        }
        guard data.count <= maximumSize else { throw ConfigurationError("\(file) (included by \(includingFile)): larger than \(maximumSize >> 20) MiB") }
        do {
            return (try JSONParser.parse(data), file)
        } catch {
            throw ConfigurationError("\(file) (included by \(includingFile)): \(DecodingErrorDescription.describe(error))")
        }
    }

    /// The keys of a task file recorderd ignores (SageResearch files carry keys recorderd does
    /// not read, so they are not errors, but a typo among them would go unseen); for a composed
    /// task, those of the file itself (its sections' and transforms' keys known), not of the
    /// files it includes.
    public static func ignoredKeys(_ data: Data) -> [String] {
        guard let value = try? JSONParser.parse(data), !QuestionnaireConverter.isQuestionnaire(value) else { return [] }
        return (TaskComposer.isComposed(value) ? TaskComposer.keys : TaskDefinition.keys).unknownKeys(in: value, path: "")
    }

    /// The steps of `definition` whose `type` recorderd does not know: they run as instructions
    /// (`recorderctl run --verbose` lists them).
    public static func unknownStepTypes(_ definition: TaskDefinition) -> [String] {
        definition.steps.filter { !$0.hasKnownType }.map { "\($0.identifier): type \(($0.type ?? "").debugDescription) runs as an instruction" }
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
