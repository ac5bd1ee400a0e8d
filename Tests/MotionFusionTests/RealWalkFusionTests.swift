import Foundation
import MotionFusion
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import ReplaySensors
import Testing

/// The fusion stage on the real lower-back walks (mobgap, 100 Hz): what physics says of them.
@Suite("Device motion on real walks")
struct RealWalkFusionTests {
    /// The walk's frames as the fusion stage leaves them.
    func fused(_ path: String) throws -> [MotionFrame] {
        let configuration = try Fixtures.replayDevice(file: path).json.decode(ReplayConfiguration.self)
        // Rows at exactly 100 Hz (replay assigns uptimes when it plays).
        var frames = try ReplayData.load(path: path, configuration: configuration).frames.enumerated().map { i, frame in
            var timed = frame
            timed.uptime = 1000 + Double(i) / 100
            return SensorFrame.motion(timed)
        }
        let device = Fixtures.replayDevice(file: path)
        let stage = try #require(DeviceMotionFusion().makeStage(configuration: device,
                                                                capabilities: DeviceCapabilities(sensorTypes: [.accelerometer, .gyro], rate: 100)))
        stage.restart()
        // In deliveries of 20 ms, as a sampler hands them over.
        var out: [MotionFrame] = []
        for start in stride(from: 0, to: frames.count, by: 2) {
            var batch = Array(frames[start..<min(start + 2, frames.count)])
            stage.process(&batch)
            for f in batch { if case .motion(let m) = f { out.append(m) } }
        }
        frames.removeAll()
        return out
    }

    /// The short walk is all walking; the daily-living one has standing phases.
    @Test(arguments: [(Fixtures.shortWalk, 0), (Fixtures.longWalk, 4)])
    func gravityFollowsTheAccelerometerWhenStillAndUserAccelerationAveragesZero(path: String, stillWindows: Int) throws {
        let frames = try fused(path)
        #expect(frames.allSatisfy { $0.fused != nil })
        // Still phases: one-second windows in which the trunk turns less than 0.1 rad/s and the
        // accelerometer's magnitude stays within 0.02 g of its mean.
        var still = 0
        var worstAngle = 0.0
        var worstNorm = 0.0
        for start in stride(from: 0, to: frames.count - 100, by: 50) {
            let window = frames[start..<start + 100]
            let rates = window.map { $0.gyro!.length }
            let magnitudes = window.map { $0.accelerometer!.length }
            let meanMagnitude = magnitudes.reduce(0, +) / 100
            guard rates.max()! < 0.1, magnitudes.allSatisfy({ abs($0 - meanMagnitude) < 0.02 }) else { continue }
            still += 1
            let meanAcc = window.reduce(Vector3.zero) { $0 + $1.accelerometer! } * 0.01
            let meanGravity = window.reduce(Vector3.zero) { $0 + $1.fused!.gravity } * 0.01
            let cosine = meanAcc.dot(meanGravity) / (meanAcc.length * meanGravity.length)
            worstAngle = max(worstAngle, acos(min(1, cosine)) * 180 / .pi)
            worstNorm = max(worstNorm, window.map { abs($0.fused!.gravity.length - 1) }.max()!)
        }
        #expect(still >= stillWindows, "\(still) still windows")
        #expect(worstAngle < 2, "gravity \(worstAngle)° from the accelerometer while still")
        #expect(worstNorm < 0.02)
        // Over the whole walk the user acceleration averages out; what is left is mostly the
        // sensor's own scale error (|accelerometer| at rest is 0.98–0.99 g in these files).
        let mean = frames.reduce(Vector3.zero) { $0 + $1.fused!.userAcceleration } * (1 / Double(frames.count))
        #expect(mean.length < 0.025, "mean user acceleration \(mean)")
    }
}
