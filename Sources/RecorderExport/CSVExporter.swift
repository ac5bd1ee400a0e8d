import FoundationEssentials
import Glibc
import RecorderModel

/// `csv`: a directory with one CSV per recorder in SI units — motion as mobgap reads it (`time`
/// in seconds, `acc_x…` in m/s², `gyr_x…` in deg/s, `mag_x…` in µT, one row per sample), location,
/// sound levels and gait events each their own table — a `<identifier>.events.csv` with each
/// recorder's step markers, gaps and errors, and a `README.md` naming every column's unit.
///
/// `time` is seconds from the run's earliest uptime; `uptime` is the record's own (CLOCK_MONOTONIC)
/// so that rows join across files exactly.
public struct CSVExporter: Exporter {
    public var format: ExportFormat { .csv }

    public init() {}

    public func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport {
        try OutputDirectory.create(output, outside: run.directory)
        var report = ExportReport()
        var readme = "# \(run.result.taskIdentifier) \(run.result.taskRunUUID)\n\n"
        readme += "Exported by recorderd \(RecorderVersion.string) from run \(run.result.taskRunUUID) (status \(run.result.status.rawValue)).\n"
        readme += "`time`: seconds from the run's first uptime (\(run.startUptime)); `uptime`: CLOCK_MONOTONIC seconds of the sample; "
        readme += "`stepPath`: the task step the sample was measured in. Empty cells: no value.\n"
        if run.result.status == .recording {
            report.warnings.append("the run is still recording: exported up to its last complete line")
        }
        for file in run.recordFiles {
            let layout = CSVLayout(units: file.units, schema: run.schema)
            let table = output + "/" + file.identifier + ".csv"
            let eventsPath = output + "/" + file.identifier + ".events.csv"
            var writer = try CSVTableWriter(path: table, layout: layout, zero: run.startUptime)
            var events: OutputFile?
            let outcome = try run.reader(of: file).forEachPrefetched { (record) throws(ExportError) in
                if layout.isRow(record) {
                    try writer.add(record)
                } else {
                    if events == nil {
                        events = try OutputFile(path: eventsPath)
                        try events!.append(CSVTableWriter.eventHeader(run.schema))
                    }
                    try events!.append(CSVTableWriter.eventLine(record, zero: run.startUptime, schema: run.schema))
                }
            }
            try writer.close()
            try events?.close()
            report.records += outcome.records
            report.files.append(table)
            if events != nil { report.files.append(eventsPath) }
            if outcome.tornLastLine {
                report.warnings.append("\(file.relativePath): its last line was torn (an interrupted write) and is left out")
            }
            readme += "\n## \(file.identifier).csv (from \(file.relativePath), \(writer.rows) rows)\n\n| column | unit |\n| --- | --- |\n"
            readme += "| time | s |\n| uptime | s |\n| stepPath | |\n"
            for column in layout.columns { readme += "| \(column.name) | \(column.unit) |\n" }
            if events != nil { readme += "\nMarkers (step changes), gaps and errors: \(file.identifier).events.csv.\n" }
        }
        let readmeFile = try OutputFile(path: output + "/README.md")
        try readmeFile.append(readme)
        try readmeFile.close()
        report.files.append(output + "/README.md")
        return report
    }
}
