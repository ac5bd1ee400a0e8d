/// The formats a run exports to.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One CSV per recorder in SI units (mobgap's table), a CSV of events, a README.
    case csv

    /// The exporter of this format.
    public var exporter: any Exporter {
        switch self {
        case .csv: return CSVExporter()
        }
    }
}
