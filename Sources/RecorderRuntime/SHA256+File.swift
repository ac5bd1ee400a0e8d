import FoundationEssentials
import Glibc

extension SHA256 {
    /// The hex digest of a whole file, read in 1 MiB blocks; nil when it cannot be read.
    public static func hexDigest(ofFile path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hash = SHA256()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return hash.hexDigest() }
            block.withUnsafeBytes { hash.update(buffer: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }
}
