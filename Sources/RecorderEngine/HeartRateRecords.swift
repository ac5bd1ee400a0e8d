import RecorderModel

/// A heart-rate recorder's content: one record per notification, a gap record, with the seconds
/// the sensor was silent, for each outage (out of range, strap off, reconnecting); and in a
/// recording, each step's summary (`HeartRateStepSummary`).
struct HeartRateRecords: RecordProducer {
    /// The recorder's identifier, for its summaries; nil: none (live streams).
    let identifier: String?
    /// Each step's figures so far, by step path, in the order the steps came.
    private var steps: [String: Accumulator] = [:]
    private var order: [String] = []

    struct Accumulator {
        var summary: HeartRateStepSummary
        var sum = 0.0
    }

    init(identifier: String?) {
        self.identifier = identifier
    }

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .heartRate(let measurement):
            // The record and the figures belong to the step in force at the notification.
            sink.markSteps(upTo: measurement.uptime)
            sink.appendHeartRate(measurement)
            update(in: sink) { a in
                a.summary.endUptime = measurement.uptime
                guard let s = HeartRateMeasurement.reading(rate: measurement.heartRate, contact: measurement.contact) else {
                    a.summary.withoutContact += 1
                    return
                }
                a.summary.count += 1
                a.sum += Double(s)
                a.summary.mean = a.sum / Double(a.summary.count)
                a.summary.minimum = min(a.summary.minimum ?? s, s)
                a.summary.maximum = max(a.summary.maximum ?? s, s)
                if a.summary.atStart == nil { a.summary.atStart = s }
                if a.summary.at60Seconds == nil, measurement.uptime >= a.summary.startUptime + 60, let first = a.summary.atStart {
                    a.summary.at60Seconds = s
                    a.summary.recovery = first - s
                }
            }
        case .gap(let uptime, let types, let dropped, let duration) where types.contains(.heartRate):
            sink.markSteps(upTo: uptime)
            sink.appendGap(uptime: uptime, sensorType: .heartRate, droppedSamples: dropped, duration: duration)
            update(in: sink) { a in
                a.summary.gapCount += 1
                a.summary.gapSeconds += duration ?? 0
            }
        default:
            break
        }
    }

    /// Applies `change` to the figures of the step `sink` is in (a step path met again after
    /// another starts afresh).
    private mutating func update(in sink: RecordSink, _ change: (inout Accumulator) -> Void) {
        guard let identifier, let path = sink.stepPath?.value else { return }
        let start = sink.stepStartUptime ?? sink.startUptime
        if steps[path]?.summary.startUptime != start {
            if steps[path] == nil { order.append(path) }
            steps[path] = Accumulator(summary: HeartRateStepSummary(identifier: identifier, stepPath: path, startUptime: start))
        }
        change(&steps[path]!)
    }

    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        sink.appendGap(uptime: uptime, sensorType: .heartRate, droppedSamples: count)
    }

    func summary(ofStep path: String) -> StepSummary? {
        steps[path].map { .heartRate($0.summary) }
    }

    func describe(_ result: inout FileResult) {
        guard identifier != nil, !order.isEmpty else { return }
        result.heartRateSummaries = order.compactMap { steps[$0]?.summary }
    }
}
