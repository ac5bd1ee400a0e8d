import Foundation
import GaitAnalysis
import MotionFusion
@testable import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

/// The same input gives the same bytes on every architecture: a real walk with its own
/// timestamps (the rows at exactly 100 Hz), fused and analysed as a recording does it — the
/// fusion stage, then one pipeline writing the motion records of the raw and the fused types and
/// the gait analysis's records into one sink, drained in slices — against a golden file made on
/// x86_64: the whole output's SHA-256, its length, every event line (the analysis's steps,
/// bouts and turns) and every 500th of the motion records (where a difference lies and how large
/// it is). The arm64 suites under qemu-user run it on aarch64 (docs/testing.md,
/// "arm64"); `RECORDERD_UPDATE_GOLDEN=1` writes the golden files anew, `RECORDERD_ARCH_OUTPUT=DIR`
/// the whole outputs.
@Suite("The same bytes on every architecture")
struct CrossArchitectureOutputTests {
    static let trials = [("short-walk", Fixtures.shortWalk), ("long-walk", Fixtures.longWalk)]
    static let everyNthLine = 500

    /// The JSON lines a recording of `path`'s walk writes with motion (raw and fused types) and
    /// gait (the participant's sensor height, as the reference's) in one file.
    static func output(_ path: String) throws -> [UInt8] {
        let device = Fixtures.replayDevice(file: path)
        let replay = try device.json.decode(ReplayConfiguration.self)
        let frames = try ReplayData.load(path: path, configuration: replay).frames.enumerated().map { i, frame in
            var timed = frame
            timed.uptime = 1000 + Double(i) / 100
            return SensorFrame.motion(timed)
        }
        let capabilities = DeviceCapabilities(sensorTypes: [.accelerometer, .gyro], rate: 100)
        let stage = try #require(DeviceMotionFusion().makeStage(configuration: device, capabilities: capabilities))
        stage.restart()
        let gait = AsyncActionConfiguration(identifier: "gait", options: .gait(GaitOptions(sensorHeight: 0.964)))
        var options = RecordPipeline.Options()
        options.requestedFrequency = 100
        options.analysis = GaitAnalysisProvider().makeProducer(configuration: gait, capabilities: capabilities)
        var pipeline = RecordPipeline(types: [.accelerometer, .gyro, .attitude, .gravity, .userAcceleration, .rotationRate],
                                      sink: RecordSink(startUptime: 1000, stepPath: JSONString("walk")), options: options)
        var out: [UInt8] = []
        // Fused in deliveries of 20 ms, as a sampler hands them over; drained every 100 ms.
        for start in stride(from: 0, to: frames.count, by: 10) {
            var drained: [SensorFrame] = []
            for delivery in stride(from: start, to: min(start + 10, frames.count), by: 2) {
                var batch = Array(frames[delivery..<min(delivery + 2, frames.count)])
                stage.process(&batch)
                drained += batch
            }
            let added = drained.withUnsafeBufferPointer { pipeline.add(frames: $0) }
            #expect(added)
            out += pipeline.sink.encoder.bytes
            pipeline.sink.encoder.removeAll()
        }
        pipeline.finish()
        out += pipeline.sink.encoder.bytes
        return out
    }

    /// What the golden file holds of an output.
    static func golden(_ bytes: [UInt8]) -> String {
        var digest = SHA256()
        digest.update(bytes)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        var text = "sha256 \(digest.hexDigest())\nbytes \(bytes.count)\nlines \(lines.count)\n"
        // An event (a step, a bout, a turn, a marker) is every line that has one; a sample has none.
        let event = Array(#""event":"#.utf8)
        for (i, line) in lines.enumerated() where i % everyNthLine == 0 || line.firstRange(of: event) != nil {
            text += "\(i) \(String(decoding: line, as: UTF8.self))\n"
        }
        return text
    }

    /// The fields in which two sampled lines (`index` then a record) differ, numbers with how much.
    static func differences(_ line: Substring, _ golden: Substring) -> String {
        func fields(_ s: Substring) -> [String: Any] {
            guard let space = s.firstIndex(of: " "),
                  let object = try? JSONSerialization.jsonObject(with: Data(s[s.index(after: space)...].utf8)) as? [String: Any]
            else { return [:] }
            return object
        }
        let a = fields(line), b = fields(golden)
        return Set(a.keys).union(b.keys).sorted().compactMap { key -> String? in
            switch (a[key], b[key]) {
            case let (x as Double, y as Double) where x != y: "\(key) \(x) vs \(y) (\(abs(x - y)))"
            case let (x as Double, y as Double) where x == y: nil
            case let (x?, y?) where "\(x)" == "\(y)": nil
            case let (x, y): "\(key) \(x.map { "\($0)" } ?? "-") vs \(y.map { "\($0)" } ?? "-")"
            }
        }.joined(separator: "; ")
    }

    @Test(arguments: trials)
    func aRealWalkFusedAndAnalysedGivesTheGoldenBytes(name: String, path: String) throws {
        let bytes = try Self.output(path)
        let actual = Self.golden(bytes)
        let file = Fixtures.root + "/arch-golden/\(name).txt"
        if ProcessInfo.processInfo.environment["RECORDERD_UPDATE_GOLDEN"] == "1" {
            try actual.write(toFile: file, atomically: true, encoding: .utf8)
        }
        // The whole output, to compare by hand (`diff`) with another machine's.
        if let folder = ProcessInfo.processInfo.environment["RECORDERD_ARCH_OUTPUT"] {
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/\(name).jsonl"))
        }
        let expected = try String(contentsOfFile: file, encoding: .utf8)
        // Lines of gait records among them: the analysis ran (steps, a bout).
        #expect(bytes.count > 500_000)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""sensorType":"step""#))
        if actual != expected {
            // Where they differ: the header, then the first sampled line that does, field by field.
            let a = actual.split(separator: "\n"), e = expected.split(separator: "\n")
            Issue.record("\(name): \(a.prefix(3).joined(separator: ", ")) where the golden has \(e.prefix(3).joined(separator: ", "))")
            if let (line, golden) = zip(a.dropFirst(3), e.dropFirst(3)).first(where: { $0 != $1 }) {
                Issue.record("first sampled line that differs:\n  here:   \(line)\n  golden: \(golden)\n  \(Self.differences(line, golden))")
            }
        }
    }
}
