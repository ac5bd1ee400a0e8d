import FoundationEssentials
import Glibc

/// A file-system operation failed (disk full, permissions, missing directory).
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}
