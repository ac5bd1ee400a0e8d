import RecorderEngine
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func streamingEqualsOneShot() {
        let bytes = (0..<10_007).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var s = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 0, 127, 3000] + Array(repeating: 500, count: 20) where offset < bytes.count {
            let end = min(bytes.count, offset + size)
            s.update(bytes[offset..<end])
            offset = end
        }
        s.update(bytes[offset...])
        #expect(s.hexDigest() == SHA256.hex(bytes))
    }
}
