import CZstd

/// zstd (libzstd) one frame at a time: the MCAP export's chunks and the fleet's upload chunks.
public enum Zstd {
    /// libzstd refused (its error name).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// `bytes` as one zstd frame at `level` (1–19; 3 is zstd's default), its content size in
    /// the frame's header.
    public static func compress(_ bytes: [UInt8], level: Int32) throws(Failure) -> [UInt8] {
        let bound = ZSTD_compressBound(bytes.count)
        var frame = [UInt8](repeating: 0, count: bound)
        let size = frame.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { src in ZSTD_compress(dst.baseAddress, bound, src.baseAddress, src.count, level) }
        }
        guard ZSTD_isError(size) == 0 else { throw Failure(description: "zstd: " + String(cString: ZSTD_getErrorName(size))) }
        frame.removeSubrange(size...)
        return frame
    }

    /// The content of `frame` when it is zstd that holds exactly `expectedSize` bytes; nil
    /// otherwise (not zstd, damaged, or more or fewer bytes: never more than `expectedSize` is
    /// made, so a frame claiming gigabytes costs nothing).
    public static func decompress(_ frame: [UInt8], expectedSize: Int) -> [UInt8]? {
        guard expectedSize >= 0 else { return nil }
        var content = [UInt8](repeating: 0, count: expectedSize)
        let size = content.withUnsafeMutableBytes { dst in
            frame.withUnsafeBytes { src in ZSTD_decompress(dst.baseAddress, expectedSize, src.baseAddress, src.count) }
        }
        guard ZSTD_isError(size) == 0, size == expectedSize else { return nil }
        return content
    }
}
