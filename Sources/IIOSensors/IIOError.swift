import FoundationEssentials
import Glibc

/// A failed libiio call: which operation, on what, and the errno libiio reported.
public struct IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    /// The (positive) errno value; 0 when the failure was not a libiio call (a missing channel…).
    public var code: Int32
    public var detail: String?

    public init(_ operation: String, code: Int32 = 0, detail: String? = nil) {
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    /// The error for a libiio call that returned a negative errno (or -1 with `errno` set).
    static func call(_ operation: String, result: Int, detail: String? = nil) -> IIOError {
        let code = result < -1 ? Int32(-result) : errno
        return IIOError(operation, code: code, detail: detail)
    }

    public var description: String {
        var s = operation
        if let detail { s += " (\(detail))" }
        if code != 0 { s += ": " + String(cString: strerror(code)) }
        return s
    }
}
