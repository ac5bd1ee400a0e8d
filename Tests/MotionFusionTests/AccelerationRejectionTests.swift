import MotionFusion
import Testing

@Suite("Acceleration rejection")
struct AccelerationRejectionTests {
    let degree = Double.pi / 180

    func rule() -> AccelerationRejection {
        AccelerationRejection(threshold: 15 * degree, magnitudeThreshold: 0.15, recoveryTime: 1)
    }

    @Test func aReadingAlongUpOfAboutOneGCorrects() {
        var r = rule()
        #expect(r.next(angle: 0, magnitude: 1, dt: 0.01) == .correct)
        #expect(r.next(angle: 14.9 * degree, magnitude: 1.14, dt: 0.01) == .correct)
        #expect(r.next(angle: 1 * degree, magnitude: 0.86, dt: 0.01) == .correct)
    }

    @Test func aReadingTooFarFromUpOrFromOneGIsRejected() {
        var r = rule()
        #expect(r.next(angle: 15.1 * degree, magnitude: 1, dt: 0.01) == .reject)
        #expect(r.next(angle: 0, magnitude: 1.16, dt: 0.01) == .reject)
        #expect(r.next(angle: 0, magnitude: 0.84, dt: 0.01) == .reject)
        #expect(r.next(angle: .pi, magnitude: 1, dt: 0.01) == .reject)
        #expect(r.rejectedFor.map { abs($0 - 0.04) < 1e-12 } == true)
    }

    @Test func uninterruptedRejectionEndsInRecoveryUntilTheReadingsAgreeAgain() {
        var r = rule()
        for _ in 0..<99 { #expect(r.next(angle: 30 * degree, magnitude: 1, dt: 0.01) == .reject) }
        // The 100th reading completes a second of rejection: the estimate is presumed wrong.
        #expect(r.next(angle: 30 * degree, magnitude: 1, dt: 0.01) == .recover)
        #expect(r.isRecovering)
        #expect(r.next(angle: 20 * degree, magnitude: 1, dt: 0.01) == .recover)
        #expect(r.next(angle: 2 * degree, magnitude: 1, dt: 0.01) == .correct)
        #expect(!r.isRecovering && r.rejectedFor == nil)
        #expect(r.next(angle: 30 * degree, magnitude: 1, dt: 0.01) == .reject)
    }

    @Test func oneAgreeingReadingRestartsTheRecoveryClock() {
        var r = rule()
        for _ in 0..<3 {
            for _ in 0..<90 { #expect(r.next(angle: 30 * degree, magnitude: 1, dt: 0.01) == .reject) }
            #expect(r.next(angle: 0, magnitude: 1, dt: 0.01) == .correct)
        }
        #expect(!r.isRecovering)
    }

    @Test func theLargestThresholdsNeverReject() {
        var r = AccelerationRejection(threshold: .pi, magnitudeThreshold: 16, recoveryTime: 1)
        #expect(r.next(angle: .pi, magnitude: 17, dt: 0.01) == .correct)
        #expect(r.next(angle: .pi, magnitude: 0, dt: 0.01) == .correct)
    }
}
