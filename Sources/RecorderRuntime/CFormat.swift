import Glibc

/// Numbers as C's printf writes them (`vsnprintf`, the C locale: a point for the decimals):
/// Foundation's `String(format:)` for numbers, without Foundation. `%d`, `%f`, `%g`, `%x`… with
/// Swift integers and floating-point values; no `%s` or `%@` (put the text beside the result).
public enum CFormat {
    /// `format` with its conversions filled from `arguments`.
    public static func string(_ format: String, _ arguments: any CVarArg...) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let needed = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        guard needed >= 0 else { return "" }
        if Int(needed) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
