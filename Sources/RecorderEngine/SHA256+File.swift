import Foundation

extension SHA256 {
    /// The hex digest of a whole file, read in 1 MiB blocks; nil when it cannot be read.
    public static func hexDigest(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hash = SHA256()
        while let block = try? handle.read(upToCount: 1 << 20), !block.isEmpty {
            hash.update(block)
        }
        return hash.hexDigest()
    }
}
