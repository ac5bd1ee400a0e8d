/// One record's bounded parts (keys, numbers, times) written through a pointer: each
/// `Array.append` checks uniqueness and capacity (about 80 instructions for a short key), which a
/// motion record's ten pieces paid ten times. The per-sample records are written straight into the
/// spare capacity of the encoder's bytes (`JSONLinesEncoder.appendRecord`: one capacity check, no
/// copy); others into a stack scratch moved into the bytes with one append (`with`, `flush`).
struct RecordScratch {
    /// Room for the bounded parts of any record (keys and at most 8 numbers of at most 40 bytes)
    /// after a prefix of at most `RecordPrefix.maximumLength` bytes (a longer step path is
    /// room asked for on top).
    static let capacity = 1024
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    /// Runs `body` with an empty scratch on the stack.
    @inline(__always)
    static func with(_ body: (inout RecordScratch) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var scratch = RecordScratch(base: buffer.baseAddress!)
            body(&scratch)
        }
    }

    /// Moves what was written to the end of `bytes`; the scratch is empty again.
    @inline(__always)
    mutating func flush(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        count = 0
    }

    @inline(__always)
    mutating func put(_ s: StaticString) {
        Self.copy(s.utf8Start, s.utf8CodeUnitCount, to: base + count)
        count += s.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func put(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let start = buffer.baseAddress else { return }
        Self.copy(start, buffer.count, to: base + count)
        count += buffer.count
    }

    /// Copies `count` bytes: eight at a time, the last eight overlapping, without a call to
    /// `memcpy` (whose set-up is most of the cost of copying a key of 5–40 bytes).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, _ count: Int, to target: UnsafeMutablePointer<UInt8>) {
        guard count >= 8 else {
            for i in 0..<count { target[i] = source[i] }
            return
        }
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        var i = 0
        while i + 8 < count {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
            i += 8
        }
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
    }

    @inline(__always)
    mutating func put(byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// A number as `JSONLinesEncoder.appendNumber` writes it: `null` when not finite, integers
    /// without a point, otherwise the shortest round-trip text.
    mutating func putNumber(_ value: Double) {
        guard value.isFinite else { return put("null") }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return putInteger(Int64(value)) }
        var sink = Sink(base: base + count)
        value.write(to: &sink)
        count += sink.count
    }

    /// A quantised channel's value (`QuantizedDecimal`), or in full when it has no format or
    /// no decimal.
    @inline(__always)
    mutating func putNumber(_ value: Double, _ format: QuantizedDecimal?) {
        if let decimal = format?.decimal(value) {
            putDecimal(decimal.digits, exponent: decimal.exponent)
        } else {
            putNumber(value)
        }
    }

    /// `{"uptime":…,"timestamp":…`: how every record starts (the keys: `MotionKeys`).
    @inline(__always)
    mutating func putPrefix(uptime: Double, timestamp: Double, keys: MotionKeys.Pointer = MotionKeys.standard) {
        put(keys.keys.pointee.uptime)
        putTime(uptime)
        put(keys.keys.pointee.timestamp)
        putTime(timestamp)
    }

    /// A motion record's head: its six words stored (within the scratch's bound), the count
    /// advanced by its length.
    @inline(__always)
    mutating func put(_ key: UnsafePointer<HeadKey>) {
        put(key.pointee)
    }

    /// A key of at most 48 bytes: six stores, the count advanced by its length.
    @inline(__always)
    mutating func put(_ key: HeadKey) {
        let p = UnsafeMutableRawPointer(base + count)
        let w = key.words
        p.storeBytes(of: w.0, as: UInt64.self)
        p.storeBytes(of: w.1, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: w.2, toByteOffset: 16, as: UInt64.self)
        p.storeBytes(of: w.3, toByteOffset: 24, as: UInt64.self)
        p.storeBytes(of: w.4, toByteOffset: 32, as: UInt64.self)
        p.storeBytes(of: w.5, toByteOffset: 40, as: UInt64.self)
        count &+= key.length
    }

    /// A short key: its two words stored (the scratch's bound leaves room for the 16 bytes), the
    /// count advanced by its length.
    @inline(__always)
    mutating func put(_ key: ShortKey) {
        let p = UnsafeMutableRawPointer(base + count)
        p.storeBytes(of: key.low, as: UInt64.self)
        p.storeBytes(of: key.high, toByteOffset: 8, as: UInt64.self)
        count &+= key.length
    }

    /// `{"uptime":…,"timestamp":…` and, with a step path, `,"stepPath":` and its JSON text.
    @inline(__always)
    mutating func putPrefix(uptime: Double, timestamp: Double, path: UnsafeBufferPointer<UInt8>?, keys: MotionKeys.Pointer = MotionKeys.standard) {
        putPrefix(uptime: uptime, timestamp: timestamp, keys: keys)
        if let path {
            put(keys.keys.pointee.stepPath)
            put(path)
        }
    }

    /// A decimal integer.
    mutating func putInteger(_ value: Int64) {
        if value < 0 { put(byte: UInt8(ascii: "-")) }
        putUnsigned(value.magnitude)
    }

    /// A decimal integer without sign: below 10⁸ (the times' whole seconds, counts) eight digits
    /// at once (`eightDigits`) less the leading zeros, above digit pair by digit pair.
    @inline(__always)
    mutating func putUnsigned(_ value: UInt64) {
        guard value < 100_000_000 else {
            let length = Self.digitCount(value)
            Self.writeDigits(value, length, at: base + count)
            count += length
            return
        }
        let digits = Self.eightDigits(value)
        let leading = min(digits.trailingZeroBitCount &>> 3, 7)  // 0: one digit "0"
        Self.storeEight(digits &>> UInt64(leading &* 8), at: base + count)
        count += 8 &- leading
    }

    /// Seconds at nanosecond resolution (the clocks' and IIO timestamps' unit): the whole
    /// seconds, then up to nine decimals without trailing zeros. Beyond 10⁹ s, or not finite,
    /// as any number. (Two per record: written here rather than by `putDecimal`, whose general
    /// digit count and zero stripping cost more.)
    mutating func putTime(_ seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 1e9 else { return putNumber(seconds) }
        let scaled = seconds * 1e9
        // Rounded half away from zero. Not `Int64(scaled + 0.5)`: from 2⁵² ns (52 days of uptime)
        // a `Double` holds whole nanoseconds only, and adding 0.5 to an odd count rounds it up.
        var nanoseconds = Int64(scaled)
        let rest = scaled - Double(nanoseconds)
        if rest >= 0.5 { nanoseconds += 1 } else if rest <= -0.5 { nanoseconds -= 1 }
        if nanoseconds < 0 { put(byte: UInt8(ascii: "-")) }
        let magnitude = nanoseconds.magnitude
        putUnsigned(magnitude / 1_000_000_000)
        let fraction = magnitude % 1_000_000_000
        guard fraction != 0 else { return }
        // The first decimal, then the other eight at once, less their trailing zeros.
        put(byte: UInt8(ascii: "."))
        put(byte: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100_000_000))
        let last = fraction % 100_000_000
        guard last != 0 else { return }
        let digits = Self.eightDigits(last)
        Self.storeEight(digits, at: base + count)
        count += 8 &- digits.leadingZeroBitCount &>> 3  // last ≠ 0: at least one digit is not 0
    }

    /// The eight decimal digits of `value` (< 10⁸, with leading zeros), one per byte, the most
    /// significant in the lowest byte (first in memory once stored little-endian), as numbers
    /// 0…9: the two halves of four digits, each split into two pairs and each pair into two
    /// digits, all lanes at once by multiplications (a division by 100 of a number below 10⁴ is
    /// `n × 10486 >> 20`, by 10 of one below 100 is `n × 103 >> 10`). About 25 instructions
    /// with the split, instead of four divisions and a table.
    @inline(__always)
    static func eightDigits(_ value: UInt64) -> UInt64 {
        let high = value / 10_000, low = value % 10_000
        var x = high | low &<< 32  // 32-bit lanes: abcd, efgh
        let hundreds = (x &* 10486) &>> 20 & 0x0000_007F_0000_007F
        x = (x &- hundreds &* 100) &<< 16 | hundreds  // 16-bit lanes: ab, cd, ef, gh
        let tens = (x &* 103) &>> 10 & 0x000F_000F_000F_000F
        return (x &- tens &* 10) &<< 8 | tens  // 8-bit lanes: a, b, c, d, e, f, g, h
    }

    /// Writes the eight bytes of `digits` (`eightDigits`, shifted) as ASCII, first byte first.
    /// The scratch's bound per number leaves room for the bytes after the last one counted.
    @inline(__always)
    static func storeEight(_ digits: UInt64, at p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: (digits | 0x3030_3030_3030_3030).littleEndian, as: UInt64.self)
    }

    /// `digits × 10^exponent` as a plain JSON number: no exponent, no trailing zeros after the
    /// point (`0.061`, `-1800`, `12`). At most 19 digits, a sign, a point and `-exponent` leading
    /// zeros or `exponent` trailing ones: the callers' exponents (−13…14) keep it under 40 bytes.
    @inline(__always)
    mutating func putDecimal(_ digits: Int64, exponent: Int) {
        let magnitude = digits.magnitude
        guard magnitude != 0, magnitude < 100_000_000, exponent < 0, exponent >= -8 else {
            return putDecimalInFull(digits, exponent: exponent)
        }
        // The quantised channels' case (inlined; the rest is not): all eight digits at once; the
        // whole part is those before the last `-exponent`, the decimals those after, less their
        // trailing zeros.
        if digits < 0 { put(byte: UInt8(ascii: "-")) }
        let fraction = -exponent
        let eight = Self.eightDigits(magnitude)
        let decimals = fraction &- min(eight.leadingZeroBitCount &>> 3, fraction)
        let leading = eight.trailingZeroBitCount &>> 3  // magnitude ≠ 0: < 8
        let whole = 8 &- fraction &- leading
        if whole > 0 {
            Self.storeEight(eight &>> UInt64(leading &* 8), at: base + count)
            count += whole
        } else {
            put(byte: UInt8(ascii: "0"))
        }
        guard decimals > 0 else { return }
        put(byte: UInt8(ascii: "."))
        Self.storeEight(eight &>> UInt64((8 &- fraction) &* 8), at: base + count)
        count += decimals
    }

    /// `putDecimal` beyond the quantised channels' case.
    @inline(never)
    mutating func putDecimalInFull(_ digits: Int64, exponent: Int) {
        if digits == 0 { return put(byte: UInt8(ascii: "0")) }
        var magnitude = digits.magnitude
        var exponent = exponent
        while exponent < 0, magnitude % 10 == 0 {
            magnitude /= 10
            exponent += 1
        }
        if digits < 0 { put(byte: UInt8(ascii: "-")) }
        guard exponent < 0 else {
            putUnsigned(magnitude)
            for _ in 0..<exponent { put(byte: UInt8(ascii: "0")) }
            return
        }
        let fraction = -exponent
        // Right to left, each digit once: the `fraction` lowest digits (with leading zeros where
        // the number has fewer), the point, then what is left of the number ("0" when nothing).
        let whole = max(Self.digitCount(magnitude) - fraction, 1)
        let p = base + count
        let rest = Self.writeDigits(magnitude, fraction, at: p + whole + 1)
        p[whole] = UInt8(ascii: ".")
        Self.writeDigits(rest, whole, at: p)
        count += whole + 1 + fraction
    }

    /// The number of decimal digits of `value` (1 for 0).
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        var n = 1
        var v = value
        while v >= 10_000 {
            v /= 10_000
            n += 4
        }
        if v >= 100 { return n + (v >= 1_000 ? 3 : 2) }
        return n + (v >= 10 ? 1 : 0)
    }

    /// "00" … "99": two digits per division.
    @inline(__always)
    static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// The last `length` decimal digits of `value` (leading zeros where it has fewer) at `p`;
    /// returns the digits before them (`value / 10^length`).
    @inline(__always) @discardableResult
    static func writeDigits(_ value: UInt64, _ length: Int, at p: UnsafeMutablePointer<UInt8>) -> UInt64 {
        let pairs = digitPairs.utf8Start
        var v = value
        var i = length
        while i >= 2 {
            let r = Int(truncatingIfNeeded: v % 100)
            v /= 100
            i -= 2
            p[i] = pairs[2 &* r]
            p[i + 1] = pairs[2 &* r &+ 1]
        }
        if i == 1 {
            p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        return v
    }

    /// Where the standard library writes a `Double`'s shortest round-trip text (through
    /// `_writeASCII`, without making a `String`).
    struct Sink: TextOutputStream {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func write(_ string: String) {
            for byte in string.utf8 {
                base[count] = byte
                count += 1
            }
        }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            guard let start = buffer.baseAddress else { return }
            (base + count).update(from: start, count: buffer.count)
            count += buffer.count
        }
    }
}
