/// The keys the per-sample writers put, made once from the standard kinds: every record's
/// prefix (`{"uptime":…,"timestamp":…,"stepPath":…`) and a motion record's body
/// (`,"sensorType":"gyro","x":…,"y":…,"z":…}`), each piece in memory that lives as long as the
/// process. Immutable after `init`, hence `@unchecked Sendable`.
struct MotionKeys: @unchecked Sendable {
    static let standard = MotionKeys(RecordKind.motion, schema: .standard)

    /// `{"uptime":`, `,"timestamp":`, `,"stepPath":`: how every record but a marker starts (a
    /// marker: the first two, then its date and step path).
    let uptime, timestamp, stepPath: UnsafeBufferPointer<UInt8>
    /// `,"sensorType":"<type>","x":` by `SensorType.index`: the type and the first axis's key.
    private let heads: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
    /// `,"y":`, `,"z":`, and the record's end `}` and newline.
    let y, z, end: UnsafeBufferPointer<UInt8>

    init(_ motion: RecordKind, schema: RecordSchema) {
        // The writers put a vector's three axes after the prefix and the type, and every kind
        // starts with the prefix: checked here, where the keys are taken from the kinds.
        let prefix: [RecordField] = [.uptime, .timestamp, .stepPath]
        precondition(motion.fields == prefix + [.sensorType, .x, .y, .z], "the motion writer writes a vector's x, y and z after the prefix and the type")
        for kind in schema.kinds {
            let expected = kind.name == RecordKind.marker.name ? [.uptime, .timestamp] : prefix
            precondition(Array(kind.fields.prefix(expected.count)) == expected, "\(kind.name): every record starts with its times and step path")
        }
        func key(_ field: RecordField, first: Bool = false) -> [UInt8] {
            var bytes: [UInt8] = [UInt8(ascii: first ? "{" : ",")]
            JSONString.appendEscaped(field.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            return bytes
        }
        uptime = RecordKindLayout.immortal(key(.uptime, first: true))
        timestamp = RecordKindLayout.immortal(key(.timestamp))
        stepPath = RecordKindLayout.immortal(key(.stepPath))
        let heads = UnsafeMutableBufferPointer<UnsafeBufferPointer<UInt8>>.allocate(capacity: SensorType.allCases.count)
        for type in SensorType.allCases {
            var head = key(.sensorType)
            JSONString.appendEscaped(type.rawValue, to: &head)
            (heads.baseAddress! + type.index).initialize(to: RecordKindLayout.immortal(head + key(.x)))
        }
        self.heads = UnsafeBufferPointer(heads)
        y = RecordKindLayout.immortal(key(.y))
        z = RecordKindLayout.immortal(key(.z))
        end = RecordKindLayout.immortal(Array("}\n".utf8))
    }

    @inline(__always)
    func head(_ type: SensorType) -> UnsafeBufferPointer<UInt8> { heads[type.index] }
}

extension SensorType {
    /// The type's place among `allCases` (a table's index).
    @inline(__always)
    var index: Int {
        switch self {
        case .accelerometer: 0
        case .gyro: 1
        case .magnetometer: 2
        case .location: 3
        case .soundLevel: 4
        case .attitude: 5
        case .gravity: 6
        case .userAcceleration: 7
        case .rotationRate: 8
        case .magneticField: 9
        case .step: 10
        case .heartRate: 11
        }
    }
}
