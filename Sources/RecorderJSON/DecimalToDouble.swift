/// Exact, correctly rounded conversion of a decimal number's digits to a Double without
/// `strtod`, for the common case: at most 19 significant digits and a power of ten of at most
/// 19 either way (every number recorderd writes: shortest round-trip forms of 17 digits or
/// fewer). Returns nil otherwise (the caller falls back to `strtod`).
///
/// A value w × 10^q is computed in 128-bit integer arithmetic: for q ≥ 0 the product w × 10^q;
/// for q < 0 the quotient of w × 2^s by 10^-q, with s chosen so the quotient has 64 significant
/// bits, and its remainder as the sticky bit. The 64-bit quotient is then rounded to 53 bits
/// (to nearest, ties to even) — the rounding `strtod` does, from the exact value's leading bits
/// and whether anything nonzero follows them.
enum DecimalToDouble {
    /// 10^p for p in 0...19 (computed: no lazily initialised global on the hot path).
    @inline(__always)
    static func powerOfTen(_ p: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<p { result &*= 10 }
        return result
    }

    /// `negative ? -1 : 1` × `digits` × 10^`exponent`.
    static func value(digits w: UInt64, exponent q: Int, negative: Bool) -> Double? {
        if w == 0 { return negative ? -0.0 : 0.0 }
        guard q >= -19, q <= 19 else { return nil }
        var high: UInt64, low: UInt64, scale: Int, sticky = false
        if q >= 0 {
            // w × 10^q: up to 128 bits.
            (high, low) = w.multipliedFullWidth(by: powerOfTen(q))
            scale = 0
        } else {
            // w × 2^s / 10^-q with 2^63 <= quotient < 2^64: with s = 63 - bits(w) + bits(d) the
            // quotient lies in (2^62, 2^64) and w × 2^s < 2^127; one more bit if it is below 2^63.
            let d = powerOfTen(-q)
            var s = 63 - (64 - w.leadingZeroBitCount) + (64 - d.leadingZeroBitCount)
            var (h, l) = shifted(w, by: s)
            var (quotient, remainder) = d.dividingFullWidth((h, l))
            if quotient >> 63 == 0 {
                s += 1
                (h, l) = shifted(w, by: s)
                (quotient, remainder) = d.dividingFullWidth((h, l))
            }
            (high, low) = (0, quotient)
            scale = -s
            sticky = remainder != 0
        }
        // Normalise to 64 leading bits in `top`, the rest folded into the sticky bit.
        var top: UInt64
        if high != 0 {
            let shift = 64 - high.leadingZeroBitCount
            top = (high << (64 - shift)) | (low >> shift)
            sticky = sticky || (low << (64 - shift)) != 0
            scale += shift
        } else {
            let zeros = low.leadingZeroBitCount
            top = low << zeros
            scale -= zeros
        }
        // Round the 64 bits to 53: the 11 bits below, half = 0x400.
        var mantissa = top >> 11
        let rest = top & 0x7FF
        if rest > 0x400 || (rest == 0x400 && (sticky || mantissa & 1 == 1)) {
            mantissa += 1
            if mantissa == 1 << 53 {
                mantissa >>= 1
                scale += 1
            }
        }
        let exponent = scale + 11
        // mantissa × 2^exponent, normal numbers only (others: strtod).
        guard exponent + 52 < 1023, exponent + 52 > -1022 else { return nil }
        let result = Double(sign: .plus, exponent: exponent, significand: Double(mantissa))
        return negative ? -result : result
    }

    /// w × 2^s as 128 bits (high, low), for 0 <= s <= 127 and a product below 2^128.
    private static func shifted(_ w: UInt64, by s: Int) -> (UInt64, UInt64) {
        if s == 0 { return (0, w) }
        if s >= 64 { return (w << UInt64(s - 64), 0) }
        return (w >> UInt64(64 - s), w << UInt64(s))
    }
}
