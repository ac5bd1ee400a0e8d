import Foundation
import GaitAnalysis
import MotionFusion
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

/// `stream.subscribe` with `step`: the gait analysis's step records reach a live subscriber as
/// they are found. How soon after the heel strike they are found is the analysis's latency in
/// data time, asserted without a clock in `InitialContactAccuracyTests` (≤ 0.9 s on every real
/// walk) and `GaitTrackerTests`; the wall-clock delays
/// here (about 0.5 s on an idle machine) are printed, not asserted: on a loaded CI machine they
/// measure the load.
@Suite("Gait events on live streams")
struct GaitLiveStreamTests {
    /// A replay device playing the short walk, looped (notifications keep coming, so a test's
    /// deadline is always looked at), with the gait analysis; and its registry, which keeps it.
    static func walkingDevice() throws -> (Device, DeviceRegistry) {
        var configuration = DaemonConfiguration()
        configuration.devices = [Fixtures.replayDevice(file: Fixtures.shortWalk, loop: true)]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], stageProviders: [DeviceMotionFusion()],
                                     analysisProviders: [GaitAnalysisProvider()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 1)
        return (try devices.device(named: "imu0"), devices)
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func stepsReachALiveSubscriberAsTheyAreFound() async throws {
        let (device, devices) = try Self.walkingDevice()
        defer { withExtendedLifetime(devices) {} }
        let clock = SystemClock()
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // A rate of 1 Hz: the analysis still sees every sample (only sampled records are thinned).
        let stream = try LiveStream(subscription: 1, device: device, types: [.step], rate: 1, clock: clock) { continuation.yield() }
        defer { stream.close() }
        var delays: [Double] = []
        var bouts = 0
        let deadline = clock.uptime() + 30
        for await _ in signals {
            let bytes = stream.drain(maximumRecords: 4096)
            let now = clock.uptime()
            if !bytes.isEmpty {
                // The stream's records as JSON lines (the daemon wraps them in a notification).
                let records = try bytes.split(separator: UInt8(ascii: "\n")).map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
                for r in records {
                    #expect(r["sensorType"] as? String == "step", "\(r)")
                    if r["event"] as? String == "step" { delays.append(now - (r["uptime"] as! Double)) }
                    if r["event"] as? String == "bout" { bouts += 1 }
                }
            }
            if delays.count >= 9 || now > deadline { break }
        }
        // The walk's 9 reference steps (and its first and last, slower ones), each after its contact.
        #expect(delays.count >= 9, "\(delays)")
        #expect(delays.allSatisfy { $0 >= 0 }, "\(delays)")
        print("gait live step delays: \(delays.map { ($0 * 1000).rounded() / 1000 })")
    }

    /// With the participant's sensor height (`stream.subscribe`'s `sensorHeight`), the live step
    /// records carry the stride ending at them: every step of the walk's bout after its first two
    /// (a stride is two measured steps), within a walker's range.
    @Test(.timeLimit(.minutes(1)), .ownThread)
    func liveStepsCarryTheirStrideWithAHeight() async throws {
        let (device, devices) = try Self.walkingDevice()
        defer { withExtendedLifetime(devices) {} }
        let params = try JSONDecoder().decode(SubscribeParams.self, from: Data(#"{"device": "imu0", "sensorTypes": ["step"], "sensorHeight": 0.964}"#.utf8))
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let stream = try LiveStream(subscription: 1, device: device, types: params.sensorTypes, rate: nil,
                                    analysisConfiguration: params.analysisConfiguration, clock: SystemClock()) { continuation.yield() }
        defer { stream.close() }
        var strides: [Double?] = []
        for await _ in signals {
            let bytes = stream.drain(maximumRecords: 4096)
            guard !bytes.isEmpty else { continue }
            // The stream's records as JSON lines (the daemon wraps them in a notification).
            let records = try bytes.split(separator: UInt8(ascii: "\n")).map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
            for r in records where r["event"] as? String == "step" { strides.append(r["strideLength"] as? Double) }
            if strides.count >= 9 { break }
        }
        let measured = strides.compactMap { $0 }
        #expect(measured.count >= 6 && measured.allSatisfy { $0 > 0.5 && $0 < 2 }, "\(strides)")
        // Out of range, the subscription is refused with the key's path.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SubscribeParams.self, from: Data(#"{"device": "imu0", "sensorHeight": 9}"#.utf8))
        }
    }
}
