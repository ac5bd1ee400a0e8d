/// Hand-written encoder of recorderd's JSON-lines records into a reused byte buffer.
///
/// Compact objects, fixed key order, shortest round-trip numbers (Swift's `description`), times
/// (`uptime`, `timestamp`) at nanosecond resolution, quantised channels as the shortest decimal
/// giving their count back (`QuantizedDecimal`),
/// never NaN or Infinity (non-finite numbers are written as `null`), one record per line.
/// Used on the per-sample hot path: no `JSONEncoder`, no intermediate strings for keys.
public struct JSONLinesEncoder: Sendable {
    /// The encoded bytes since the last `removeAll`.
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 64 * 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Where the last per-sample record's prefix lies in `bytes` (`appendRecord`).
    private var lastPrefix = RecordPrefix()

    /// Forgets the encoded bytes, keeping the storage.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        lastPrefix.forget()
    }

    // MARK: Records

    /// A marker line: written first in every file and at each step change.
    public mutating func appendMarker(uptime: Double, timestamp: Double, timestampDate: String, stepPath: JSONString) {
        RecordScratch.with { w in
            w.putPrefix(uptime: uptime, timestamp: timestamp)
            w.put(",\"timestampDate\":")
            w.flush(into: &bytes)
        }
        appendString(timestampDate)
        appendStatic(",\"stepPath\":")
        bytes.append(contentsOf: stepPath.bytes)
        appendStatic("}\n")
    }

    /// A motion record (SageResearch field names).

    /// `quantized`: the axes' counts where the device's values are whole counts (an IIO
    /// channel): each axis is written as the shortest decimal giving its count back.
    public mutating func appendMotion(uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType, vector: Vector3,
                                      quantized: QuantizedVector? = nil) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { w in
            Self.putMotionBody(&w, sensorType: sensorType, vector: vector, quantized: quantized)
        }
    }

    /// The motion records of one instant (a scan's accelerometer and gyro): for each of `types`
    /// that `frame` has a vector of, in order, the record `appendMotion` writes, with the format at
    /// the same index of `formats`. One room for them all; the prefix is written once and copied.
    /// Returns how many records were written.
    @discardableResult
    public mutating func appendMotions(uptime: Double, timestamp: Double, stepPath: JSONString?, frame: MotionFrame,
                                       types: UnsafeBufferPointer<SensorType>, formats: UnsafeBufferPointer<QuantizedVector?>) -> Int {
        precondition(formats.count == types.count, "a format (or nil) per type")
        var written = 0
        // The earlier prefix stays valid where it is (`lastPrefix`): the bytes only grow.
        appendInPlace(records: types.count, stepPath: stepPath) { w, path in
            written = Self.putMotions(&w, uptime: uptime, timestamp: timestamp, path: path, frame: frame, types: types, formats: formats)
        }
        return written
    }

    @inline(__always)
    static func putMotions(_ w: inout RecordScratch, uptime: Double, timestamp: Double, path: UnsafeBufferPointer<UInt8>?, frame: MotionFrame,
                           types: UnsafeBufferPointer<SensorType>, formats: UnsafeBufferPointer<QuantizedVector?>) -> Int {
        var written = 0
        var prefixLength = 0
        for k in types.indices {
            guard let vector = frame.vector(for: types[k]) else { continue }
            if written == 0 {
                w.putPrefix(uptime: uptime, timestamp: timestamp, path: path)
                prefixLength = w.count
            } else {
                w.put(UnsafeBufferPointer(start: w.base, count: prefixLength))
            }
            putMotionBody(&w, sensorType: types[k], vector: vector, quantized: formats[k])
            written &+= 1
        }
        return written
    }

    /// A motion record after its prefix: the type, the axes, the end of the line.
    @inline(__always)
    static func putMotionBody(_ w: inout RecordScratch, sensorType: SensorType, vector: Vector3, quantized: QuantizedVector?) {
        switch sensorType {  // the raw sensors' keys in one piece
        case .accelerometer: w.put(",\"sensorType\":\"accelerometer\",\"x\":")
        case .gyro: w.put(",\"sensorType\":\"gyro\",\"x\":")
        case .magnetometer: w.put(",\"sensorType\":\"magnetometer\",\"x\":")
        default:
            w.put(",\"sensorType\":")
            w.put(sensorType.jsonLiteral)
            w.put(",\"x\":")
        }
        if let quantized {
            w.putNumber(vector.x, quantized.x)
            w.put(",\"y\":")
            w.putNumber(vector.y, quantized.y)
            w.put(",\"z\":")
            w.putNumber(vector.z, quantized.z)
        } else {  // kept apart: one branch with optional formats costs ~160 instructions a record
            w.putXYZ(vector.x, vector.y, vector.z)
        }
        w.put("}\n")
    }

    /// An attitude record (SageResearch's): the unit quaternion `x, y, z, w` taking device axes to
    /// the reference frame, the frame's name, and (with a magnetometer) the heading in degrees.
    public mutating func appendAttitude(uptime: Double, timestamp: Double, stepPath: JSONString?, attitude: Quaternion,
                                        referenceCoordinate: ReferenceCoordinate, heading: Double?) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { w in
            w.put(",\"sensorType\":\"attitude\",\"x\":")
            w.putXYZ(attitude.x, attitude.y, attitude.z)
            w.put(",\"w\":")
            w.putNumber(attitude.w)
            w.put(",\"referenceCoordinate\":")
            w.put(referenceCoordinate.jsonString)
            if let heading, heading.isFinite {
                w.put(",\"heading\":")
                w.putNumber(heading)
            }
            w.put("}\n")
        }
    }

    /// A record whose parts after the prefix are bounded (`RecordScratch.capacity`): the prefix
    /// (times to the nanosecond, the step path) and `body` written through a `RecordScratch`
    /// straight into `bytes`' spare capacity (no second copy, one capacity check). For the
    /// per-sample records. A record of the same instant, time base and step path as the one
    /// before (the other sensor types of the same scan) copies that record's prefix instead of
    /// writing it again.
    @inline(__always)
    mutating func appendRecord(uptime: Double, timestamp: Double, stepPath: JSONString?, _ body: (inout RecordScratch) -> Void) {
        let start = bytes.count
        guard !lastPrefix.isSame(uptime: uptime, timestamp: timestamp, stepPath: stepPath, within: start) else {
            let prefixStart = lastPrefix.start, prefixLength = lastPrefix.length
            appendInPlace(room: RecordScratch.capacity &+ prefixLength) { w in
                // The earlier record's prefix lies `start - prefixStart` bytes before the room.
                w.put(UnsafeBufferPointer(start: w.base - (start &- prefixStart), count: prefixLength))
                body(&w)
            }
            return
        }
        var prefixLength = 0
        appendInPlace(records: 1, stepPath: stepPath) { w, path in
            w.putPrefix(uptime: uptime, timestamp: timestamp, path: path)
            prefixLength = w.count
            body(&w)
        }
        lastPrefix.remember(uptime: uptime, timestamp: timestamp, stepPath: stepPath, start: start, length: prefixLength)
    }

    /// Writes up to `records` records of bounded parts (`RecordScratch.capacity` each) and
    /// `stepPath`: `write` is given the path's bytes (nil without one). A step path of any length
    /// fits: the room asked for is the bounded parts' and the path's, per record.
    @inline(__always)
    mutating func appendInPlace(records: Int, stepPath: JSONString?, _ write: (inout RecordScratch, UnsafeBufferPointer<UInt8>?) -> Void) {
        guard let stepPath else {
            appendInPlace(room: records &* RecordScratch.capacity) { w in write(&w, nil) }
            return
        }
        stepPath.bytes.withUnsafeBufferPointer { path in
            appendInPlace(room: records &* (RecordScratch.capacity &+ path.count)) { w in write(&w, path) }
        }
    }

    /// Writes through a `RecordScratch` over `room` bytes of `bytes`' spare capacity; what it
    /// wrote (at most `room` bytes) is appended.
    @inline(__always)
    mutating func appendInPlace(room: Int, _ write: (inout RecordScratch) -> Void) {
        bytes.append(addingCapacity: room) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var w = RecordScratch(base: buffer.baseAddress!)
                write(&w)
                initialized = w.count
            }
        }
    }

    /// A calibrated magnetic-field record: the field in µT and its calibration accuracy
    /// (`eventAccuracy`: -1 uncalibrated, 0 low, 1 medium, 2 high, as CoreMotion's).
    public mutating func appendMagneticField(uptime: Double, timestamp: Double, stepPath: JSONString?, field: Vector3, accuracy: Int) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"sensorType\":\"magneticField\",\"x\":")
        appendNumber(field.x)
        appendStatic(",\"y\":")
        appendNumber(field.y)
        appendStatic(",\"z\":")
        appendNumber(field.z)
        appendStatic(",\"eventAccuracy\":")
        appendInteger(accuracy)
        appendStatic("}\n")
    }

    /// A gap record: `droppedSamples` samples of `sensorType` were lost before this point
    /// (audio: frames, with the lost `duration` in seconds).
    public mutating func appendGap(uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType, droppedSamples: Int,
                                   duration: Double? = nil) {
        appendSpan(",\"event\":\"gap\",\"sensorType\":", uptime: uptime, timestamp: timestamp, stepPath: stepPath, sensorType: sensorType,
                   count: droppedSamples, duration: duration)
    }

    /// `count` samples of `sensorType` the device delivered ahead of the clock, left out before
    /// `uptime` (audio: frames, lasting `duration`): `"event": "discarded"`.
    public mutating func appendDiscarded(uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType, count: Int,
                                         duration: Double? = nil) {
        appendSpan(",\"event\":\"discarded\",\"sensorType\":", uptime: uptime, timestamp: timestamp, stepPath: stepPath, sensorType: sensorType,
                   count: count, duration: duration)
    }

    /// A gap's or a discarded span's record: `event` (with the `sensorType` key after it), the
    /// type, `droppedSamples`, and `duration` when known.
    private mutating func appendSpan(_ event: StaticString, uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType,
                                     count: Int, duration: Double?) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(event)
        appendSensorType(sensorType)
        appendStatic(",\"droppedSamples\":")
        appendInteger(count)
        if let duration {
            appendStatic(",\"duration\":")
            appendNumber(duration)
        }
        appendStatic("}\n")
    }

    /// A gait analysis's initial contact (a step) measured at `uptime`, with its foot when known.
    /// `strideLength`: of the stride that ends at this contact (m), when known.
    public mutating func appendStep(uptime: Double, timestamp: Double, stepPath: JSONString?, side: FootSide? = nil,
                                    strideLength: Double? = nil) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        switch side {
        case .left?: appendStatic(",\"event\":\"step\",\"sensorType\":\"step\",\"side\":\"left\"")
        case .right?: appendStatic(",\"event\":\"step\",\"sensorType\":\"step\",\"side\":\"right\"")
        case nil: appendStatic(",\"event\":\"step\",\"sensorType\":\"step\"")
        }
        appendOptional(",\"strideLength\":", strideLength)
        appendStatic("}\n")
    }

    /// A walking bout that ended with its last step at `uptime`: its first step at `startUptime`,
    /// `steps` in all, `cadence` steps per minute; when the participant's height is known, the
    /// `spatial` measures (m, m/s, m).
    public mutating func appendBout(uptime: Double, timestamp: Double, stepPath: JSONString?, startUptime: Double, steps: Int,
                                    cadence: Double?, spatial: BoutSpatialMeasures? = nil) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"event\":\"bout\",\"sensorType\":\"step\",\"startUptime\":")
        appendNumber(startUptime)
        appendStatic(",\"duration\":")
        appendNumber(uptime - startUptime)
        appendStatic(",\"steps\":")
        appendInteger(steps)
        appendOptional(",\"cadence\":", cadence)
        if let spatial {
            appendOptional(",\"distance\":", spatial.distance)
            appendOptional(",\"walkingSpeed\":", spatial.walkingSpeed)
            appendOptional(",\"strideLength\":", spatial.strideLength)
        }
        appendStatic("}\n")
    }

    /// An error marker: the device failed at this point.

    public mutating func appendError(uptime: Double, timestamp: Double, stepPath: JSONString?, description: String) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"event\":\"error\",\"errorDescription\":")
        appendString(description)
        appendStatic("}\n")
    }

    /// A location record (SageResearch field names); coordinates only when `saveCoordinates`.
    public mutating func appendLocation(_ fix: LocationFix, timestamp: Double, stepPath: JSONString?, timestampDate: String?,
                                        relativeDistance: Double?, totalDistance: Double?, saveCoordinates: Bool) {
        appendPrefix(uptime: fix.uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"sensorType\":\"location\"")
        if let timestampDate {
            appendStatic(",\"timestampDate\":")
            appendString(timestampDate)
        }
        if saveCoordinates {
            appendOptional(",\"latitude\":", fix.latitude)
            appendOptional(",\"longitude\":", fix.longitude)
        }
        appendOptional(",\"horizontalAccuracy\":", fix.horizontalAccuracy)
        appendOptional(",\"verticalAccuracy\":", fix.verticalAccuracy)
        appendOptional(",\"altitude\":", fix.altitude)
        appendOptional(",\"course\":", fix.course)
        appendOptional(",\"speed\":", fix.speed)
        appendOptional(",\"relativeDistance\":", relativeDistance)
        appendOptional(",\"totalDistance\":", totalDistance)
        appendStatic(fix.mode >= 3 ? ",\"mode\":\"3D\"" : fix.mode == 2 ? ",\"mode\":\"2D\"" : ",\"mode\":\"none\"")
        if let used = fix.satellitesUsed {
            appendStatic(",\"satellitesUsed\":")
            appendInteger(used)
        }
        appendStatic("}\n")
    }

    /// A heart-rate record: the rate (count/min), then the sensor's contact, energy expended (kJ)
    /// and RR intervals (seconds, each an exact multiple of 1/1024, written in full) when sent.
    public mutating func appendHeartRate(_ measurement: HeartRateMeasurement, timestamp: Double, stepPath: JSONString?) {
        appendPrefix(uptime: measurement.uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"sensorType\":\"heartRate\",\"heartRate\":")
        appendInteger(measurement.heartRate)
        appendStatic(",\"unit\":\"count/min\"")
        switch measurement.contact {
        case true?: appendStatic(",\"contact\":true")
        case false?: appendStatic(",\"contact\":false")
        case nil: break
        }
        if let energy = measurement.energyExpended {
            appendStatic(",\"energyExpended\":")
            appendInteger(energy)
        }
        if !measurement.rrIntervals.isEmpty {
            appendStatic(",\"rrIntervals\":[")
            for (i, interval) in measurement.rrIntervals.enumerated() {
                if i > 0 { appendStatic(",") }
                appendNumber(interval)
            }
            appendStatic("]")
        }
        appendStatic("}\n")
    }

    /// A sound-level record.
    public mutating func appendSoundLevel(_ level: SoundLevel, timestamp: Double, stepPath: JSONString?) {
        appendPrefix(uptime: level.uptime, timestamp: timestamp, stepPath: stepPath)
        appendStatic(",\"timeInterval\":")
        appendNumber(level.timeInterval)
        appendStatic(",\"average\":")
        appendNumber(level.average)
        appendStatic(",\"peak\":")
        appendNumber(level.peak)
        appendStatic(",\"unit\":\"dBFS\"}\n")
    }

    // MARK: Pieces


    /// Uptime and timestamp at nanosecond resolution (`RecordScratch.putTime`), and the step
    /// path: a record's prefix, shared with the record before when it is the same.
    mutating func appendPrefix(uptime: Double, timestamp: Double, stepPath: JSONString?) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { _ in }
    }

    mutating func appendSensorType(_ type: SensorType) {
        appendStatic(type.jsonLiteral)
    }

    mutating func appendOptional(_ key: StaticString, _ value: Double?) {
        guard let value, value.isFinite else { return }
        appendStatic(key)
        appendNumber(value)
    }

    /// Appends raw bytes of a static ASCII string.

    public mutating func appendStatic(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends raw, already encoded JSON bytes.

    public mutating func appendRaw<C: Collection>(_ raw: C) where C.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Appends a number in shortest round-trip form; `null` when not finite.

    public mutating func appendNumber(_ value: Double) {
        RecordScratch.with { w in
            w.putNumber(value)
            w.flush(into: &bytes)
        }
    }

    /// Appends a quantised channel's value as the shortest decimal giving its count back (any
    /// other number as `appendNumber` writes it).
    @inline(__always)
    public mutating func appendNumber(_ value: Double, _ format: QuantizedDecimal) {
        RecordScratch.with { w in
            w.putNumber(value, format)
            w.flush(into: &bytes)
        }
    }

    /// Appends a decimal integer.
    public mutating func appendInteger(_ value: Int) {
        RecordScratch.with { w in
            w.putInteger(Int64(value))
            w.flush(into: &bytes)
        }
    }

    /// Appends a JSON string literal with escaping.
    public mutating func appendString(_ s: String) {
        JSONString.appendEscaped(s, to: &bytes)
    }
}

/// A string already encoded as a JSON literal (quotes included), for values written on every
/// record such as the step path.
public struct JSONString: Sendable, Equatable {
    public let value: String
    public let bytes: [UInt8]

    public init(_ value: String) {
        self.value = value
        var b: [UInt8] = []
        JSONString.appendEscaped(value, to: &b)
        bytes = b
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `s` as a JSON string literal: quotes, backslash and control characters escaped.
    public static func appendEscaped(_ s: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONLinesEncoder {
    /// Removes a trailing `\n` (to embed a record in an array).
    public mutating func removeLastNewline() {
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }  // the last prefix stays where it was
    }
}

extension JSONLinesEncoder {
    /// Appends any decoded record in the files' key order, omitting unset fields (live tail
    /// output, re-encoding without `JSONEncoder`).
    public mutating func appendRecord(_ r: Record) {
        var first = true
        func key(_ name: StaticString) {
            appendStatic(first ? "{\"" : ",\"")
            first = false
            appendStatic(name)
            appendStatic("\":")
        }
        func number(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            key(name)
            appendNumber(value)
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            appendString(value)
        }
        func integer(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            appendInteger(value)
        }
        // Markers carry `timestampDate` after `timestamp`; location records after `sensorType`.
        let isLocation = r.sensorType == SensorType.location.rawValue
        number("uptime", r.uptime)
        number("timestamp", r.timestamp)
        if !isLocation { string("timestampDate", r.timestampDate) }
        string("stepPath", r.stepPath)
        string("event", r.event)
        string("sensorType", r.sensorType)
        string("side", r.side)
        // Heart-rate records: their fields after `sensorType`, `unit` among them (as
        // `appendHeartRate` places them).
        if let rate = r.heartRate {
            integer("heartRate", rate)
            string("unit", r.unit)
            if let contact = r.contact {
                key("contact")
                appendStatic(contact ? "true" : "false")
            }
            integer("energyExpended", r.energyExpended)
            if let intervals = r.rrIntervals {
                key("rrIntervals")
                appendStatic("[")
                for (i, v) in intervals.enumerated() {
                    if i > 0 { appendStatic(",") }
                    appendNumber(v)
                }
                appendStatic("]")
            }
        }
        if isLocation { string("timestampDate", r.timestampDate) }
        number("x", r.x)
        number("y", r.y)
        number("z", r.z)
        number("w", r.w)
        string("referenceCoordinate", r.referenceCoordinate)
        number("heading", r.heading)
        integer("eventAccuracy", r.eventAccuracy)
        integer("droppedSamples", r.droppedSamples)
        // `duration`: a gap's or a discarded span's after `droppedSamples`, a bout's after
        // `startUptime` (as their own writers place it).
        if r.droppedSamples != nil { number("duration", r.duration) }
        string("errorDescription", r.errorDescription)
        number("latitude", r.latitude)
        number("longitude", r.longitude)
        number("horizontalAccuracy", r.horizontalAccuracy)
        number("verticalAccuracy", r.verticalAccuracy)
        number("altitude", r.altitude)
        number("course", r.course)
        number("speed", r.speed)
        number("relativeDistance", r.relativeDistance)
        number("totalDistance", r.totalDistance)
        string("mode", r.mode)
        integer("satellitesUsed", r.satellitesUsed)
        number("startUptime", r.startUptime)
        if r.droppedSamples == nil { number("duration", r.duration) }
        integer("steps", r.steps)
        number("cadence", r.cadence)
        number("distance", r.distance)
        number("walkingSpeed", r.walkingSpeed)
        number("strideLength", r.strideLength)
        number("timeInterval", r.timeInterval)
        number("average", r.average)
        number("peak", r.peak)
        if r.heartRate == nil { string("unit", r.unit) }
        appendStatic(first ? "{}\n" : "}\n")
    }
}

extension SensorType {
    /// The type's name as a JSON string literal (quotes included).
    var jsonLiteral: StaticString {
        switch self {
        case .accelerometer: "\"accelerometer\""
        case .gyro: "\"gyro\""
        case .magnetometer: "\"magnetometer\""
        case .location: "\"location\""
        case .soundLevel: "\"soundLevel\""
        case .attitude: "\"attitude\""
        case .gravity: "\"gravity\""
        case .userAcceleration: "\"userAcceleration\""
        case .rotationRate: "\"rotationRate\""
        case .magneticField: "\"magneticField\""
        case .step: "\"step\""
        case .heartRate: "\"heartRate\""
        }
    }
}

/// A per-sample record's prefix (`{"uptime":…,"timestamp":…,"stepPath":…`) as written into
/// the encoder's bytes, and what it was written from.
struct RecordPrefix {
    /// Longer prefixes (a long step path) are written each time: a copy must fit the scratch.
    static let maximumLength = 512
    private var uptime: UInt64 = 0
    private var timestamp: UInt64 = 0
    private var stepPath: [UInt8]?
    private(set) var start = 0
    /// 0: none.
    private(set) var length = 0

    /// True when a record of these would have this prefix, and it is still in the first
    /// `count` bytes.
    @inline(__always)
    func isSame(uptime: Double, timestamp: Double, stepPath: JSONString?, within count: Int) -> Bool {
        guard length > 0, self.uptime == uptime.bitPattern, self.timestamp == timestamp.bitPattern, start + length <= count else { return false }
        switch (self.stepPath, stepPath) {
        case (nil, nil): return true
        case (let a?, let b?): return a == b.bytes
        default: return false
        }
    }

    @inline(__always)
    mutating func remember(uptime: Double, timestamp: Double, stepPath: JSONString?, start: Int, length: Int) {
        self.uptime = uptime.bitPattern
        self.timestamp = timestamp.bitPattern
        self.stepPath = stepPath?.bytes
        self.start = start
        self.length = length <= Self.maximumLength ? length : 0
    }

    mutating func forget() {
        length = 0
    }
}
