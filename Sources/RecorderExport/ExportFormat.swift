/// The formats a run exports to.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One CSV per recorder in SI units (mobgap's table), a CSV of events, a README.
    case csv
    /// One MCAP file (Foxglove): a channel per device and sensor type, zstd chunks, indexed.
    case mcap
    /// SageResearch's upload archive: a zip of JSON arrays, metadata.json, info.json, taskResult.json.
    case sage

    /// The exporter of this format.
    public var exporter: any Exporter {
        switch self {
        case .csv: return CSVExporter()
        case .mcap: return MCAPExporter()
        case .sage: return SageExporter()
        }
    }
}
