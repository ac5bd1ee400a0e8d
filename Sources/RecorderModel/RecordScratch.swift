/// One record's bounded parts (keys, numbers, times) written through a pointer into a stack
/// scratch and moved into the encoder's bytes with one append: each `Array.append` checks
/// uniqueness and capacity (about 80 instructions for a short key), which a motion record's ten
/// pieces paid ten times. Parts of unbounded length (the step path) go to the array directly,
/// between two flushes.
struct RecordScratch {
    /// Room for the bounded parts of any record: keys and at most 8 numbers of at most 40 bytes.
    static let capacity = 512
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    /// Runs `body` with an empty scratch on the stack.
    @inline(__always)
    static func with<R>(_ body: (inout RecordScratch) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var scratch = RecordScratch(base: buffer.baseAddress!)
            return body(&scratch)
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
        (base + count).update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        count += s.utf8CodeUnitCount
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

    /// Seconds at nanosecond resolution (the clocks' and IIO timestamps' unit): the whole
    /// seconds, then up to nine decimals without trailing zeros. Beyond 10⁹ s, or not finite,
    /// as any number. (Two per record: written here rather than by `putDecimal`, whose general
    /// digit count and zero stripping cost ~180 more instructions a time.)
    mutating func putTime(_ seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 1e9 else { return putNumber(seconds) }
        let scaled = seconds * 1e9
        let nanoseconds = Int64(scaled + (scaled < 0 ? -0.5 : 0.5))
        if nanoseconds < 0 { put(byte: UInt8(ascii: "-")) }
        let magnitude = nanoseconds.magnitude
        putInteger(Int64(magnitude / 1_000_000_000))
        var fraction = magnitude % 1_000_000_000
        guard fraction != 0 else { return }
        var digits = 9
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        put(byte: UInt8(ascii: "."))
        for i in stride(from: digits - 1, through: 0, by: -1) {
            base[count + i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
        count += digits
    }

    /// A decimal integer.
    mutating func putInteger(_ value: Int64) {
        if value == 0 { return put(byte: UInt8(ascii: "0")) }
        if value < 0 { put(byte: UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        while probe > 0 {
            probe /= 10
            digits += 1
        }
        for i in stride(from: digits - 1, through: 0, by: -1) {
            base[count + i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        count += digits
    }

    /// `digits × 10^exponent` as a plain JSON number: no exponent, no trailing zeros after the
    /// point (`0.061`, `-1800`, `12`). At most 19 digits, a sign, a point and `-exponent` leading
    /// zeros or `exponent` trailing ones: the callers' exponents (−13…14) keep it under 40 bytes.
    mutating func putDecimal(_ digits: Int64, exponent: Int) {
        if digits == 0 { return put(byte: UInt8(ascii: "0")) }
        var magnitude = digits.magnitude
        var exponent = exponent
        while exponent < 0, magnitude % 10 == 0 {
            magnitude /= 10
            exponent += 1
        }
        if digits < 0 { put(byte: UInt8(ascii: "-")) }
        var length = 0
        var probe = magnitude
        while probe > 0 {
            probe /= 10
            length += 1
        }
        let fraction = max(0, -exponent)
        // Digits before the point (at least one: "0" when all are fraction digits).
        let whole = max(1, length - fraction)
        let total = fraction > 0 ? whole + 1 + fraction : length
        var i = count + total
        for position in 0..<max(length, fraction + 1) {
            if position == fraction, fraction > 0 {
                i -= 1
                base[i] = UInt8(ascii: ".")
            }
            i -= 1
            base[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        count += total
        for _ in 0..<max(0, exponent) { put(byte: UInt8(ascii: "0")) }
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
