import Foundation
import MotionFusion
import RecorderModel
import Testing

@Suite("Acceleration rejection")
struct AccelerationRejectionTests {
    let degree = Double.pi / 180

    /// A reading of `magnitude` g, `degrees` from up (+Z), and the rule's action for it.
    func next(_ r: inout AccelerationRejection, angle degrees: Double, magnitude: Double) -> AccelerationRejection.Action {
        let a = Vector3(x: sin(degrees * degree), y: 0, z: cos(degrees * degree)) * magnitude
        return r.next(accelerometer: a, up: Vector3(x: 0, y: 0, z: 1), dt: 0.01)
    }

    func rule() -> AccelerationRejection {
        AccelerationRejection(threshold: 15 * degree, magnitudeThreshold: 0.15, recoveryTime: 1)
    }

    @Test func aReadingAlongUpOfAboutOneGCorrects() {
        var r = rule()
        #expect(next(&r, angle: 0, magnitude: 1) == .correct)
        #expect(next(&r, angle: 14.9, magnitude: 1.14) == .correct)
        #expect(next(&r, angle: 1, magnitude: 0.86) == .correct)
    }

    @Test func aReadingTooFarFromUpOrFromOneGIsRejected() {
        var r = rule()
        #expect(next(&r, angle: 15.1, magnitude: 1) == .reject)
        #expect(next(&r, angle: 0, magnitude: 1.16) == .reject)
        #expect(next(&r, angle: 0, magnitude: 0.84) == .reject)
        #expect(next(&r, angle: 180, magnitude: 1) == .reject)
        #expect(r.rejectedFor.map { abs($0 - 0.04) < 1e-12 } == true)
    }

    @Test func uninterruptedRejectionEndsInRecoveryUntilTheReadingsAgreeAgain() {
        var r = rule()
        for _ in 0..<99 { #expect(next(&r, angle: 30, magnitude: 1) == .reject) }
        // The 100th reading completes a second of rejection: the estimate is presumed wrong.
        #expect(next(&r, angle: 30, magnitude: 1) == .recover)
        #expect(r.isRecovering)
        #expect(next(&r, angle: 20, magnitude: 1) == .recover)
        #expect(next(&r, angle: 2, magnitude: 1) == .correct)
        #expect(!r.isRecovering && r.rejectedFor == nil)
        #expect(next(&r, angle: 30, magnitude: 1) == .reject)
    }

    @Test func oneAgreeingReadingRestartsTheRecoveryClock() {
        var r = rule()
        for _ in 0..<3 {
            for _ in 0..<90 { #expect(next(&r, angle: 30, magnitude: 1) == .reject) }
            #expect(next(&r, angle: 0, magnitude: 1) == .correct)
        }
        #expect(!r.isRecovering)
    }

    @Test func theLargestThresholdsNeverReject() {
        var r = AccelerationRejection(threshold: .pi, magnitudeThreshold: 16, recoveryTime: 1)
        #expect(next(&r, angle: 180, magnitude: 17) == .correct)
        #expect(next(&r, angle: 180, magnitude: 0) == .correct)
    }
}
