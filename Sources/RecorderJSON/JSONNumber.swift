import Glibc

/// JSON numbers read from their text without a parser: what the JSON-lines record decoder and the
/// replay device's files read millions of.
public enum JSONNumber {
    /// A JSON number's text as a Double: exact, in JSON's grammar
    /// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), and one a Double holds — nil for a
    /// magnitude too large (never infinity) or a nonzero number too small (never a silent 0).
    /// The one rule for numbers: `JSONParser` reads its numbers with it, as the records' decoder
    /// and the replay files do. One pass checks the grammar and gathers the significant digits;
    /// up to 19 of them with a small power of ten are converted in integer arithmetic
    /// (`DecimalToDouble`), anything else by `strtod`.
    public static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = text.count
        guard n > 0 else { return nil }
        var i = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var digits: UInt64 = 0, significant = 0, exponent = 0, overflow = false
        @inline(__always) func digit(_ c: UInt8) -> UInt8? {
            let d = c &- UInt8(ascii: "0")
            return d < 10 ? d : nil
        }
        @inline(__always) func take(_ d: UInt8, fraction: Bool) {
            if digits == 0, d == 0 {
                if fraction { exponent -= 1 }
                return
            }
            if significant < 19 {
                digits = digits &* 10 &+ UInt64(d)
                significant += 1
                if fraction { exponent -= 1 }
            } else {
                overflow = true
                if !fraction { exponent += 1 }
            }
        }
        // Integer part: 0, or a nonzero digit and more.
        guard i < n, let first = digit(text[i]) else { return nil }
        i += 1
        if first != 0 {
            take(first, fraction: false)
            while i < n, let d = digit(text[i]) {
                take(d, fraction: false)
                i += 1
            }
        }
        if i < n, text[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n, let d = digit(text[i]) {
                take(d, fraction: true)
                i += 1
            }
            guard i > fractionStart else { return nil }
        }
        if i < n, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            var sign = 1
            if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                if text[i] == UInt8(ascii: "-") { sign = -1 }
                i += 1
            }
            let exponentStart = i
            var e = 0
            while i < n, let d = digit(text[i]) {
                if e < 100_000 { e = e * 10 + Int(d) }
                i += 1
            }
            guard i > exponentStart else { return nil }
            exponent += sign * e
        }
        guard i == n else { return nil }
        if !overflow, let value = DecimalToDouble.value(digits: digits, exponent: exponent, negative: negative) { return value }
        let nonzero = digits != 0 || overflow
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer -> Double? in
            for (k, byte) in text.enumerated() { buffer[k] = CChar(bitPattern: byte) }
            buffer[n] = 0
            let value = strtod(buffer.baseAddress!, nil)
            guard value.isFinite, value != 0 || !nonzero else { return nil }
            return value
        }
    }
}
