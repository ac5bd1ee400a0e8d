// The fields of recorderd's records: each one's key, type and unit, written once. Which record
// kinds carry which of them, in which order, is `RecordKind+Standard.swift`. (The slots are where a
// `Record` keeps each value: one per field within its storage class — scalars 0…31, strings 0…8,
// lists 0 — checked unique by `RecordSchema.init`.)
extension RecordField {
    // MARK: Every record

    /// CLOCK_MONOTONIC seconds when the sample was measured (the record's time).
    @inlinable public static var uptime: RecordField { RecordField("uptime", .time, unit: "s", slot: 0) }
    /// Seconds since the recording (or the subscription) started.
    @inlinable public static var timestamp: RecordField { RecordField("timestamp", .time, unit: "s", slot: 1) }
    /// The task step the sample was measured in (`task/section/step`); not in live records.
    @inlinable public static var stepPath: RecordField { RecordField("stepPath", .string, slot: 1) }
    /// The kind of measurement (`SensorType`).
    @inlinable public static var sensorType: RecordField { RecordField("sensorType", .string, slot: 0) }
    /// What happened instead of a sample: `gap`, `discarded`, `error`, or a gait event (`step`, `bout`).
    @inlinable public static var event: RecordField { RecordField("event", .string, slot: 3) }
    /// The wall-clock time (ISO 8601) of a marker, or of a location fix.
    @inlinable public static var timestampDate: RecordField { RecordField("timestampDate", .string, values: "ISO 8601", slot: 2) }

    // MARK: Motion and device motion

    /// A vector's axes (in the sensor type's unit), or an attitude quaternion's vector part.
    @inlinable public static var x: RecordField { RecordField("x", .number, slot: 2) }
    @inlinable public static var y: RecordField { RecordField("y", .number, slot: 3) }
    @inlinable public static var z: RecordField { RecordField("z", .number, slot: 4) }
    /// An attitude quaternion's scalar part.
    @inlinable public static var w: RecordField { RecordField("w", .number, slot: 5) }
    /// An attitude's reference frame (`ReferenceCoordinate`).
    @inlinable public static var referenceCoordinate: RecordField { RecordField("referenceCoordinate", .string, slot: 4) }
    /// An attitude's heading: degrees clockwise from magnetic north of the device's +Y axis.
    @inlinable public static var heading: RecordField { RecordField("heading", .number, unit: "deg", slot: 6) }
    /// A calibrated magnetic field's accuracy: -1 uncalibrated, 0 low, 1 medium, 2 high.
    @inlinable public static var eventAccuracy: RecordField { RecordField("eventAccuracy", .integer, slot: 23) }

    // MARK: Gaps, discarded spans, errors

    /// Samples lost (a gap) or left out (discarded) before the record's time (audio: frames).
    @inlinable public static var droppedSamples: RecordField { RecordField("droppedSamples", .integer, slot: 22) }
    /// Seconds: what a gap or a discarded span lasted; a walking bout's length.
    @inlinable public static var duration: RecordField { RecordField("duration", .number, unit: "s", slot: 7) }
    /// What failed (an error marker).
    @inlinable public static var errorDescription: RecordField { RecordField("errorDescription", .string, slot: 5) }

    // MARK: Location

    @inlinable public static var latitude: RecordField { RecordField("latitude", .number, unit: "deg", slot: 8) }
    @inlinable public static var longitude: RecordField { RecordField("longitude", .number, unit: "deg", slot: 9) }
    @inlinable public static var horizontalAccuracy: RecordField { RecordField("horizontalAccuracy", .number, unit: "m", slot: 10) }
    @inlinable public static var verticalAccuracy: RecordField { RecordField("verticalAccuracy", .number, unit: "m", slot: 11) }
    /// Metres above mean sea level.
    @inlinable public static var altitude: RecordField { RecordField("altitude", .number, unit: "m", slot: 12) }
    /// Degrees clockwise from true north.
    @inlinable public static var course: RecordField { RecordField("course", .number, unit: "deg", slot: 13) }
    @inlinable public static var speed: RecordField { RecordField("speed", .number, unit: "m/s", slot: 14) }
    /// Metres from the previous fix used for distance.
    @inlinable public static var relativeDistance: RecordField { RecordField("relativeDistance", .number, unit: "m", slot: 15) }
    /// Metres walked since the recording started.
    @inlinable public static var totalDistance: RecordField { RecordField("totalDistance", .number, unit: "m", slot: 16) }
    /// The receiver's fix: `3D`, `2D` or `none`.
    @inlinable public static var mode: RecordField { RecordField("mode", .string, values: "3D|2D|none", slot: 6) }
    @inlinable public static var satellitesUsed: RecordField { RecordField("satellitesUsed", .integer, slot: 24) }

    // MARK: Gait

    /// A step's foot, where the analysis tells it.
    @inlinable public static var side: RecordField { RecordField("side", .string, values: "left|right", slot: 8) }
    /// A walking bout's first step (CLOCK_MONOTONIC seconds).
    @inlinable public static var startUptime: RecordField { RecordField("startUptime", .time, unit: "s", slot: 17) }
    @inlinable public static var steps: RecordField { RecordField("steps", .integer, slot: 25) }
    @inlinable public static var cadence: RecordField { RecordField("cadence", .number, unit: "steps/min", slot: 18) }
    /// Metres walked in a bout (with the participant's height).
    @inlinable public static var distance: RecordField { RecordField("distance", .number, unit: "m", slot: 26) }
    @inlinable public static var walkingSpeed: RecordField { RecordField("walkingSpeed", .number, unit: "m/s", slot: 27) }
    /// A bout's mean stride length, or the stride that ends at a step (m).
    @inlinable public static var strideLength: RecordField { RecordField("strideLength", .number, unit: "m", slot: 28) }

    // MARK: Sound level

    /// Seconds of audio the level covers.
    @inlinable public static var timeInterval: RecordField { RecordField("timeInterval", .number, unit: "s", slot: 19) }
    /// The RMS level (digital silence is -160).
    @inlinable public static var average: RecordField { RecordField("average", .number, unit: "dBFS", slot: 20) }
    @inlinable public static var peak: RecordField { RecordField("peak", .number, unit: "dBFS", slot: 21) }
    /// The unit of a record's main value (`dBFS`, `count/min`).
    @inlinable public static var unit: RecordField { RecordField("unit", .string, slot: 7) }

    // MARK: Heart rate

    @inlinable public static var heartRate: RecordField { RecordField("heartRate", .integer, unit: "count/min", slot: 29) }
    /// The sensor's skin contact, when it reports it.
    @inlinable public static var contact: RecordField { RecordField("contact", .boolean, slot: 30) }
    /// Kilojoules since the sensor's last reset.
    @inlinable public static var energyExpended: RecordField { RecordField("energyExpended", .integer, unit: "kJ", slot: 31) }
    /// RR intervals, oldest first: exact multiples of 1/1024 s.
    @inlinable public static var rrIntervals: RecordField { RecordField("rrIntervals", .numbers, unit: "s", slot: 0) }
}
