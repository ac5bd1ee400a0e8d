import RecorderExport
import RecorderModel
import RecorderProtocol

/// What `run.mustache` shows: a run's status, times, downloads, plot, steps with their answers
/// and measures, and recordings.
struct RunView {
    struct Format {
        let format: String
    }

    /// An answer, a measure's headline or a recorder's error, after its identifier.
    struct Labelled {
        let identifier: String
        let text: String
    }

    struct Step {
        let path: String
        let name: String
        let length: String
        let answers: [Labelled]
        let measures: [Labelled]
    }

    struct File {
        let identifier: String
        let path: String
        let records: Int
        let span: String
        let lost: Int?
        let gaps: Int
    }

    // The summary's values under `run`: a file's `lost` (nil when none were) would otherwise
    // find the run's (a template looks a name up in the enclosing values when an inner one lacks
    // it or holds nil).
    let run: RunRow
    let formats: [Format]
    let steps: [Step]
    let files: [File]
    let errors: [Labelled]
    let recording: Bool

    init(_ details: RunDetails, formats: [ExportFormat]) {
        let s = details.summary
        let r = details.taskResult
        run = RunRow(s)
        self.formats = formats.map { Format(format: $0.rawValue) }
        let summaries = r.asyncResults.compactMap(\.file).flatMap { $0.stepSummaries ?? [] }
        let prefix = r.taskIdentifier + "/"
        steps = r.stepHistory.map { step in
            Step(path: step.stepPath, name: step.stepPath.hasPrefix(prefix) ? String(step.stepPath.dropFirst(prefix.count)) : step.stepPath,
                 length: step.endUptime.map { HTML.seconds($0 - step.startUptime) } ?? "open",
                 answers: (step.results ?? []).map { a in
                     Labelled(identifier: a.identifier, text: (a.display ?? a.value.plainText ?? "–") + (a.unit.map { " " + $0 } ?? ""))
                 },
                 measures: summaries.filter { $0.stepPath == step.stepPath }.map { g in
                     // The headline starts with the step path, which the row already shows.
                     Labelled(identifier: g.identifier,
                              text: g.headline.hasPrefix(g.stepPath + ": ") ? String(g.headline.dropFirst(g.stepPath.count + 2)) : g.headline)
                 })
        }
        files = r.asyncResults.compactMap(\.file).map { f in
            File(identifier: f.identifier, path: f.relativePath, records: f.sampleCount,
                 span: f.endUptime.map { HTML.seconds($0 - f.startUptime) } ?? "open",
                 lost: f.droppedSamples > 0 || f.gapCount > 0 ? f.droppedSamples : nil, gaps: f.gapCount)
        }
        errors = r.asyncResults.compactMap(\.error).map { Labelled(identifier: $0.identifier, text: $0.errorDescription) }
        recording = s.status == .recording
    }
}
