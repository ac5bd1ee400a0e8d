import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// What a MORK export needs beyond the run: the Rave form's identifiers and which `item_oid`
/// each answer and measure fills. Read from a mapping file (`--mapping FILE`, the payload's own
/// key names) and command-line options (which win):
///
/// ```json
/// {"subject_name": "aabb99", "study_uuid": "a2c0da8c-4dfd-4ffd-b3d5-94c762086c2f",
///  "folder_oid": "SUBJECT", "form_oid": "MYFORM", "site_oid": "Site", "log_line": 1,
///  "items": {"pain": "PAIN_LEVEL", "walking.outbound/stepCount": "WALK_OUT_STEPS"},
///  "boolean": {"true": "Y", "false": "N"}}
/// ```
///
/// `subject_name`, `study_uuid`, `folder_oid`, `form_oid` and `site_oid` are required (an export
/// without one is an error, never an empty string); `log_line` defaults to 1. The payload's
/// optional keys (`record_oid`, `study_name`, `subject_uuid`, `version`, `device_id`,
/// `signature_oid`, `rave_url`) are written when given.
public struct MORKForm: Sendable, Equatable, Decodable {
    public var subjectName: String?
    public var studyUUID: String?
    public var folderOID: String?
    public var formOID: String?
    public var siteOID: String?
    public var logLine: Int?
    /// Optional payload keys, by their payload name.
    public var extras: [String: String] = [:]
    /// `item_oid` by answer identifier, or by `<step identifier>/<measure>` for gait measures.
    public var items: [String: String] = [:]
    /// How booleans are written (default `1` and `0`).
    public var trueValue = "1"
    public var falseValue = "0"

    public init() {}

    /// The optional keys of the payload.
    public static let extraKeys = ["record_oid", "study_name", "subject_uuid", "version", "device_id", "signature_oid", "rave_url"]
    /// Log lines accepted.
    public static let logLineRange = 1...999_999

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        init(_ s: String) { stringValue = s }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func text(_ name: String) throws -> String? {
            guard let value = try c.decodeIfPresent(String.self, forKey: Key(name)) else { return nil }
            if let problem = Self.identifierProblem(value) { throw DecodingError.dataCorruptedError(forKey: Key(name), in: c, debugDescription: problem) }
            return value
        }
        subjectName = try text("subject_name")
        studyUUID = try text("study_uuid")
        folderOID = try text("folder_oid")
        formOID = try text("form_oid")
        siteOID = try text("site_oid")
        logLine = try c.decodeIfPresent(Int.self, forKey: Key("log_line"), in: Self.logLineRange, "a log line")
        for key in Self.extraKeys { if let v = try text(key) { extras[key] = v } }
        if let items = try c.decodeIfPresent([String: String].self, forKey: Key("items")) {
            for (k, v) in items {
                if let problem = Self.identifierProblem(v) {
                    throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [Key("items"), Key(k)], debugDescription: problem))
                }
            }
            self.items = items
        }
        if let booleans = try c.decodeIfPresent([String: String].self, forKey: Key("boolean")) {
            trueValue = booleans["true"] ?? trueValue
            falseValue = booleans["false"] ?? falseValue
        }
        let known = Set(["subject_name", "study_uuid", "folder_oid", "form_oid", "site_oid", "log_line", "items", "boolean"] + Self.extraKeys)
        if let unknown = c.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [Key(unknown)], debugDescription: "unknown key; expected one of \(known.sorted().joined(separator: ", "))"))
        }
    }

    /// Reads a mapping file; errors name the file and the JSON path.
    public static func load(_ path: String) throws(ExportError) -> MORKForm {
        guard let data = FileManager.default.contents(atPath: path) else { throw .option("--mapping: cannot read \(path)") }
        guard data.count <= 1 << 20 else { throw .option("--mapping: \(path) is larger than 1 MiB") }
        do {
            return try JSONValueDecoder().decode(MORKForm.self, from: data)
        } catch {
            throw .option("--mapping: \(path): \(DecodingErrorDescription.describe(error))")
        }
    }

    /// Why `value` cannot be a Rave identifier, or nil: empty, over 256 bytes, control characters.
    public static func identifierProblem(_ value: String) -> String? {
        if value.isEmpty { return "expected an identifier, found an empty string" }
        if value.utf8.count > 256 { return "expected at most 256 bytes" }
        if let problem = ControlCharacters.problem(in: value, place: "the identifier") { return problem }
        return nil
    }

    /// The form's identifiers, each present; an error names every missing one.
    func required() throws(ExportError) -> (subject: String, study: String, folder: String, form: String, site: String) {
        let pairs: [(String, String?)] = [("subject_name", subjectName), ("study_uuid", studyUUID), ("folder_oid", folderOID),
                                          ("form_oid", formOID), ("site_oid", siteOID)]
        let missing = pairs.filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty else {
            throw .option("MORK needs \(missing.joined(separator: ", ")): give --\(missing[0].replacing("_", with: "-")) or put them in --mapping FILE")
        }
        for (name, value) in pairs {
            if let problem = Self.identifierProblem(value!) { throw .option("\(name): \(problem)") }
        }
        guard UUID(uuidString: studyUUID!) != nil else { throw .option("study_uuid: expected a UUID, found \(studyUUID!.debugDescription)") }
        return (subjectName!, studyUUID!, folderOID!, formOID!, siteOID!)
    }
}
