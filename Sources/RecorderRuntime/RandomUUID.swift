import CRecorderRuntime
import FoundationEssentials
import Glibc

/// Version-4 UUIDs from the kernel's `getrandom(2)`, which needs no file descriptor: Foundation's
/// `UUID()` reads `/dev/urandom` and, when no descriptor is left, silently returns the nil UUID
/// (every later task run would then collide).
public enum RandomUUID {
    /// A fresh random UUID; throws only when the kernel refuses randomness.
    public static func make() throws(StorageError) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        var filled = 0
        while filled < 16 {
            let n = bytes.withUnsafeMutableBytes { recorderd_getrandom($0.baseAddress! + filled, 16 - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError("getrandom", path: "(kernel)", errno: errno)
            }
            filled += n
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The all-zero UUID, which no task run may use.
    public static let null = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}
