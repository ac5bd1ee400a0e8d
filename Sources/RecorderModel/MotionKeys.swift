/// The keys the per-sample writers put, made once from the standard kinds: every record's
/// prefix (`{"uptime":…,"timestamp":…,"stepPath":…`) and a motion record's body
/// (`,"sensorType":"gyro","x":…,"y":…,"z":…}`), each piece in memory that lives as long as the
/// process. Immutable after `init`, hence `@unchecked Sendable`.
struct MotionKeys: @unchecked Sendable {
    /// The standard kinds' keys, where the writers read them (one word to pass along).
    static let standard: Pointer = {
        let keys = UnsafeMutablePointer<MotionKeys>.allocate(capacity: 1)
        keys.initialize(to: MotionKeys(RecordKind.motion, schema: .standard))
        return Pointer(keys: UnsafePointer(keys))
    }()

    /// A pointer to keys that live as long as the process.
    struct Pointer: @unchecked Sendable {
        let keys: UnsafePointer<MotionKeys>
    }

    /// `{"uptime":`, `,"timestamp":`, `,"stepPath":`: how every record but a marker starts (a
    /// marker: the first two, then its date and step path).
    let uptime, timestamp, stepPath: ShortKey
    /// `,"sensorType":"<type>","x":` by `SensorType.index`: the type and the first axis's key.
    private let heads: UnsafePointer<HeadKey>
    /// `,"y":`, `,"z":`, and the record's end `}` and newline.
    let y, z, end: ShortKey
    /// A fused attitude's and magnetic field's keys after their axes: `,"w":`,
    /// `,"referenceCoordinate":`, `,"heading":`; `,"eventAccuracy":`. (Their heads are
    /// `head(.attitude)` and `head(.magneticField)`: those kinds' fixed sensor types.)
    let w: ShortKey
    let referenceCoordinate: HeadKey
    let heading: ShortKey
    let eventAccuracy: HeadKey

    init(_ motion: RecordKind, schema: RecordSchema) {
        // The writers put a vector's three axes after the prefix and the type, and every kind
        // starts with the prefix: checked here, where the keys are taken from the kinds.
        let prefix: [RecordField] = [.uptime, .timestamp, .stepPath]
        precondition(motion.fields == prefix + [.sensorType, .x, .y, .z], "the motion writer writes a vector's x, y and z after the prefix and the type")
        precondition(RecordKind.attitude.fields == prefix + [.sensorType, .x, .y, .z, .w, .referenceCoordinate, .heading],
                     "the attitude writer writes a quaternion, its frame and its heading after the prefix and the type")
        precondition(RecordKind.magneticField.fields == prefix + [.sensorType, .x, .y, .z, .eventAccuracy],
                     "the magnetic-field writer writes a vector and its accuracy after the prefix and the type")
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
        uptime = ShortKey(key(.uptime, first: true))
        timestamp = ShortKey(key(.timestamp))
        stepPath = ShortKey(key(.stepPath))
        let heads = UnsafeMutablePointer<HeadKey>.allocate(capacity: SensorType.allCases.count)
        for type in SensorType.allCases {
            var head = key(.sensorType)
            JSONString.appendEscaped(type.rawValue, to: &head)
            (heads + type.index).initialize(to: HeadKey(head + key(.x)))
        }
        self.heads = UnsafePointer(heads)
        y = ShortKey(key(.y))
        z = ShortKey(key(.z))
        end = ShortKey(Array("}\n".utf8))
        w = ShortKey(key(.w))
        referenceCoordinate = HeadKey(key(.referenceCoordinate))
        heading = ShortKey(key(.heading))
        eventAccuracy = HeadKey(key(.eventAccuracy))
    }

    @inline(__always)
    func head(_ type: SensorType) -> UnsafePointer<HeadKey> { heads + type.index }
}

/// A motion record's type and first key (at most 48 bytes: `,"sensorType":"userAcceleration","x":`
/// is 38) as six words, written with six stores (`RecordScratch.put`).
struct HeadKey {
    let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    let length: Int

    init(_ bytes: [UInt8]) {
        precondition(bytes.count <= 48, "a head key has at most 48 bytes")
        let padded = bytes + [UInt8](repeating: 0, count: 48 - bytes.count)
        words = padded.withUnsafeBytes { b in
            (b.loadUnaligned(as: UInt64.self), b.loadUnaligned(fromByteOffset: 8, as: UInt64.self), b.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
             b.loadUnaligned(fromByteOffset: 24, as: UInt64.self), b.loadUnaligned(fromByteOffset: 32, as: UInt64.self), b.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
        }
        length = bytes.count
    }
}

/// A key of at most 16 bytes as two words, written with two stores (`RecordScratch.put`): the
/// per-sample keys, without a copy loop.
struct ShortKey {
    let low: UInt64
    let high: UInt64
    let length: Int

    init(_ bytes: [UInt8]) {
        precondition(bytes.count <= 16, "a short key has at most 16 bytes")
        let padded = bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
        (low, high) = padded.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        length = bytes.count
    }
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
