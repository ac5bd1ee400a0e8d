/// The encoder of recorderd's JSON-lines records into a reused byte buffer, by the record kinds
/// of `RecordSchema`: each kind's fields, keys and order come from its `RecordKind`.
///
/// Compact objects, the kind's key order, shortest round-trip numbers (Swift's `description`),
/// times (`uptime`, `timestamp`, `startUptime`) at nanosecond resolution, quantised channels as
/// the shortest decimal giving their count back (`QuantizedDecimal`), never NaN or Infinity (a
/// motion axis that is not finite is written as `null`, any other such number is left out), one
/// record per line. The typed appenders (`appendMotion`, `appendGap` …: `+Kinds`) write what
/// recorders produce; `appendRecord` writes any decoded record back (`+Record`). Used on the
/// per-sample hot path: no `JSONEncoder`, no intermediate strings for keys.
public struct JSONLinesEncoder: Sendable {
    /// The encoded bytes since the last `removeAll`.
    public internal(set) var bytes: [UInt8] = []

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
        let keys = MotionKeys.standard  // once a scan
        for k in types.indices {
            guard let vector = frame.vector(for: types[k]) else { continue }
            if written == 0 {
                w.putPrefix(uptime: uptime, timestamp: timestamp, path: path, keys: keys)
                prefixLength = w.count
            } else {
                w.put(UnsafeBufferPointer(start: w.base, count: prefixLength))
            }
            putMotionBody(&w, sensorType: types[k], vector: vector, quantized: formats[k], keys: keys)
            written &+= 1
        }
        return written
    }

    /// A motion record after its prefix: the type, the axes, the end of the line — the motion
    /// kind's keys (`MotionKeys`).
    @inline(__always)
    static func putMotionBody(_ w: inout RecordScratch, sensorType: SensorType, vector: Vector3, quantized: QuantizedVector?,
                              keys: MotionKeys.Pointer = MotionKeys.standard) {
        let keys = keys.keys
        w.put(keys.pointee.head(sensorType))  // `,"sensorType":"gyro","x":` in one piece
        if let quantized {
            w.putNumber(vector.x, quantized.x)
            w.put(keys.pointee.y)
            w.putNumber(vector.y, quantized.y)
            w.put(keys.pointee.z)
            w.putNumber(vector.z, quantized.z)
        } else {  // kept apart: one branch with optional formats costs ~160 instructions a record
            putAxes(&w, vector.x, vector.y, vector.z, keys: keys)
        }
        w.put(keys.pointee.end)
    }

    /// Three axes' numbers in full: `x`'s value (its key is the head's), then `y` and `z` with
    /// their keys. A motion, an attitude's vector part, a magnetic field.
    @inline(__always)
    static func putAxes(_ w: inout RecordScratch, _ x: Double, _ y: Double, _ z: Double, keys: UnsafePointer<MotionKeys>) {
        w.putNumber(x)
        w.put(keys.pointee.y)
        w.putNumber(y)
        w.put(keys.pointee.z)
        w.putNumber(z)
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
            appendInPlace(room: RecordScratch.capacity &+ prefixLength) { w, end in
                // The earlier record's prefix lies `start - prefixStart` bytes before the bytes' end.
                w.put(UnsafeBufferPointer(start: end - (start &- prefixStart), count: prefixLength))
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
            appendInPlace(room: records &* RecordScratch.capacity) { w, _ in write(&w, nil) }
            return
        }
        stepPath.bytes.withUnsafeBufferPointer { path in
            appendInPlace(room: records &* (RecordScratch.capacity &+ path.count)) { w, _ in write(&w, path) }
        }
    }

    /// Writes through a `RecordScratch` over `room` bytes of `bytes`' spare capacity; what it
    /// wrote (at most `room` bytes) is appended. `write` is also given where the bytes written
    /// before end (the scratch's base with 6.3; not with 6.2, whose scratch is a temporary), for
    /// a record that repeats the one before's prefix.
    @inline(__always)
    mutating func appendInPlace(room: Int, _ write: (inout RecordScratch, UnsafePointer<UInt8>) -> Void) {
        #if compiler(>=6.3)
        bytes.append(addingCapacity: room) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var w = RecordScratch(base: buffer.baseAddress!)
                write(&w, UnsafePointer(buffer.baseAddress!))
                initialized = w.count
            }
        }
        #else
        // Swift 6.2 (Debian's toolchain, the arm64 package's) has no `append(addingCapacity:)`:
        // the record is written in a temporary and what was written is appended. The temporary
        // is of a constant size when the room fits it, so that it is on the stack (a size known
        // only at run time was a heap allocation per record: 1,146 more instructions a scan).
        func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
            var w = RecordScratch(base: buffer.baseAddress!)
            bytes.withUnsafeBufferPointer { earlier in
                // (An empty array may have no storage; nothing before it is read then.)
                write(&w, earlier.baseAddress.map { $0 + earlier.count } ?? UnsafePointer(buffer.baseAddress!))
            }
            w.flush(into: &bytes)
        }
        if room <= 4096 {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096, fill)
        } else {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room, fill)
        }
        #endif
    }

    // MARK: Pieces


    /// Uptime and timestamp at nanosecond resolution (`RecordScratch.putTime`), and the step
    /// path: a record's prefix, shared with the record before when it is the same.
    mutating func appendPrefix(uptime: Double, timestamp: Double, stepPath: JSONString?) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { _ in }
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
