/// Control characters (C0, DEL, C1) in text from outside: text recorderd keeps in files and shows
/// on terminals never carries one (an escape sequence, a NUL), except line breaks and tabs where
/// free text allows them. The one check behind step paths, answers, canonical URLs and export
/// identifiers.
public enum ControlCharacters {
    /// True for C0 (below U+0020), DEL and C1 (U+0080…U+009F).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The first control character of `text`, or nil; `allowingLineBreaks` lets `\n`, `\r` and
    /// `\t` pass.
    public static func first(in text: String, allowingLineBreaks: Bool = false) -> Unicode.Scalar? {
        text.unicodeScalars.first { isControl($0) && !(allowingLineBreaks && ($0 == "\n" || $0 == "\r" || $0 == "\t")) }
    }

    /// `control character U+001B in <place>`, or nil when `text` has none.
    public static func problem(in text: String, place: String, allowingLineBreaks: Bool = false) -> String? {
        first(in: text, allowingLineBreaks: allowingLineBreaks).map {
            let hex = String($0.value, radix: 16, uppercase: true)
            return "control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) in \(place)"
        }
    }

    /// True when `text` has a space or a control character (not a URL, a reference or a code).
    public static func containsSpaceOrControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == " " || isControl($0) }
    }
}
