import RecorderModel

/// A motion recorder's content: one record per sampling instant and sensor type asked for (raw
/// sensors, and fused device motion where the frame carries it), and gap records for the types a
/// loss concerns.
struct MotionRecords: RecordProducer {
    let types: [SensorType]
    /// The format of each of `types` whose values are whole counts of the device (nil: written
    /// in full, as fused types always are).
    let quantized: [QuantizedVector?]
    /// The rate the configuration asked for (recordings), for the file result.
    let requestedFrequency: Double?
    /// Every type is a vector of the frame (`MotionFrame.vector(for:)`): no attitude, no
    /// calibrated magnetic field.
    let vectorsOnly: Bool

    /// `quanta`: one count of each axis of the device's quantised raw sensor types.
    init(types: [SensorType], quanta: [SensorType: Vector3] = [:], requestedFrequency: Double?) {
        self.types = types
        quantized = types.map { type in type.isFused ? nil : quanta[type].flatMap(QuantizedVector.init(quanta:)) }
        self.requestedFrequency = requestedFrequency
        vectorsOnly = !types.contains(.attitude) && !types.contains(.magneticField)
    }

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .motion(let m):
            for (index, type) in types.enumerated() {
                switch type {
                case .attitude:
                    if let fused = m.fused { sink.appendAttitude(uptime: m.uptime, fused) }
                case .magneticField:
                    if let fused = m.fused, let field = fused.magneticField {
                        sink.appendMagneticField(uptime: m.uptime, field: field, accuracy: fused.magneticAccuracy)
                    }
                default:
                    if let v = m.vector(for: type) {
                        sink.appendMotion(uptime: m.uptime, sensorType: type, vector: v, quantized: quantized[index])
                    }
                }
            }
        case .gap(let uptime, let gapTypes, let dropped, _):
            for type in types where gapTypes.contains(type) {
                sink.appendGap(uptime: uptime, sensorType: type, droppedSamples: dropped)
            }
        default:
            break
        }
    }

    /// A run of frames: with only vector types (the raw sensors, the fused vectors), each motion
    /// frame's records are written with the types and their formats read in place.
    mutating func add(run frames: UnsafeBufferPointer<SensorFrame>, to sink: inout RecordSink) {
        guard vectorsOnly else {
            for i in frames.indices { add(frames[i], to: &sink) }
            return
        }
        types.withUnsafeBufferPointer { types in
            quantized.withUnsafeBufferPointer { quantized in
                for i in frames.indices {
                    guard case .motion(let m) = frames[i] else {
                        add(frames[i], to: &sink)
                        continue
                    }
                    sink.appendMotions(m, types: types, formats: quantized)
                }
            }
        }
    }

    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        for type in types { sink.appendGap(uptime: uptime, sensorType: type, droppedSamples: count) }
    }

    func describe(_ result: inout FileResult) {
        if let requestedFrequency { result.requestedFrequency = requestedFrequency }
    }
}
