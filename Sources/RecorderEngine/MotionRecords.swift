import RecorderModel

/// A motion recorder's content: one record per sampling instant and sensor type asked for (raw
/// sensors, and fused device motion where the frame carries it), and gap records for the types a
/// loss concerns.
struct MotionRecords: RecordProducer {
    let types: [SensorType]
    /// The rate the configuration asked for (recordings), for the file result.
    let requestedFrequency: Double?

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .motion(let m):
            for type in types {
                switch type {
                case .attitude:
                    if let fused = m.fused { sink.appendAttitude(uptime: m.uptime, fused) }
                case .magneticField:
                    if let fused = m.fused, let field = fused.magneticField {
                        sink.appendMagneticField(uptime: m.uptime, field: field, accuracy: fused.magneticAccuracy)
                    }
                default:
                    if let v = m.vector(for: type) { sink.appendMotion(uptime: m.uptime, sensorType: type, vector: v) }
                }
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
