import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// `mork`: the Patient Cloud Gateway payload that Medidata's MORK builds from a ResearchKit task
/// result, for Rave — one JSON object `{"form_data": {…}}` with the form's identifiers
/// (`MORKForm`), `signature_date_time_entered` (the run's end) and `field_data`: one
/// `{data_value, item_oid, date_time_entered}` per answer (item_oid: the answer's identifier, or
/// the mapping's) and per gait measure (item_oid `<STEP>_<MEASURE>`, e.g.
/// `WALKING_OUTBOUND_STEPCOUNT`, or the mapping's). Values are strings as MORK writes them
/// (numbers in decimal, choices their value, dates `yyyy-MM-dd'T'HH:mm:ss`); every date is UTC.
public struct MORKExporter: Exporter {
    public var format: ExportFormat { .mork }
    public var form: MORKForm

    public init(form: MORKForm) {
        self.form = form
    }

    public func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport {
        let ids = try form.required()
        try OutputDirectory.refuseInside(output, runDirectory: run.directory)
        var report = ExportReport()
        if run.result.status != .finished {
            report.warnings.append("the run is \(run.result.status.rawValue), not finished: its answers and measures so far are exported")
        }
        var fields: [FHIRJSON] = []
        for step in run.result.stepHistory {
            let entered = Self.date(step.endDate ?? step.startDate)
            for answer in step.results ?? [] {
                fields.append(Self.field(value: value(answer), item: form.items[answer.identifier] ?? answer.identifier, entered: entered))
            }
        }
        for measure in GaitMeasure.all(in: run.result) {
            let key = "\(measure.stepIdentifier)/\(measure.key)"
            let step = run.result.stepHistory.last { $0.stepPath == measure.summary.stepPath }
            let entered = Self.date(step?.endDate ?? run.result.endDate ?? run.result.startDate)
            fields.append(Self.field(value: Self.decimal(measure.value), item: form.items[key] ?? Self.defaultItemOID(measure), entered: entered))
        }
        report.records = fields.count
        var members: [(String, FHIRJSON?)] = [
            ("subject_name", .string(ids.subject)),
            ("study_uuid", .string(ids.study)),
            ("folder_oid", .string(ids.folder)),
            ("form_oid", .string(ids.form)),
            ("site_oid", .string(ids.site)),
            ("log_line", .integer(form.logLine ?? 1)),
            ("signature_date_time_entered", .string(Self.date(run.result.endDate ?? run.result.startDate))),
            ("field_data", .array(fields)),
        ]
        for key in MORKForm.extraKeys { members.append((key, form.extras[key].map { .string($0) })) }
        var encoder = JSONLinesEncoder()
        FHIRJSON.object([("form_data", FHIRJSON.members(members))]).write(to: &encoder)
        encoder.appendStatic("\n")
        try OutputFile.create(output, holding: encoder.bytes)
        report.files = [output]
        return report
    }

    static func field(value: String, item: String, entered: String) -> FHIRJSON {
        .object([("data_value", .string(value)), ("item_oid", .string(item)), ("date_time_entered", .string(entered))])
    }

    /// `WALKING_OUTBOUND_STEPCOUNT`: the step identifier and the measure, upper case, anything
    /// but letters and digits an underscore.
    static func defaultItemOID(_ measure: GaitMeasure) -> String {
        String(String((measure.stepIdentifier + "_" + measure.key).uppercased()).unicodeScalars.map { scalar -> Character in
            ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
        })
    }

    /// An answer's `data_value`.
    func value(_ answer: AnswerResult) -> String {
        switch answer.value {
        case .bool(let b): return b ? form.trueValue : form.falseValue
        case .string(let s) where answer.answerType == .date:
            guard let date = AnswerDate(s) else { return s }
            if !date.hasTime { return s + "T00:00:00" }
            return ISO8601Timestamp.date(from: s).map(Self.date) ?? s
        case .number(let n): return Self.decimal(n)
        default: return answer.value.plainText ?? ""
        }
    }

    /// A number as Rave reads it: whole numbers without a point, others to 3 decimals.
    static func decimal(_ n: Double) -> String {
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        let rounded = (n * 1000).rounded() / 1000
        return rounded.rounded() == rounded ? String(Int64(rounded)) : "\(rounded)"
    }

    /// `yyyy-MM-dd'T'HH:mm:ss` in UTC.
    static func date(_ date: Date) -> String {
        String(ISO8601Timestamp.string(from: date).prefix(19))
    }
}
