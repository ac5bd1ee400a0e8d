import Foundation
import RecorderTestSupport

/// The real audio fixture and a private ALSA configuration whose PCM `recorderd_file` captures it
/// through ALSA's `file` plugin (bit-exact, not paced in real time).
struct AudioFixture {
    static let wav = Fixtures.root + "/audio/Front_Center.wav"

    /// A WAV file's format and interleaved S16 samples, parsed independently of recorderd.
    struct WAV {
        var channels: Int
        var sampleRate: Int
        var samples: [Int16]
        /// The sizes the header declares (RIFF, data).
        var riffSize: Int
        var dataSize: Int
        var fileSize: Int
    }

    static func parse(_ path: String) throws -> WAV {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" else { throw CocoaError(.fileReadCorruptFile) }
        var offset = 12
        var channels = 0, rate = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " {
                channels = u16(offset + 10)
                rate = u32(offset + 12)
            } else if id == "data" {
                let end = min(bytes.count, offset + 8 + size)
                var samples = [Int16](repeating: 0, count: (end - offset - 8) / 2)
                for i in samples.indices { samples[i] = Int16(bitPattern: UInt16(u16(offset + 8 + 2 * i))) }
                return WAV(channels: channels, sampleRate: rate, samples: samples, riffSize: u32(4), dataSize: size, fileSize: bytes.count)
            }
            offset += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    let directory: String
    let input: WAV

    /// Writes the raw samples and an ALSA configuration (the system's alsa.conf plus the PCM).
    /// `infile`: what ALSA's `file` plugin reads (default: the fixture's audio, raw).
    init(infile: String? = nil) throws {
        directory = try Fixtures.temporaryDirectory()
        input = try Self.parse(Self.wav)
        let raw = input.samples.withUnsafeBytes { Data($0) }
        try raw.write(to: URL(fileURLWithPath: directory + "/input.raw"))
        try """
        </usr/share/alsa/alsa.conf>
        pcm.recorderd_file {
            type file
            slave.pcm { type null }
            file "/dev/null"
            infile "\(infile ?? directory + "/input.raw")"
            format "raw"
        }
        """.write(toFile: configurationPath, atomically: true, encoding: .utf8)
    }

    var configurationPath: String { directory + "/asound.conf" }

    /// `ALSA_CONFIG_PATH` for a process that should see the PCM.
    var environment: [String: String] { ["ALSA_CONFIG_PATH": configurationPath] }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// RMS and peak of samples in dBFS, computed directly (the test's own reference).
    static func levels(_ samples: ArraySlice<Int16>) -> (average: Double, peak: Double) {
        var sum = 0.0
        var peak = 0.0
        for s in samples {
            sum += Double(s) * Double(s)
            peak = max(peak, abs(Double(s)))
        }
        func dB(_ a: Double) -> Double { a > 0 ? max(-160, 20 * log10(a / 32768)) : -160 }
        return (dB((sum / Double(samples.count)).squareRoot()), dB(peak))
    }
}
