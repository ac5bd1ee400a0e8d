/// The formats a run exports to.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One CSV per recorder in SI units (mobgap's table), a CSV of events, a README.
    case csv
    /// One MCAP file (Foxglove): a channel per device and sensor type, zstd chunks, indexed.
    case mcap
    /// SageResearch's upload archive: a zip of JSON arrays, metadata.json, info.json, taskResult.json.
    case sage
    /// An HL7 FHIR R4 Bundle (collection): Devices, the QuestionnaireResponse, Observations.
    case fhir
    /// Medidata Patient Cloud Gateway's `form_data` payload (as MORK writes it).
    case mork

    /// The exporter of this format with its default options (MORK needs its form identifiers:
    /// `MORKExporter(form:)`).
    public var exporter: any Exporter {
        switch self {
        case .csv: return CSVExporter()
        case .mcap: return MCAPExporter()
        case .sage: return SageExporter()
        case .fhir: return FHIRExporter()
        case .mork: return MORKExporter(form: MORKForm())
        }
    }

    /// The default output's extension.
    public var fileExtension: String {
        switch self {
        case .csv, .mcap, .sage: return rawValue
        case .fhir: return "fhir.json"
        case .mork: return "mork.json"
        }
    }
}
