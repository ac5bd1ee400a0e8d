import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// Where a recorder's content goes: the records of one drain as JSON lines, with what every
/// record carries (the step path, the time base), the bounds of what belongs to the recording,
/// and counts of what was encoded. Recordings write its bytes to their file; live streams wrap
/// them into a `stream.records` notification. The record producers write only through it.
public struct RecordSink {
    /// The records encoded since the owner last took them.
    var encoder = JSONLinesEncoder()
    /// The current step path; nil in live streams (their records carry none).
    private(set) var stepPath: JSONString?
    /// When the current step began (its change's uptime); nil for the step the recording began in.
    private(set) var stepStartUptime: Double?
    /// Timestamps count from here (a recording's start, a subscription's start).
    let startUptime: Double
    /// Frames measured before this are not recorded (a recording's start less its pre-roll).
    var lowerBound = -Double.infinity
    /// Frames measured after this are not recorded (a recording's stop).
    var stopUptime: Double?
    /// Counts of the records in `encoder`.
    var counts = RecordCounts()
    /// A storage failure a producer met (writing a WAV): the recording stops at it.
    var failure: StorageError?
    /// Step changes not yet marked: a marker precedes the first record measured at or after each.
    private var pendingSteps: [StepChange] = []

    /// A step change: from `uptime`, records carry `path`; `date` is its wall-clock time.
    struct StepChange {
        var uptime: Double
        var path: JSONString
        var date: Date
    }

    init(startUptime: Double, stepPath: JSONString?) {
        self.startUptime = startUptime
        self.stepPath = stepPath
    }

    /// True when a frame measured at `uptime` lies within the bounds.
    func contains(_ uptime: Double) -> Bool {
        uptime >= lowerBound && uptime <= (stopUptime ?? .infinity)
    }

    /// The records, with their counts, to be written; the sink starts empty again.
    mutating func takeCounts() -> RecordCounts {
        defer { counts = RecordCounts() }
        return counts
    }

    // MARK: Step markers

    /// The step path changes at `uptime` (whose wall-clock time is `date`).
    mutating func changeStep(_ path: JSONString, uptime: Double, date: Date) {
        pendingSteps.append(StepChange(uptime: uptime, path: path, date: date))
    }

    /// The marker that starts a file.
    mutating func appendFirstMarker(uptime: Double, date: Date) {
        guard let stepPath else { return }
        encoder.appendMarker(uptime: uptime, timestamp: uptime - startUptime, timestampDate: ISO8601Timestamp.string(from: date),
                             stepPath: stepPath)
    }

    /// Writes the markers of the step changes at or before `uptime`.
    mutating func markSteps(upTo uptime: Double) {
        while let next = pendingSteps.first, next.uptime <= uptime {
            pendingSteps.removeFirst()
            stepPath = next.path
            stepStartUptime = next.uptime
            encoder.appendMarker(uptime: next.uptime, timestamp: next.uptime - startUptime,
                                 timestampDate: ISO8601Timestamp.string(from: next.date), stepPath: next.path)
        }
    }

    /// The step path of a frame measured at `uptime` (step changes not yet marked included),
    /// without writing markers.
    public func stepPath(at uptime: Double) -> JSONString? {
        var path = stepPath
        for change in pendingSteps where change.uptime <= uptime { path = change.path }
        return path
    }

    @inline(__always)
    private mutating func beforeRecord(at uptime: Double) {
        if !pendingSteps.isEmpty { markSteps(upTo: uptime) }
    }

    // MARK: Records

    mutating func appendMotion(uptime: Double, sensorType: SensorType, vector: Vector3, quantized: QuantizedVector? = nil) {
        beforeRecord(at: uptime)
        encoder.appendMotion(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, sensorType: sensorType, vector: vector,
                             quantized: quantized)
        counts.samples += 1
    }

    /// The motion records of one instant: `frame`'s vector of each of `types` it has, formatted
    /// by `formats` (`JSONLinesEncoder.appendMotions`).
    mutating func appendMotions(_ frame: MotionFrame, types: UnsafeBufferPointer<SensorType>, formats: UnsafeBufferPointer<QuantizedVector?>) {
        // A step's marker precedes its first record: not written for an instant with none of
        // `types` (a gyroscope's recorder and an accelerometer-only instant).
        if !pendingSteps.isEmpty, types.contains(where: { frame.vector(for: $0) != nil }) { markSteps(upTo: frame.uptime) }
        counts.samples &+= encoder.appendMotions(uptime: frame.uptime, timestamp: frame.uptime - startUptime, stepPath: stepPath, frame: frame,
                                                 types: types, formats: formats)
    }

    mutating func appendAttitude(uptime: Double, _ motion: DeviceMotion) {
        beforeRecord(at: uptime)
        encoder.appendAttitude(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, attitude: motion.attitude,
                               referenceCoordinate: motion.referenceCoordinate, heading: motion.heading)
        counts.samples += 1
    }

    mutating func appendMagneticField(uptime: Double, field: Vector3, accuracy: Int) {
        beforeRecord(at: uptime)
        encoder.appendMagneticField(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, field: field, accuracy: accuracy)
        counts.samples += 1
    }

    mutating func appendLocation(_ fix: LocationFix, relativeDistance: Double?, totalDistance: Double?, saveCoordinates: Bool) {
        beforeRecord(at: fix.uptime)
        let date = fix.fixTime.map { ISO8601Timestamp.string(from: Date(timeIntervalSince1970: $0)) }
        encoder.appendLocation(fix, timestamp: fix.uptime - startUptime, stepPath: stepPath, timestampDate: date,
                               relativeDistance: relativeDistance, totalDistance: totalDistance, saveCoordinates: saveCoordinates)
        counts.samples += 1
    }

    mutating func appendSoundLevel(_ level: SoundLevel) {
        beforeRecord(at: level.uptime)
        encoder.appendSoundLevel(level, timestamp: level.uptime - startUptime, stepPath: stepPath)
        counts.samples += 1
    }

    mutating func appendHeartRate(_ measurement: HeartRateMeasurement) {
        beforeRecord(at: measurement.uptime)
        encoder.appendHeartRate(measurement, timestamp: measurement.uptime - startUptime, stepPath: stepPath)
        counts.samples += 1
    }

    /// `droppedSamples` of `sensorType` lost before `uptime` (audio: frames, lasting `duration`).
    mutating func appendGap(uptime: Double, sensorType: SensorType, droppedSamples: Int, duration: Double? = nil) {
        beforeRecord(at: uptime)
        encoder.appendGap(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, sensorType: sensorType,
                          droppedSamples: droppedSamples, duration: duration)
        counts.dropped += droppedSamples
        counts.gaps += 1
    }

    /// `count` samples of `sensorType` left out before `uptime` because the device delivered them
    /// ahead of the clock (audio: frames, lasting `duration`). Not a gap: no time is missing.
    mutating func appendDiscarded(uptime: Double, sensorType: SensorType, count: Int, duration: Double? = nil) {
        beforeRecord(at: uptime)
        encoder.appendDiscarded(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, sensorType: sensorType,
                                count: count, duration: duration)
    }

    /// A gait analysis's step (initial contact) at `uptime`, taken with the foot `side` when known.
    public mutating func appendStep(uptime: Double, side: FootSide? = nil, strideLength: Double? = nil) {
        beforeRecord(at: uptime)
        encoder.appendStep(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, side: side, strideLength: strideLength)
        counts.samples += 1
    }

    /// A walking bout from `start` to `end` (its first and last step).
    public mutating func appendBout(start: Double, end: Double, steps: Int, cadence: Double?, spatial: BoutSpatialMeasures? = nil) {
        beforeRecord(at: end)
        encoder.appendBout(uptime: end, timestamp: end - startUptime, stepPath: stepPath, startUptime: start, steps: steps,
                           cadence: cadence, spatial: spatial)
        counts.samples += 1
    }

    mutating func appendError(uptime: Double, description: String) {
        beforeRecord(at: uptime)
        encoder.appendError(uptime: uptime, timestamp: uptime - startUptime, stepPath: stepPath, description: description)
        counts.errors += 1
    }
}

/// What a batch of records holds, added to a file result once the bytes are in the file.
struct RecordCounts {
    var samples = 0
    var dropped = 0
    var gaps = 0
    var errors = 0
}
