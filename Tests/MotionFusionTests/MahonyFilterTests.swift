import FakeIIO
import Foundation
import MotionFusion
import RecorderModel
import RecorderTestSupport
import Testing

@Suite("Mahony's filter")
struct MahonyFilterTests {
    /// Degrees between two attitudes.
    func degrees(_ a: Quaternion, _ b: Quaternion) -> Double { a.angle(to: b) * 180 / .pi }

    @Test func anAlignedDeviceHasUpAlongTheAccelerometerAndNorthAlongTheField() throws {
        let truth = Quaternion(axis: Vector3(x: -0.3, y: 1, z: 0.2), angle: 2.1)
        let acc = truth.inverseRotate(Vector3(x: 0, y: 0, z: 1)) * 0.98
        let mag = truth.inverseRotate(RigidIMUTrajectory.field)
        let aligned = try #require(MahonyFilter.alignment(accelerometer: acc, magnetometer: mag))
        #expect(degrees(aligned, truth) < 1e-6)
        // Without a magnetometer only the tilt is known: up is right, the heading arbitrary.
        let level = try #require(MahonyFilter.alignment(accelerometer: acc))
        let up = level.inverseRotate(Vector3(x: 0, y: 0, z: 1))
        #expect((up - acc * (1 / acc.length)).length < 1e-12)
        #expect(MahonyFilter.alignment(accelerometer: .zero) == nil)
        #expect(MahonyFilter.alignment(accelerometer: Vector3(x: 0, y: 0, z: -1)).map { degrees($0, Quaternion(w: 0, x: 1, y: 0, z: 0)) } == 0)
    }

    @Test func itFollowsAKnownTrajectoryAndLearnsTheGyroscopeBias() throws {
        let motion = RigidIMUTrajectory.standard
        let samples = motion.samples(rate: 100)
        var filter = MahonyFilter(attitude: try #require(MahonyFilter.alignment(accelerometer: samples[0].accelerometer,
                                                                                  magnetometer: samples[0].magnetometer)))
        var worst = 0.0
        for s in samples.dropFirst() {
            filter.update(gyro: s.gyro, accelerometer: s.accelerometer, magnetometer: s.magnetometer, dt: 1 / 100)
            worst = max(worst, degrees(filter.attitude, s.truth))
        }
        // A 0.02 rad/s bias is 1.1°/s of drift; the filter holds the attitude within a few degrees
        // while it learns the bias, and ends within 0.2° of the truth with the bias known to 1 mrad/s.
        #expect(worst < 3, "worst \(worst)°")
        #expect(degrees(filter.attitude, samples.last!.truth) < 0.2)
        #expect((filter.gyroBias - motion.bias).length < 0.001, "bias \(filter.gyroBias)")
    }

    @Test(.enabled("PyPI ahrs is not installed (scripts/setup.sh installs it)") { await AHRSReference.isAvailable() },
          .ownThread, arguments: [Fixtures.shortWalk, Fixtures.longWalk])
    func agreesWithAHRSOnARealWalk(path: String) async throws {
        let samples = try AHRSReference.walk(path)
        #expect(samples.count > 1000)
        let worst = try await AHRSReference.largestDifference(samples, rate: 100)
        #expect(worst < 0.05, "\(worst)° from ahrs")
    }

    @Test(.enabled("PyPI ahrs is not installed (scripts/setup.sh installs it)") { await AHRSReference.isAvailable() }, .ownThread)
    func agreesWithAHRSOnASyntheticRotationWithAndWithoutTheMagnetometer() async throws {
        let synthetic = RigidIMUTrajectory.standard.samples(rate: 100)
        let marg = synthetic.map { AHRSReference.Sample(gyro: $0.gyro, accelerometer: $0.accelerometer, magnetometer: $0.magnetometer) }
        let imu = marg.map { AHRSReference.Sample(gyro: $0.gyro, accelerometer: $0.accelerometer, magnetometer: nil) }
        let gains = MahonyFilter.Gains(proportional: 2, integral: 0.5)
        let worstMARG = try await AHRSReference.largestDifference(marg, rate: 100, gains: gains)
        let worstIMU = try await AHRSReference.largestDifference(imu, rate: 100, gains: gains)
        #expect(worstMARG < 0.05 && worstIMU < 0.05, "MARG \(worstMARG)°, IMU \(worstIMU)° from ahrs")
    }
}
