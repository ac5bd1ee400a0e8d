import FakeIIO
import Foundation
import MotionFusion
import RecorderModel
import RecorderTestSupport
import Testing

/// The fuser on the physics trajectory without I/O (the same trajectory goes through libiio in
/// IIOSensorsTests' DeviceMotionPhysicsTests, which also runs Fusion AHRS on it).
@Suite("Device motion fuser")
struct DeviceMotionFuserTests {
    struct Worst {
        var attitude = 0.0, gravity = 0.0, userAcceleration = 0.0, rotationRate = 0.0
    }

    /// Runs a fuser with `configuration` over `samples` at `rate`; the worst errors (the rotation
    /// rate after the first second, when the still start has given the bias).
    func run(_ samples: [RigidIMUTrajectory.Sample], rate: Double = 104, configuration: FusionConfiguration = FusionConfiguration(),
             magnetometer: Bool = true, gyro: (Int, Vector3) -> Vector3 = { $1 }) -> (worst: Worst, fuser: DeviceMotionFuser) {
        var fuser = DeviceMotionFuser(configuration: configuration, usesMagnetometer: magnetometer)
        var worst = Worst()
        for (i, s) in samples.enumerated() {
            let frame = MotionFrame(uptime: 50 + Double(i) / rate, accelerometer: s.accelerometer, gyro: gyro(i, s.gyro),
                                    magnetometer: magnetometer ? s.magnetometer : nil)
            guard let m = fuser.fuse(frame) else {
                Issue.record("no device motion at sample \(i)")
                continue
            }
            worst.attitude = max(worst.attitude, m.attitude.angle(to: s.truth) * 180 / .pi)
            worst.gravity = max(worst.gravity, (m.gravity - s.gravity).length)
            worst.userAcceleration = max(worst.userAcceleration, (m.userAcceleration - s.userAcceleration).length)
            if Double(i) / rate >= 1 { worst.rotationRate = max(worst.rotationRate, (m.rotationRate - s.rotationRate).length) }
        }
        return (worst, fuser)
    }

    @Test func itFollowsThePhysicsTrajectoryWithinItsBounds() {
        let (worst, fuser) = run(RigidIMUTrajectory.physics.samples(rate: 104))
        #expect(worst.attitude < 1 && worst.gravity < 0.01 && worst.userAcceleration < 0.02 && worst.rotationRate < 0.01, "\(worst)")
        #expect((fuser.filter.gyroBias - RigidIMUTrajectory.physics.bias).length < 0.002, "bias \(fuser.filter.gyroBias)")
    }

    @Test func withoutRejectionAPushTiltsTheEstimate() {
        // 180° and 16 g: never rejected. The 0.5 g horizontal push pulls gravity towards itself.
        let never = FusionConfiguration(accelerationRejection: 180, magnitudeRejection: 16)
        let (worst, _) = run(RigidIMUTrajectory.physics.samples(rate: 104), configuration: never)
        #expect(worst.attitude > 3 && worst.gravity > 0.05, "\(worst)")
    }

    @Test func aStillStartGivesTheBiasAtOnce() {
        let motion = RigidIMUTrajectory(bias: Vector3(x: 0.03, y: -0.02, z: 0.01), segments: [.still(seconds: 1.5)], start: .identity)
        let (_, fuser) = run(motion.samples(rate: 104), magnetometer: false)
        #expect((fuser.filter.gyroBias - motion.bias).length < 0.001, "bias \(fuser.filter.gyroBias)")
        #expect(!fuser.isStarting)
    }

    @Test func aStartInMotionLeavesTheBiasToTheFilter() {
        // Turning through the first second: the mean gyroscope reading is not a bias.
        let motion = RigidIMUTrajectory(bias: Vector3(x: 0.03, y: -0.02, z: 0.01),
                                        segments: [.rotate(Vector3(x: 0, y: 0.5, z: 0), seconds: 1.5)], start: .identity)
        let (_, fuser) = run(motion.samples(rate: 104), magnetometer: false)
        #expect((fuser.filter.gyroBias - motion.bias).length > 0.01, "bias \(fuser.filter.gyroBias)")
        // A noisy but still start (±0.003 rad/s, ±0.005 g) still counts as still.
        var noise = SplitMix(seed: 3)
        let still = RigidIMUTrajectory(bias: motion.bias, segments: [.still(seconds: 1.5)], start: .identity)
        let (_, noisy) = run(still.samples(rate: 104), magnetometer: false) { _, g in
            g + Vector3(x: noise.uniform() * 0.006 - 0.003, y: noise.uniform() * 0.006 - 0.003, z: noise.uniform() * 0.006 - 0.003)
        }
        #expect((noisy.filter.gyroBias - motion.bias).length < 0.001, "bias \(noisy.filter.gyroBias)")
    }

    @Test func theCorrectionComparesLikeWithLike() {
        // Turning at 1.2 rad/s at 104 Hz, a correction against the new reading would lag every
        // turn by one interval's rotation (0.66°); against the reading of its own instant it does not.
        let motion = RigidIMUTrajectory(bias: .zero, segments: [.still(seconds: 1.5), .rotate(Vector3(x: 1.2, y: 0, z: 0), seconds: 4)], start: .identity)
        let (worst, _) = run(motion.samples(rate: 104), magnetometer: false)
        #expect(worst.attitude < 0.05, "\(worst)")
    }
}
