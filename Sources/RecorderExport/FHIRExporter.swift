import FoundationEssentials
import Glibc
import RecorderModel

/// `fhir`: an HL7 FHIR R4 `Bundle` of type `collection` (one JSON file):
///
/// - a `Device` for recorderd and one per sensor device (its name, what it measured; `parent`
///   recorderd);
/// - a `QuestionnaireResponse` with the answers (`item.linkId` the answer's identifier, nested in
///   the groups of its step path; `questionnaire` the Questionnaire the task came from;
///   `authored` when the run finished);
/// - an `Observation` per motion recording and sensor type: category `activity`, a code of
///   recorderd's CodeSystem, `effectivePeriod`, `device`, one `component` per axis with
///   `valueSampledData` (origin 0 in the recorded UCUM unit, `period` in ms from the measured
///   rate, `dimensions` 1, `data` the values as recorded, `E` for each sample lost in a gap);
/// - Observations of the gait summaries (LOINC 55423-8 for step counts, cadence in `/min`, …);
/// - for a location recording its distance walked (in all and by step), and its fixes only when
///   the recording saved coordinates.
///
/// Entries are `urn:uuid:` full URLs derived from the run's UUID (the same run exports to the
/// same bytes); every reference points inside the Bundle. `subject` (`Patient/123`), when given,
/// is set on every resource that has one.
public struct FHIRExporter: Exporter {
    public var format: ExportFormat { .fhir }
    public var subject: String?

    public init(subject: String? = nil) {
        self.subject = subject
    }

    /// Why `reference` cannot be a FHIR reference, or nil.
    public static func referenceProblem(_ reference: String) -> String? {
        let length = reference.utf8.count
        guard (1...1024).contains(length) else { return "--subject: expected a reference of 1 to 1024 characters (Patient/123)" }
        if ControlCharacters.containsSpaceOrControl(reference) {
            return "--subject: a reference has no spaces or control characters"
        }
        guard reference.contains("/") || reference.hasPrefix("urn:") else {
            return "--subject: expected a reference such as Patient/123 or urn:uuid:…, found \(reference.debugDescription)"
        }
        return nil
    }

    public func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport {
        if let subject, let problem = Self.referenceProblem(subject) { throw .option(problem) }
        try OutputDirectory.refuseInside(output, runDirectory: run.directory)
        var report = ExportReport()
        if run.result.status == .recording {
            report.warnings.append("the run is still recording: exported up to its last complete line")
        }
        var bundle = FHIRBundleContents(run: run, subject: subject)
        for file in run.recordFiles {
            let outcome = try bundle.addRecordings(of: file)
            report.records += outcome.records
            if outcome.tornLastLine { report.warnings.append("\(file.relativePath): its last line was torn (an interrupted write) and is left out") }
        }
        bundle.addAnswers()
        bundle.addGaitMeasures()
        var encoder = JSONLinesEncoder(reservingCapacity: 1 << 20)
        bundle.write(to: &encoder)
        encoder.appendStatic("\n")
        try OutputFile.create(output, holding: encoder.bytes)
        report.files = [output]
        return report
    }
}
