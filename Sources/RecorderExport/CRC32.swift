/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: zlib's `crc32`), as MCAP's chunk,
/// data-section and summary checksums use it; computed incrementally.
struct CRC32 {
    /// Slicing-by-4 tables: table[k][n] is the CRC of byte n followed by k zero bytes.
    private static let table: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 4 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[n] = c
        }
        for k in 1..<4 {
            for n in 0..<256 { t[k * 256 + n] = (t[(k - 1) * 256 + n] >> 8) ^ t[Int(t[(k - 1) * 256 + n] & 0xFF)] }
        }
        return t
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    /// The checksum of the bytes so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var c = state
        Self.table.withUnsafeBufferPointer { t in
            var i = 0
            let n = bytes.count
            // Four bytes a step (slicing-by-4), then the rest a byte at a time.
            while i + 4 <= n {
                c ^= UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                c = t[768 + Int(c & 0xFF)] ^ t[512 + Int((c >> 8) & 0xFF)] ^ t[256 + Int((c >> 16) & 0xFF)] ^ t[Int(c >> 24)]
                i += 4
            }
            while i < n {
                c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        state = c
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The checksum of `bytes`.
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
