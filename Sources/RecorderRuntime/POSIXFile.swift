import FoundationEssentials
import Glibc

/// The file syscalls recorderd uses, wrapped once: retries on EINTR, reports errno.
public enum POSIXFile {
    /// Writes every byte of `bytes` to `fd`; returns nil, or the errno of the failure.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }
}
