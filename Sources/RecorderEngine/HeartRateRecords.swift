import RecorderModel

/// A heart-rate recorder's content: one record per notification, and a gap record, with the
/// seconds the sensor was silent, for each outage (out of range, strap off, reconnecting).
struct HeartRateRecords: RecordProducer {
    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .heartRate(let measurement):
            sink.appendHeartRate(measurement)
        case .gap(let uptime, let types, let dropped, let duration) where types.contains(.heartRate):
            sink.appendGap(uptime: uptime, sensorType: .heartRate, droppedSamples: dropped, duration: duration)
        default:
            break
        }
    }

    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        sink.appendGap(uptime: uptime, sensorType: .heartRate, droppedSamples: count)
    }
}
