import Foundation

/// A WAV file's format and interleaved S16 samples, parsed independently of recorderd.
public struct TestWAV: Sendable {
    public var channels: Int
    public var sampleRate: Int
    public var samples: [Int16]
    /// The sizes the header declares (RIFF, data).
    public var riffSize: Int
    public var dataSize: Int
    public var fileSize: Int

    public static func parse(_ path: String) throws -> TestWAV {
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
                return TestWAV(channels: channels, sampleRate: rate, samples: samples, riffSize: u32(4), dataSize: size, fileSize: bytes.count)
            }
            offset += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// RMS and peak of samples in dBFS, computed directly (the test's own reference).
    public static func levels(_ samples: ArraySlice<Int16>) -> (average: Double, peak: Double) {
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
