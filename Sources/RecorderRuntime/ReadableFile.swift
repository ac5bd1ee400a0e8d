import Glibc

/// A file open for reading, its descriptor closed when the last holder lets it go: Foundation's
/// `FileHandle(forReadingAtPath:)` for what the client side reads in pieces, without Foundation.
/// Its reads block: call them from a thread that may block (`QueueHandOff.blocking`).
public final class ReadableFile: Sendable {
    public let descriptor: Int32

    /// Opens `path`; nil when it cannot be opened (`errno` says why).
    public init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The file's size now, or nil.
    public var size: Int64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Up to `count` bytes from the current offset: empty at the end, nil on an error.
    public func read(upTo count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        while true {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes.removeSubrange(n...)
            return bytes
        }
    }

    /// Everything from `offset` to the end (`pread`, the current offset unchanged), or nil.
    public func readToEnd(from offset: Int64) -> [UInt8]? {
        var all: [UInt8] = []
        var at = offset
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = piece.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(at)) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return all }
            all += piece[0..<n]
            at += Int64(n)
        }
    }
}
