import RecorderModel

/// A motion recorder's content: one record per sampling instant and sensor type asked for, and
/// gap records for the types a loss concerns.
struct MotionRecords: RecordProducer {
    let types: [SensorType]
    /// The rate the configuration asked for (recordings), for the file result.
    let requestedFrequency: Double?

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .motion(let m):
            for type in types {
                if let v = m.vector(for: type) { sink.appendMotion(uptime: m.uptime, sensorType: type, vector: v) }
            }
        case .gap(let uptime, let gapTypes, let dropped):
            for type in types where gapTypes.contains(type) {
                sink.appendGap(uptime: uptime, sensorType: type, droppedSamples: dropped)
            }
        default:
            break
        }
    }

    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        for type in types { sink.appendGap(uptime: uptime, sensorType: type, droppedSamples: count) }
    }

    func describe(_ result: inout FileResult) {
        if let requestedFrequency { result.requestedFrequency = requestedFrequency }
    }
}
