/// Validation of identifiers that become file or directory names.
///
/// `[A-Za-z0-9._-]{1,64}`, and not `.` or `..`: no identifier can name a path outside the
/// run directory.
public enum RecorderIdentifier {
    /// The longest identifier accepted.
    public static let maximumLength = 64

    /// True when `value` may be used as a file or directory name.
    public static func isValid(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard (1...maximumLength).contains(utf8.count), value != ".", value != ".." else { return false }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// What a valid identifier looks like, for error messages.
    public static let expectation = "1 to 64 characters of A-Z a-z 0-9 . _ - (not \".\" or \"..\")"
}
