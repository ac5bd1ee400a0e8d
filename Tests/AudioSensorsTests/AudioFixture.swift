import Foundation
import RecorderTestSupport

/// The real audio fixture and a private ALSA configuration whose PCM `recorderd_file` captures it
/// through ALSA's `file` plugin (bit-exact, not paced in real time).
struct AudioFixture {
    static let wav = Fixtures.root + "/audio/Front_Center.wav"

    /// A WAV file's format and samples (`TestWAV`, shared with the guest tests).
    typealias WAV = TestWAV

    static func parse(_ path: String) throws -> WAV { try TestWAV.parse(path) }

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

    /// RMS and peak of samples in dBFS (`TestWAV.levels`).
    static func levels(_ samples: ArraySlice<Int16>) -> (average: Double, peak: Double) { TestWAV.levels(samples) }
}
