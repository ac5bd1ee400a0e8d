import Foundation
import RecorderEngine
import RecorderRuntime
import RecorderTestSupport
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

extension SHA256Tests {
    /// Both compressions against coreutils' `sha256sum` (an independent implementation): every
    /// length from 0 to 300 bytes (each padding case, one and two final blocks) and three large
    /// inputs, of seeded random bytes, each fed in random pieces.
    @Test(.ownThread) func bothImplementationsAgreeWithSHA256Sum() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SplitMix(seed: 256)
        let lengths = Array(0...300) + [4_095, 65_536, 1_000_003]
        var paths: [String] = []
        var ours: [SHA256.Implementation: [String]] = [:]
        for (index, length) in lengths.enumerated() {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let path = directory + "/\(index)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
            for implementation in [SHA256.Implementation.fastest, .portable] {
                var hash = SHA256(implementation: implementation)
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + Int.random(in: 0...200, using: &random))
                    hash.update(bytes[offset..<end])
                    offset = end
                }
                ours[implementation, default: []].append(hash.hexDigest())
            }
        }
        let sum = try await ChildProcess("/usr/bin/sha256sum", paths)
        #expect(try await sum.wait(timeout: 60) == 0)
        let theirs = sum.printed.split(separator: "\n").map { String($0.prefix(64)) }
        #expect(theirs.count == lengths.count)
        for (index, length) in lengths.enumerated() where index < theirs.count {
            #expect(ours[.fastest]?[index] == theirs[index], "\(length) bytes, fastest")
            #expect(ours[.portable]?[index] == theirs[index], "\(length) bytes, portable")
        }
    }

    /// This machine has the SHA extensions (CI's and this VM's CPUs do), so the test above checked
    /// the fast path, not the portable one twice; valgrind's CPU has none and takes the other.
    @Test(.enabled(if: SHA256Tests.cpuHasSHA(), "not an x86-64 CPU with the SHA extensions (/proc/cpuinfo: sha_ni)"))
    func theFastPathIsTakenWhereTheCPUHasIt() {
        #expect(SHA256().usesCPUExtensions)
        #expect(!SHA256(implementation: .portable).usesCPUExtensions)
    }

    /// The shim's one fast path is x86-64's SHA-NI: built for any other CPU (aarch64: a Pi 5's
    /// Cortex-A76 has ARMv8's SHA-2 instructions, a Pi 4's BCM2711 has none), the fastest is the
    /// portable one.
    @Test(.enabled(if: !SHA256Tests.isX86_64, "an x86-64 build: the test above"))
    func otherCPUsTakeThePortablePath() {
        #expect(!SHA256().usesCPUExtensions)
    }

    /// SHA-NI on an x86-64 build. /proc/cpuinfo alone would not do: an aarch64 build under
    /// qemu-user reads the host's, which lists sha_ni, where the build has no such path.
    static func cpuHasSHA() -> Bool {
        isX86_64 && ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" sha_ni")
    }

    static var isX86_64: Bool {
        #if arch(x86_64)
        true
        #else
        false
        #endif
    }
}
