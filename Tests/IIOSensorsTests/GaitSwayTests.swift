import FakeIIO
import Foundation
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// Postural sway judged against physics, through the real libiio: the fake IIO generator plays a
/// standing subject (`RigidIMUTrajectory.sway`: 9 s still, then 20 s swaying forwards and
/// backwards at 0.03 g and 0.5 Hz, accelerometer noise 0.001 g), and a real recorderd's `gait`
/// action measures each step. The sway step's RMS, mean frequency and path length must be within
/// 5 % of the injected sinusoid's over the same stretch (computed here from the definitions on the
/// noise-free truth); the still step's sway must be at the noise floor.
@Suite(.serialized) struct GaitSwayTests {
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .timeLimit(.minutes(2)))
    func swayMatchesTheInjectedSinusoidAndAStillDeviceSitsAtItsNoiseFloor() async throws {
        let trajectory = RigidIMUTrajectory.sway
        let device = FakeIIODevice(id: "iio:device0", name: "lsm6dsox", channels: FakeIIOChannel.imu())
        let h = try IIODaemonHarness(devices: [device], path: .local)
        do {
            try h.startGenerator(device.id, ["--motion", "sway"])
            let client = try await h.startDaemon(devices: [["name": "imu", "device": "iio:device0", "frequency": 100]])
            // The subscription starts the device: its first sample is the trajectory's first.
            let live = try await client.subscribe(device: "imu", sensorTypes: [.accelerometer])
            let run = try await client.startTask(identifier: "balance", asyncActions: [
                AsyncActionConfiguration(identifier: "gait", startStepIdentifier: "still", stopStepIdentifier: "sway", device: "imu",
                                         options: .gait(GaitOptions())),
            ])
            // Steps by data time, as the live samples arrive: still from 1 s to 6 s, sway from 9 s to
            // 29 s (ten periods). Under load the samples arrive late and so do the step changes: the
            // still step ends 3 s before the sway begins, and the sway step is judged against the
            // truth over the stretch it actually covers.
            var first: Double?
            var phase = 0
            reading: for try await batch in live {
                for r in batch where r.isSample {
                    guard let uptime = r.uptime else { continue }
                    if first == nil { first = uptime }
                    let t = uptime - first!
                    if phase == 0, t >= 1 {
                        try await run.startStep("balance/still")
                        phase = 1
                    } else if phase == 1, t >= 6 {
                        try await run.finishStep("balance/still")
                        phase = 2
                    } else if phase == 2, t >= 9 {
                        try await run.startStep("balance/sway")
                        phase = 3
                    } else if phase == 3, t >= 29 {
                        try await run.finishStep("balance/sway")
                        break reading
                    }
                }
            }
            let result = try await run.finish()
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            let summaries = try #require(file.stepSummaries)
            // Between the two steps the task's own path ("balance") holds 3 s of stillness.
            #expect(summaries.map(\.stepPath) == ["balance/still", "balance", "balance/sway"])
            #expect(summaries.map(\.activity) == [.standing, .standing, .standing], "\(summaries)")
            let rate = 104.0
            let row0 = try #require(first)

            // The still step: sway at the noise floor (0.001 g noise low-passed at 3.5 Hz ≈ 0.0003 g).
            let still = try #require(summaries.first?.sway)
            print("sway still: \(still)")
            #expect(still.rmsAP < 0.0008 && still.rmsML < 0.0008, "\(still)")

            // The sway step against the truth over the same stretch.
            let swayStep = try #require(summaries.last)
            let sway = try #require(swayStep.sway)
            let truth = trajectory.samples(rate: rate)
            let from = Int(((swayStep.startUptime - row0) * rate).rounded()), to = Int(((swayStep.endUptime - row0) * rate).rounded())
            let ap = truth[max(0, from)...min(truth.count - 1, to)].map { -$0.userAcceleration.z }
            let n = Double(ap.count)
            let mean = ap.reduce(0, +) / n
            let rms = (ap.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot()
            let path = zip(ap, ap.dropFirst()).reduce(0) { $0 + abs($1.1 - $1.0) }
            let duration = (n - 1) / rate
            let meanDistance = ap.reduce(0) { $0 + abs($1 - mean) } / n
            let meanFrequency = path / duration / (2 * Double.pi * meanDistance)
            print(String(format: "sway: rmsAP %.5f g (truth %.5f), meanFrequency %.4f Hz (truth %.4f), path %.4f g (truth %.4f), rmsML %.5f",
                         sway.rmsAP, rms, sway.meanFrequency, meanFrequency, sway.pathLength, path, sway.rmsML))
            #expect(abs(sway.rmsAP / rms - 1) < 0.05, "\(sway)")
            #expect(abs(sway.meanFrequency / meanFrequency - 1) < 0.05, "\(sway)")
            #expect(abs(sway.pathLength / path - 1) < 0.05, "\(sway)")
            #expect(abs(meanFrequency - RigidIMUTrajectory.swayFrequency) < 0.03)
            // Nothing sways medio-laterally: ML stays at the noise floor.
            #expect(sway.rmsML < 0.0008, "\(sway)")
        } catch {
            try await h.stop()
            throw error
        }
        try await h.stop()
    }
}
