import FakeIIO
import Foundation
@testable import MotionFusion
import RecorderModel
import RecorderTestSupport
import Testing

@Suite("Hard-iron estimation")
struct HardIronEstimatorTests {
    static let offset = Vector3(x: 12, y: -7, z: 25)

    /// The standard trajectory's magnetometer with a hard-iron offset (it turns with the device,
    /// so it adds to every reading) and ±0.3 µT of noise.
    func readings() -> [(uptime: Double, field: Vector3, truth: Quaternion)] {
        var generator = SplitMix(seed: 7)
        return RigidIMUTrajectory.standard.samples(rate: 100).enumerated().map { i, s in
            let noise = Vector3(x: generator.uniform() * 0.6 - 0.3, y: generator.uniform() * 0.6 - 0.3, z: generator.uniform() * 0.6 - 0.3)
            return (Double(i) / 100, s.magnetometer + Self.offset + noise, s.truth)
        }
    }

    @Test func theOffsetIsLearntOnceTheDeviceHasTurnedEnough() throws {
        var estimator = HardIronEstimator()
        let all = readings()
        // Still: no coverage, uncalibrated.
        for r in all.prefix(400) { estimator.add(r.field, uptime: r.uptime) }
        #expect(estimator.accuracy == -1 && estimator.offset == .zero)
        for r in all.dropFirst(400) { estimator.add(r.field, uptime: r.uptime) }
        #expect(estimator.accuracy >= 1, "accuracy \(estimator.accuracy), coverage \(estimator.coverage)")
        #expect((estimator.offset - Self.offset).length < 1, "offset \(estimator.offset)")
        #expect(abs(estimator.radius - RigidIMUTrajectory.field.length) < 1, "radius \(estimator.radius)")
        let calibrated = estimator.calibrated(all.last!.field)
        #expect((calibrated - all.last!.truth.inverseRotate(RigidIMUTrajectory.field)).length < 1.5)
    }

    @Test func theFusedFieldHasTheOffsetRemovedAndSaysHowWellItIsCalibrated() throws {
        let motion = RigidIMUTrajectory.standard
        let samples = motion.samples(rate: 100)
        var fuser = DeviceMotionFuser(usesMagnetometer: true)
        var last: DeviceMotion?
        var accuracies = Set<Int>()
        for (i, s) in samples.enumerated() {
            let frame = MotionFrame(uptime: Double(i) / 100, accelerometer: s.accelerometer, gyro: s.gyro,
                                    magnetometer: s.magnetometer + Self.offset)
            if let fused = fuser.fuse(frame) {
                last = fused
                accuracies.insert(fused.magneticAccuracy)
            }
        }
        let fused = try #require(last)
        #expect(accuracies.contains(-1) && fused.magneticAccuracy >= 1)
        let truth = samples.last!.truth
        #expect((fused.magneticField! - truth.inverseRotate(RigidIMUTrajectory.field)).length < 1)
        #expect(fused.referenceCoordinate == .northWestUp && fused.heading != nil)
    }

    @Test func eigenvaluesAndTheLinearSolveAgreeWithHandWorkedCases() throws {
        // diag(4, 1, 9) rotated: the smallest eigenvalue stays 1.
        #expect(abs(HardIronEstimator.smallestEigenvalue(4, 0, 0, 1, 0, 9) - 1) < 1e-12)
        #expect(abs(HardIronEstimator.smallestEigenvalue(2, 1, 0, 2, 0, 5) - 1) < 1e-9)
        var m: [[Double]] = [[2, 0, 0, 0, 2], [0, 4, 0, 0, 8], [0, 0, 1, 0, -3], [0, 0, 0, 5, 10]]
        #expect(HardIronEstimator.solve4(&m) == [1, 2, -3, 2])
        var singular: [[Double]] = [[1, 1, 0, 0, 1], [1, 1, 0, 0, 1], [0, 0, 1, 0, 1], [0, 0, 0, 1, 1]]
        #expect(HardIronEstimator.solve4(&singular) == nil)
    }
}
