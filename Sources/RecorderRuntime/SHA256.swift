import CRecorderRuntime

/// SHA-256, streaming (FIPS 180-4, in C: `CSHA256`, with the CPU's SHA instructions where it has
/// them): file results carry the hash of exactly the bytes written.
public struct SHA256: Sendable {
    /// Which compression runs.
    public enum Implementation: Sendable {
        /// The CPU's SHA extensions where it has them, else the portable code.
        case fastest
        /// The portable code only (for checks of one against the other).
        case portable
    }

    /// A plain C value: copying a hash copies its state.
    var context = recorderd_sha256()

    /// Starts a hash of no bytes.
    public init(implementation: Implementation = .fastest) {
        recorderd_sha256_init(&context, implementation == .fastest ? 1 : 0)
    }

    /// True when this CPU's SHA extensions compress the blocks (else the portable code does).
    public var usesCPUExtensions: Bool { context.accelerated != 0 }

    /// Adds bytes to the hash.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(buffer: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update(buffer: $0) }
        }
    }

    /// Adds the bytes of `buffer` to the hash.
    public mutating func update(buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        recorderd_sha256_update(&context, base, buffer.count)
    }

    /// The digest of the bytes so far, as lower-case hex (the hash can go on).
    public func hexDigest() -> String {
        var final = context
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &digest) { bytes in
            let out = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            recorderd_sha256_final(&final, out)
            let digits = Array("0123456789abcdef".utf8)
            return String(unsafeUninitializedCapacity: 64) { text in
                for index in 0..<32 {
                    text[2 * index] = digits[Int(out[index] >> 4)]
                    text[2 * index + 1] = digits[Int(out[index] & 0xF)]
                }
                return 64
            }
        }
    }

    /// The hash of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var s = SHA256()
        s.update(bytes)
        return s.hexDigest()
    }
}
