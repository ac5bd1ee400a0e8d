import Foundation
import GaitAnalysis
import Testing

@Suite("Contact detector and walking-bout rules")
struct GaitRulesTests {
    @Test func aRunOfRegularContactsBecomesABoutAndItsStepsAtOnce() {
        var rules = WalkingBoutRules()
        // Five regular contacts (two and a half strides) are not a bout yet…
        for t in [1.0, 1.5, 2.0, 2.55, 3.1] { #expect(rules.add(t).isEmpty, "at \(t)") }
        // …the sixth (three strides) begins one, and all six are steps at once.
        #expect(rules.add(3.6) == [.boutStarted(start: 1.0), .steps([1.0, 1.5, 2.0, 2.55, 3.1, 3.6])])
        #expect(rules.add(4.1) == [.steps([4.1])])
        // A pause longer than a step breaks the rhythm: the contacts after it are not steps yet…
        #expect(rules.add(6.0).isEmpty && rules.run == [6.0] && !rules.isWalking && rules.hasOpenBout)
        #expect(rules.add(6.5).isEmpty)
        // …until three regular ones, within 3 s of the bout's last step, continue the bout.
        #expect(rules.add(7.0) == [.steps([6.0, 6.5, 7.0])])
        // A double detection within the bout is not a step and changes nothing.
        #expect(rules.add(7.1).isEmpty && rules.isWalking)
        #expect(rules.add(7.55) == [.steps([7.55])])
        // A break of more than 3 s ends it at its last step; the new contact starts another run.
        #expect(rules.add(11.0) == [.boutEnded(start: 1.0, end: 7.55, steps: 11)])
        #expect(rules.run == [11.0] && !rules.isWalking && !rules.hasOpenBout)
        #expect(rules.finish().isEmpty)
    }

    @Test func irregularContactsAreNeverSteps() {
        var rules = WalkingBoutRules()
        // Too close, then an interval that jumps by more than twice: no run reaches six.
        var actions: [WalkingBoutRules.Action] = []
        for t in [1.0, 1.1, 1.6, 2.0, 2.9, 3.05, 3.3, 4.2] { actions += rules.add(t) }
        #expect(actions.isEmpty, "\(actions)")
        #expect(rules.finish().isEmpty)
    }

    /// A vertical acceleration with a sharp rise (a heel strike's signature) every 0.55 s: one
    /// contact per rise, at the rise, each within one analysis bin (+ the configured delay).
    @Test func theDetectorFindsEachSteepRiseOfASyntheticWalk() {
        var detector = InitialContactDetector()
        let strikes = stride(from: 1.0, to: 12.0, by: 0.55).map { $0 }
        var found: [Double] = []
        for i in 0..<1300 {
            let t = Double(i) / 100
            // A smooth dip before each strike and a sharp rise at it (0.3 g over 60 ms).
            var value = 0.0
            for s in strikes {
                let d = t - s
                if d > -0.2 && d < 0 { value -= 0.15 * sin(Double.pi * -d / 0.2) }
                if d >= 0 && d < 0.06 { value += 0.3 * d / 0.06 }
                if d >= 0.06 && d < 0.3 { value += 0.3 * (0.3 - d) / 0.24 }
            }
            found += detector.add(uptime: t, verticalAcceleration: value)
        }
        #expect(found.count >= strikes.count - 2, "\(found.count) contacts for \(strikes.count) strikes")
        for contact in found {
            let nearest = strikes.min { abs($0 - contact) < abs($1 - contact) }!
            #expect(abs(contact - nearest) <= 0.06, "contact \(contact), strike \(nearest)")
        }
    }

    @Test func stillnessAndNoiseAtTheFloorGiveNoContacts() {
        var detector = InitialContactDetector()
        var state: UInt64 = 1
        var found: [Double] = []
        for i in 0..<3000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.004
            found += detector.add(uptime: Double(i) / 100, verticalAcceleration: noise)
        }
        #expect(found.isEmpty, "\(found)")
    }
}
