/// What an export wrote.
public struct ExportReport: Sendable, Equatable {
    /// Paths written (absolute or as given).
    public var files: [String] = []
    /// Records read from the run's files.
    public var records = 0
    /// What the reader should know: a torn last line skipped, a run still recording.
    public var warnings: [String] = []

    public init() {}
}
