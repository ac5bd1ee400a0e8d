/// Writes a run in one format. Each format is a type of its own; all read the run's JSON-lines
/// files as a stream (`RecordFileReader`), so memory stays flat whatever the run's size.
public protocol Exporter: Sendable {
    /// The format written.
    var format: ExportFormat { get }
    /// Writes `run` to `output` (a new file or directory, never inside the run directory).
    func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport
}
