import RecorderExport
import RecorderModel
import RecorderProtocol

/// What `run.mustache` shows: a run's status, times, downloads, plot, steps with their answers
/// and measures, and recordings.
struct RunView {
    struct Format {
        let format: String
    }

    struct Answer {
        let identifier: String
        let value: String
    }

    struct Measure {
        let identifier: String
        let headline: String
    }

    struct Step {
        let path: String
        let name: String
        let length: String
        let answers: [Answer]
        let measures: [Measure]
    }

    struct File {
        let identifier: String
        let path: String
        let records: Int
        let span: String
        let lost: Int?
        let gaps: Int
    }

    struct Failure {
        let identifier: String
        let description: String
    }

    let id: String
    let uuid: String
    let task: String
    let status: String
    let started: String
    let length: String?
    // Named apart from a file's `records`, `lost` and `gaps`: a template looks a name up in the
    // enclosing values when an inner one lacks it (or holds nil).
    let runSamples: Int
    let runLost: Int
    let runGaps: Int
    let size: String
    let formats: [Format]
    let steps: [Step]
    let files: [File]
    let errors: [Failure]
    let recording: Bool

    init(_ details: RunDetails, formats: [ExportFormat]) {
        let s = details.summary
        let r = details.taskResult
        id = s.taskRunUUID.uuidString.lowercased()
        uuid = s.taskRunUUID.uuidString
        task = s.taskIdentifier
        status = s.status.rawValue
        started = HTML.date(s.startDate)
        length = s.duration.map(HTML.seconds)
        runSamples = s.samples
        runLost = s.droppedSamples
        runGaps = s.gapCount
        size = HTML.bytes(s.sizeBytes)
        self.formats = formats.map { Format(format: $0.rawValue) }
        let summaries = r.asyncResults.compactMap(\.file).flatMap { $0.stepSummaries ?? [] }
        let prefix = r.taskIdentifier + "/"
        steps = r.stepHistory.map { step in
            Step(path: step.stepPath, name: step.stepPath.hasPrefix(prefix) ? String(step.stepPath.dropFirst(prefix.count)) : step.stepPath,
                 length: step.endUptime.map { HTML.seconds($0 - step.startUptime) } ?? "open",
                 answers: (step.results ?? []).map { a in
                     Answer(identifier: a.identifier, value: (a.display ?? a.value.plainText ?? "–") + (a.unit.map { " " + $0 } ?? ""))
                 },
                 measures: summaries.filter { $0.stepPath == step.stepPath }.map { g in
                     // The headline starts with the step path, which the row already shows.
                     Measure(identifier: g.identifier,
                             headline: g.headline.hasPrefix(g.stepPath + ": ") ? String(g.headline.dropFirst(g.stepPath.count + 2)) : g.headline)
                 })
        }
        files = r.asyncResults.compactMap(\.file).map { f in
            File(identifier: f.identifier, path: f.relativePath, records: f.sampleCount,
                 span: f.endUptime.map { HTML.seconds($0 - f.startUptime) } ?? "open",
                 lost: f.droppedSamples > 0 || f.gapCount > 0 ? f.droppedSamples : nil, gaps: f.gapCount)
        }
        errors = r.asyncResults.compactMap(\.error).map { Failure(identifier: $0.identifier, description: $0.errorDescription) }
        recording = s.status == .recording
    }
}
