import RecorderConfiguration
import RecorderModel

/// An `alsa` device: `{"name":"mic0","kind":"alsa","pcm":"default","sampleRate":48000,"channels":1,"format":"S16_LE"}`.
public struct ALSAConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    /// The ALSA PCM to capture from (`default`, `hw:1,0`, `plughw:CARD=Device`, a PCM of asound.conf).
    public var pcm: String
    /// Requested rate; the PCM's nearest is used (reported in the file result).
    public var sampleRate: Int
    public var channels: Int
    /// Sample format: `S16_LE`.
    public var format: String
    /// Frames per read (default: 20 ms).
    public var periodFrames: Int?
    /// Stop capturing after this many frames: for finite inputs such as ALSA's `file` plugin,
    /// which past its end returns stale data.
    public var frames: Int?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, pcm, sampleRate, channels, format, periodFrames, frames }

    public static let formats = ["S16_LE"]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        pcm = try c.decodeIfPresent(String.self, forKey: .pcm, bytes: 1...256, expected: "expected an ALSA PCM name") ?? "default"
        sampleRate = try c.decodeIfPresent(Int.self, forKey: .sampleRate, in: 1000...768_000, "a sample rate in Hz") ?? 48000
        channels = try c.decodeIfPresent(Int.self, forKey: .channels, in: 1...32, "a number of channels") ?? 1
        format = try c.decodeIfPresent(String.self, forKey: .format) ?? "S16_LE"
        guard Self.formats.contains(format) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: c, debugDescription: "unsupported format \(format.debugDescription): expected one of \(Self.formats.joined(separator: ", "))")
        }
        periodFrames = try c.decodeIfPresent(Int.self, forKey: .periodFrames, in: 16...65536, "a number of frames")
        frames = try c.decodeIfPresent(Int.self, forKey: .frames, in: 1...(1 << 50), "a number of frames")
    }
}
