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
    /// One recording of the sway trajectory: the summaries, the first sample's uptime, and
    /// whether the step changes fell where the trajectory needs them (nil: they did not).
    struct Trial {
        var summaries: [GaitStepSummary]
        var row0: Double
    }

    /// Records the trajectory once. Steps follow data time, placed by the uptimes the step
    /// changes report: still for 3 s of samples from 1 s, sway from 9 s (and at least 3 s after
    /// the still step) for 17 s of samples. Returns nil when a step change came so late (a loaded
    /// machine delivers samples and requests seconds late) that a step left its stretch of the
    /// trajectory (still 0-9 s, sway 9-29 s): that recording says nothing about sway.
    func trial(_ trajectory: RigidIMUTrajectory) async throws -> Trial? {
        let device = FakeIIODevice(id: "iio:device0", name: "lsm6dsox", channels: FakeIIOChannel.imu())
        let h = try IIODaemonHarness(devices: [device], path: .local)
        do {
            try await h.startGenerator(device.id, ["--motion", "sway"])
            let client = try await h.startDaemon(devices: [["name": "imu", "device": "iio:device0", "frequency": 100]])
            // The subscription starts the device: its first sample is the trajectory's first.
            let live = try await client.subscribe(device: "imu", sensorTypes: [.accelerometer])
            let run = try await client.startTask(identifier: "balance", asyncActions: [
                AsyncActionConfiguration(identifier: "gait", startStepIdentifier: "still", stopStepIdentifier: "sway", device: "imu",
                                         options: .gait(GaitOptions())),
            ])
            var first: Double?
            var phase = 0
            var boundaries: [Double] = []
            reading: for try await batch in live {
                for r in batch where r.isSample {
                    guard let uptime = r.uptime else { continue }
                    if first == nil { first = uptime }
                    let t = uptime - first!
                    if phase == 0, t >= 1 {
                        boundaries.append(try await run.startStep("balance/still").uptime)
                        phase = 1
                    } else if phase == 1, uptime >= boundaries[0] + 3 {
                        boundaries.append(try await run.finishStep("balance/still").uptime)
                        phase = 2
                    } else if phase == 2, t >= 9, uptime >= boundaries[1] + 3 {
                        boundaries.append(try await run.startStep("balance/sway").uptime)
                        phase = 3
                    } else if phase == 3, uptime >= boundaries[2] + 17 {
                        boundaries.append(try await run.finishStep("balance/sway").uptime)
                        break reading
                    }
                }
            }
            let result = try await run.finish()
            try await h.stop()
            let row0 = try #require(first)
            guard boundaries.count == 4 else {
                Issue.record("the live stream ended after \(boundaries.count) step changes")
                return nil
            }
            let t = boundaries.map { $0 - row0 }
            guard t[1] <= 9, t[2] >= 9, t[3] <= 29.5 else {
                print("sway: step changes at \(t.map { String(format: "%.2f", $0) }) s of data: too late for the trajectory; recording again")
                return nil
            }
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            return Trial(summaries: try #require(file.stepSummaries), row0: row0)
        } catch {
            try await h.stop()
            throw error
        }
    }

    /// The steps follow the live stream's samples only if the test's awaits resume at once: on a
    /// thread of its own, not the cooperative pool (a full run here: a step change 3.5 s after its sample).
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .timeLimit(.minutes(4)), .ownThread)
    func swayMatchesTheInjectedSinusoidAndAStillDeviceSitsAtItsNoiseFloor() async throws {
        let trajectory = RigidIMUTrajectory.sway
        var recorded: Trial?
        for _ in 1...3 where recorded == nil {
            recorded = try await trial(trajectory)
        }
        guard let recorded else {
            Issue.record("three recordings in a row had their step changes seconds late: the machine is too loaded to judge sway")
            return
        }
        let summaries = recorded.summaries
        // The two steps, and the task's own path ("balance") between them (and before the still
        // step when it started late).
        #expect(summaries.map(\.stepPath).filter { $0 != "balance" } == ["balance/still", "balance/sway"], "\(summaries.map(\.stepPath))")
        #expect(summaries.allSatisfy { $0.activity == .standing }, "\(summaries)")
        let rate = 104.0
        let row0 = recorded.row0

        // The still step: sway at the noise floor (0.001 g noise low-passed at 3.5 Hz ≈ 0.0003 g).
        let still = try #require(summaries.first { $0.stepPath == "balance/still" }?.sway)
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
    }
}
