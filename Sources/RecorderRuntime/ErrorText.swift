import FoundationEssentials
import Glibc

/// A thrown error as one line for a person: a file system error as `path: reason` (the system's
/// text for its `errno`: `/etc/x.json: No such file or directory`), anything else as Swift
/// describes it. Foundation's `localizedDescription` without Foundation.
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        guard let cocoa = error as? CocoaError, let path = cocoa.filePath else { return reason(of: error) }
        return "\(path): \(reason(of: error))"
    }

    /// The reason alone, without the path (for a message that names the file already).
    public static func reason(of error: any Error) -> String {
        if let posix = error as? POSIXError { return reason(posix.code.rawValue) }
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        return (cocoa.underlying as? POSIXError).map { reason($0.code.rawValue) } ?? "error \(cocoa.code.rawValue)"
    }

    /// The system's text for `code` (`strerror`).
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
