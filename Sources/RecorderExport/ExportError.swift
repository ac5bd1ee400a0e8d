/// Why an export failed: each a clear message; the run's files are never changed.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory is not a run: no readable, decodable `taskResult.json`.
    case notARun(String)
    /// The manifest names a file outside the run directory or that cannot be read.
    case badFile(String)
    /// A line in the middle of a file is not a record (not a torn last line).
    case malformedLine(file: String, line: Int, message: String)
    /// The output cannot be written (exists, inside the run, disk full).
    case output(String)
    /// A format recorderd does not export.
    case unknownFormat(String)
    /// An option the format needs is missing or malformed (a MORK form identifier, a FHIR subject).
    case option(String)

    public var description: String {
        switch self {
        case .notARun(let m), .badFile(let m), .output(let m), .option(let m): return m
        case .malformedLine(let file, let line, let message): return "\(file):\(line): not a record: \(message)"
        case .unknownFormat(let name):
            return "unknown format \(name.debugDescription): expected one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))"
        }
    }
}
