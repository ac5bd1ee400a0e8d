import CLibCrypto

/// SHA-256, streaming, through libcrypto's EVP interface (which uses the CPU's SHA instructions
/// where it has them): file results carry the hash of exactly the bytes written.
public struct SHA256: @unchecked Sendable {
    // @unchecked: the context is owned by one value; `update` copies it first when it is shared
    // (copy on write), so no two holders ever touch the same EVP context.
    final class Context {
        let pointer: OpaquePointer

        init() {
            pointer = EVP_MD_CTX_new()
            EVP_DigestInit_ex(pointer, EVP_sha256(), nil)
        }

        init(copying other: Context) {
            pointer = EVP_MD_CTX_new()
            EVP_MD_CTX_copy_ex(pointer, other.pointer)
        }

        deinit { EVP_MD_CTX_free(pointer) }
    }

    var context = Context()

    public init() {}

    /// Adds bytes to the hash.
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(buffer: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update(buffer: $0) }
        }
    }

    /// Adds the bytes of `buffer` to the hash.
    public mutating func update(buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        EVP_DigestUpdate(context.pointer, buffer.baseAddress, buffer.count)
    }

    /// The digest of the bytes so far, as lower-case hex (the hash can go on).
    public func hexDigest() -> String {
        let final = Context(copying: context)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(final.pointer, &digest, &length)
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(Int(length) * 2)
        for byte in digest.prefix(Int(length)) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hash of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var s = SHA256()
        s.update(bytes)
        return s.hexDigest()
    }
}
