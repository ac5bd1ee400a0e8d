import RecorderModel
import RecorderProtocol

/// A run's summary as the pages show it: a row of `runs.mustache`, the head of `run.mustache`.
struct RunRow {
    let id: String
    let uuid: String
    let started: String
    let task: String
    let status: String
    /// Nil while recording.
    let length: String?
    let samples: Int
    /// Nil when none were lost.
    let lost: Int?
    let gaps: Int
    let size: String

    init(_ summary: RunSummary) {
        id = summary.taskRunUUID.uuidString.lowercased()
        uuid = summary.taskRunUUID.uuidString
        started = HTML.date(summary.startDate)
        task = summary.taskIdentifier
        status = summary.status.rawValue
        length = summary.duration.map(HTML.seconds)
        samples = summary.samples
        lost = summary.droppedSamples > 0 ? summary.droppedSamples : nil
        gaps = summary.gapCount
        size = HTML.bytes(summary.sizeBytes)
    }
}
