import Glibc

/// A number with a fixed count of decimals for messages and notes (`%.1f`): C's formatting,
/// without Foundation's `String(format:)`.
public enum FixedDecimal {
    /// `value` rounded to `decimals` decimals (0–17), as `printf`'s `%.Nf` writes it
    /// (`nan`, `inf`, `-inf` as such).
    public static func text(_ value: Double, decimals: Int) -> String {
        let format = "%.\(min(max(decimals, 0), 17))f"
        let length = withVaList([value]) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else { return "\(value)" }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
