// recorderd's record kinds: which fields each carries, in the order they are written (the times
// and the step path first). The fields themselves — keys, types, units — are in
// `RecordField+Standard.swift`. docs/recorders.md describes them for users.
extension RecordKind {
    /// Written first in every file and at each step change: where the step path changes.
    public static let marker = RecordKind("marker", sensorTypes: .none, distinguishedBy: .timestampDate,
                                          [.init(.uptime), .init(.timestamp), .init(.timestampDate), .init(.stepPath)])

    /// A raw or fused motion vector (SageResearch's names): the axes in the sensor type's unit.
    public static let motion = RecordKind("motion", sensorTypes: .only(["accelerometer", "gyro", "magnetometer", "gravity", "userAcceleration", "rotationRate"]),
                                          [.init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType), .init(.x), .init(.y), .init(.z)])

    /// A fused attitude: the unit quaternion taking device axes to the reference frame, the
    /// frame's name and, with a magnetometer, the heading.
    public static let attitude = RecordKind("attitude", sensorTypes: .only(["attitude"]), [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType, constant: "attitude"), .init(.x), .init(.y), .init(.z), .init(.w),
        .init(.referenceCoordinate), .init(.heading),
    ])

    /// A calibrated magnetic field and its calibration's accuracy.
    public static let magneticField = RecordKind("magneticField", sensorTypes: .only(["magneticField"]), [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType, constant: "magneticField"), .init(.x), .init(.y), .init(.z), .init(.eventAccuracy),
    ])

    /// A GPS fix (SageResearch's fields, plus the fix's mode and satellites); coordinates only when
    /// the recorder saves them.
    public static let location = RecordKind("location", sensorTypes: .only(["location"]), [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType, constant: "location"), .init(.timestampDate), .init(.latitude), .init(.longitude),
        .init(.horizontalAccuracy), .init(.verticalAccuracy), .init(.altitude), .init(.course), .init(.speed), .init(.relativeDistance),
        .init(.totalDistance), .init(.mode), .init(.satellitesUsed),
    ])

    /// A heart-rate notification: the rate, and what the sensor sent with it.
    public static let heartRate = RecordKind("heartRate", sensorTypes: .only(["heartRate"]), [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType, constant: "heartRate"), .init(.heartRate), .init(.unit, constant: "count/min"),
        .init(.contact), .init(.energyExpended), .init(.rrIntervals),
    ])

    /// A microphone's level over `timeInterval` (SageResearch's audio level record: no `sensorType`).
    public static let soundLevel = RecordKind("soundLevel", sensorTypes: .none, distinguishedBy: .timeInterval, [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.timeInterval), .init(.average), .init(.peak), .init(.unit, constant: "dBFS"),
    ])

    /// Samples lost before this point (audio: frames, and the seconds lost).
    public static let gap = RecordKind("gap", sensorTypes: .any, event: "gap", [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.event, constant: "gap"), .init(.sensorType), .init(.droppedSamples), .init(.duration),
    ])

    /// Samples a device delivered ahead of the clock, left out before this point.
    public static let discarded = RecordKind("discarded", sensorTypes: .any, event: "discarded", [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.event, constant: "discarded"), .init(.sensorType), .init(.droppedSamples),
        .init(.duration),
    ])

    /// A gait analysis's initial contact, with its foot and the stride that ends at it when known.
    public static let step = RecordKind("step", sensorTypes: .only(["step"]), event: "step", [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.event, constant: "step"), .init(.sensorType, constant: "step"), .init(.side),
        .init(.strideLength),
    ])

    /// A walking bout that ended with its last step at this point.
    public static let bout = RecordKind("bout", sensorTypes: .only(["step"]), event: "bout", [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.event, constant: "bout"), .init(.sensorType, constant: "step"),
        .init(.startUptime), .init(.duration), .init(.steps), .init(.cadence), .init(.distance), .init(.walkingSpeed), .init(.strideLength),
    ])

    /// The device failed at this point.
    public static let error = RecordKind("error", sensorTypes: .none, event: "error", [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.event, constant: "error"), .init(.errorDescription),
    ])
}

extension RecordKind {
    /// The standard kinds in `RecordSchema.standard`'s order: a kind's place there is its raw
    /// value (how the encoder's typed appenders find theirs without a search).
    public enum Standard: Int, Sendable, CaseIterable {
        case marker, motion, attitude, magneticField, location, heartRate, soundLevel, gap, discarded, step, bout, error

        public var kind: RecordKind {
            switch self {
            case .marker: .marker
            case .motion: .motion
            case .attitude: .attitude
            case .magneticField: .magneticField
            case .location: .location
            case .heartRate: .heartRate
            case .soundLevel: .soundLevel
            case .gap: .gap
            case .discarded: .discarded
            case .step: .step
            case .bout: .bout
            case .error: .error
            }
        }
    }
}
