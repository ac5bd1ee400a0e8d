import FoundationEssentials
import Glibc
import RecorderRuntime

/// Appends whole JSON lines to a file, hashing exactly the bytes written.
///
/// Each `write` hands complete lines to the kernel at once; a failed or short write is cut back
/// to the last whole line, so the file never ends in a partial line that recorderd wrote.
/// `syncIfDue` calls `fdatasync` at most once per `syncInterval` (data survive power loss with at
/// most that much lost); `close` fsyncs. Confined to one serial queue: not thread-safe.
public final class RecordFileWriter {
    public let path: String
    let fd: Int32
    var hash = SHA256()
    public private(set) var bytesWritten = 0
    var sync: PeriodicSync
    public private(set) var isClosed = false

    public init(path: String, syncInterval: Double = 1.0) throws(StorageError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError("create", path: path, errno: errno) }
        self.fd = fd
        sync = PeriodicSync(interval: syncInterval)
    }

    /// Writes `bytes` (whole lines).
    public func write(_ bytes: [UInt8]) throws(StorageError) {
        guard !bytes.isEmpty else { return }
        let failure = bytes.withUnsafeBytes { POSIXFile.writeAll(fd, $0) }
        if let failure {
            _ = ftruncate(fd, off_t(bytesWritten))
            _ = lseek(fd, off_t(bytesWritten), SEEK_SET)
            throw StorageError("write", path: path, errno: failure)
        }
        hash.update(bytes)
        bytesWritten += bytes.count
        sync.wrote()
    }

    /// Makes written data durable if the last sync is older than the interval.
    public func syncIfDue(now: Double) {
        sync.syncIfDue(fd, now: now)
    }

    /// The SHA-256 of the bytes written so far.
    public var sha256: String { hash.hexDigest() }

    /// Fsyncs and closes.
    public func close() throws(StorageError) {
        guard !isClosed else { return }
        isClosed = true
        let syncFailed = fsync(fd) != 0 ? errno : 0
        Glibc.close(fd)
        if syncFailed != 0 { throw StorageError("fsync", path: path, errno: syncFailed) }
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
    }
}
