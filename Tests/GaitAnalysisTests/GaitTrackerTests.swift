import Foundation
import GaitAnalysis
import RecorderModel
import Testing

/// The tracker's stretches, without I/O: which measure set a stretch gets is decided by the data,
/// steps near a step boundary count in the step they were taken in, and a gap is analysed around.
@Suite("Gait tracker")
struct GaitTrackerTests {
    /// The synthetic heel strikes of `GaitRulesTests`: a dip, then a sharp rise every `period` s.
    static func walkSignal(_ t: Double, strikesFrom start: Double, to end: Double, period: Double = 0.55) -> Double {
        var value = 0.0
        var s = start
        while s < end {
            let d = t - s
            if d > -0.2 && d < 0 { value -= 0.15 * sin(Double.pi * -d / 0.2) }
            if d >= 0 && d < 0.06 { value += 0.3 * d / 0.06 }
            if d >= 0.06 && d < 0.3 { value += 0.3 * (0.3 - d) / 0.24 }
            s += period
        }
        return value
    }

    /// Stand 4 s (a 0.01 g sway at 0.5 Hz), walk 2–12 s across a step boundary at 7 s, stand again.
    @Test func eachStretchGetsTheMeasuresItsDataCallFor() {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        var latencies: [Double] = []
        for i in 0..<2000 {
            let t = Double(i) / 100
            let before = events.count
            let path = t < 4 ? "task/stand" : t < 7 ? "task/walk.out" : t < 13 ? "task/walk.back" : "task/rest"
            let walking = t >= 4 && t < 12.2
            let vertical = walking ? Self.walkSignal(t, strikesFrom: 4.5, to: 12) : 0
            let ap = walking ? 0.1 * sin(2 * Double.pi * t / 1.1) : 0.01 * sin(Double.pi * t)
            tracker.add(uptime: t, stepPath: path, vertical: vertical, ap: ap, ml: 0, yawRate: 0, events: &events)
            for case .step(let contact, _, _) in events[before...] { latencies.append(t - contact) }
        }
        // The analysis's latency in data time: each contact is found within 0.8 s of samples
        // after it (a live subscriber gets it then).
        #expect(!latencies.isEmpty && latencies.allSatisfy { $0 >= 0 && $0 <= 0.8 }, "\(latencies)")
        tracker.finish(events: &events)
        let s = tracker.summaries
        #expect(s.map(\.stepPath) == ["task/stand", "task/walk.out", "task/walk.back", "task/rest"])
        #expect(s.map(\.activity) == [.standing, .walking, .walking, .standing], "\(s.map(\.activity))")
        // Strikes at 4.5 + 0.55 k: 5 before 7 s (4.5 … 6.7), 10 from 7.25 to 12.2.
        let out = s[1].walking?.stepCount ?? 0, back = s[2].walking?.stepCount ?? 0
        #expect(abs(out - 5) <= 1 && abs(back - 10) <= 1 && out + back >= 14, "\(out) + \(back)")
        #expect(abs((s[2].walking?.cadence ?? 0) - 60 / 0.55) < 2, "\(String(describing: s[2].walking))")
        #expect((s[2].walking?.stepRegularity ?? 0) > 0.8, "\(String(describing: s[2].walking))")
        let sway = try? #require(s[0].sway)
        #expect(abs((sway?.rmsAP ?? 0) - 0.01 / 2.0.squareRoot()) < 0.001, "\(String(describing: sway))")
        #expect(s.allSatisfy { $0.turns == [] && $0.gapCount == 0 })
        // One bout across the boundary; a step record for every contact, bouts after their steps.
        let bouts = events.compactMap { if case .bout(let a, let b, let n, _, _) = $0 { return (a, b, n) } else { return nil } }
        #expect(bouts.count == 1 && bouts.first?.2 == out + back)
        let times = events.map { e -> Double in
            switch e {
            case .step(let t, _, _): return t
            case .bout(_, let end, _, _, _): return end
            }
        }
        #expect(times == times.sorted(), "records in time order")
    }

    /// One answer per step: a summary asked for as a step finishes (`step.finish`) is final when
    /// nothing can change it, and says `provisional` when the analysis could still find or confirm
    /// steps in it. The outbound walk of the demo's kind: five strikes (4.5 … 6.7 s) when it
    /// finishes at 7 s, too few for a bout yet, so "neither" — provisional; the final summary,
    /// once the walk went on into the next step, counts its steps. The standing before it is
    /// final at once and stays as it was given.
    @Test func aSummaryGivenMidWalkIsProvisionalAndTheFinalOneCountsItsSteps() {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        var asked: [String: GaitStepSummary] = [:]
        for i in 0..<2000 {
            let t = Double(i) / 100
            let path = t < 4 ? "task/stand" : t < 7 ? "task/walk.out" : t < 13 ? "task/walk.back" : "task/rest"
            // The step.finish of a step: asked after its last sample, before the next step's first.
            if i > 0, path != (t - 0.01 < 4 ? "task/stand" : t - 0.01 < 7 ? "task/walk.out" : t - 0.01 < 13 ? "task/walk.back" : "task/rest") {
                let finished = t <= 4 ? "task/stand" : t <= 7 ? "task/walk.out" : "task/walk.back"
                asked[finished] = tracker.summary(ofStep: finished)
            }
            let walking = t >= 4 && t < 12.2
            let vertical = walking ? Self.walkSignal(t, strikesFrom: 4.5, to: 12) : 0
            let ap = walking ? 0.1 * sin(2 * Double.pi * t / 1.1) : 0.01 * sin(Double.pi * t)
            tracker.add(uptime: t, stepPath: path, vertical: vertical, ap: ap, ml: 0, yawRate: 0, events: &events)
        }
        tracker.finish(events: &events)
        let final = Dictionary(tracker.summaries.map { ($0.stepPath, $0) }, uniquingKeysWith: { a, _ in a })
        let stand = asked["task/stand"], out = asked["task/walk.out"]
        #expect(stand?.provisional == nil && stand == final["task/stand"], "\(String(describing: stand))")
        #expect(out?.provisional == true && out?.headline.hasSuffix("(provisional)") == true, "\(String(describing: out))")
        #expect(out?.activity == .neither, "\(String(describing: out))")
        #expect(final["task/walk.out"]?.activity == .walking && (final["task/walk.out"]?.walking?.stepCount ?? 0) >= 4)
        #expect(tracker.summaries.allSatisfy { $0.provisional == nil })
        // Asked again once final, the answer is the final one.
        #expect(tracker.summary(ofStep: "task/walk.out") == final["task/walk.out"])
    }

    /// The step changes to the rest while the walk's last step is taken (11.65 s, the step at
    /// 11.5 s): the rest is standing, its sway measured after that step (the walk's 0.1 g of AP
    /// acceleration kept out of it), and the step still counted in it. The walk itself, mostly
    /// walking with 4 s of standing before it, stays walking.
    @Test func aRestThatBeginsWithTheWalksLastStepIsStandingWithItsSway() throws {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        for i in 0..<2500 {
            let t = Double(i) / 100
            let walking = t >= 4 && t < 12.2
            let vertical = walking ? Self.walkSignal(t, strikesFrom: 4.5, to: 12) : 0
            let ap = walking ? 0.1 * sin(2 * Double.pi * t / 1.1) : 0.01 * sin(Double.pi * t)
            tracker.add(uptime: t, stepPath: t < 11.5 ? "task/walk" : "task/rest", vertical: vertical, ap: ap, ml: 0, yawRate: 0,
                        events: &events)
        }
        tracker.finish(events: &events)
        let s = tracker.summaries
        try #require(s.map(\.stepPath) == ["task/walk", "task/rest"])
        let walk = s[0], rest = s[1]
        #expect(walk.activity == .walking && walk.sway == nil, "\(walk)")
        #expect(rest.activity == .standing, "\(rest)")
        #expect(rest.walking?.stepCount == 1, "\(String(describing: rest.walking))")
        #expect((walk.walking?.stepCount ?? 0) + (rest.walking?.stepCount ?? 0) == 14, "every strike counted once")
        let sway = try #require(rest.sway)
        #expect(abs(sway.rmsAP - 0.01 / 2.0.squareRoot()) < 0.001, "\(sway)")
        #expect(sway.duration > 12 && sway.duration < 12.4, "measured from 1 s after the step: \(sway.duration)")
        #expect(rest.headline.hasSuffix(", after 1 step"), "\(rest.headline)")
        #expect(rest.note == "1 step at the start; standing (and sway) from 1.2 s on", "\(String(describing: rest.note))")
    }

    @Test func aGapIsAnalysedAroundAndSaidSo() {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        for i in 0..<1500 {
            let t = Double(i) / 100
            if i == 800 { tracker.gap(droppedSamples: 37, events: &events) }
            if t >= 7.6 && t < 8.0 { continue }  // the lost samples
            tracker.add(uptime: t, stepPath: "walk", vertical: Self.walkSignal(t, strikesFrom: 1, to: 14), ap: 0, ml: 0, yawRate: nil,
                        events: &events)
        }
        tracker.finish(events: &events)
        let s = try! #require(tracker.summaries.first)
        #expect(s.activity == .walking && s.gapCount == 1 && s.droppedSamples == 37)
        #expect(s.turns == nil, "no gyroscope, no turns")
        // The bout ends at the gap and another begins after it.
        #expect((s.walking?.bouts.count ?? 0) == 2, "\(String(describing: s.walking))")
        #expect(s.headline.contains("1 gap") && s.headline.contains("37 samples lost"), "\(s.headline)")
    }

    /// A walk with a 2 s pause: one bout (Mobilise-D's breaks), whose record's cadence is the
    /// summary's — the steps' rhythm, not diluted by the pause.
    @Test func aBoutRecordsCadenceIsItsStepsNotItsBreak() throws {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        for i in 0..<1400 {
            let t = Double(i) / 100
            let v = Self.walkSignal(t, strikesFrom: 1, to: 5, period: 0.5) + Self.walkSignal(t, strikesFrom: 7, to: 12, period: 0.5)
            tracker.add(uptime: t, stepPath: "walk", vertical: v, ap: 0, ml: 0, yawRate: nil, events: &events)
        }
        tracker.finish(events: &events)
        let bouts = events.compactMap { if case .bout(_, _, let n, let c, _) = $0 { return (n, c) } else { return nil } }
        #expect(bouts.count == 1, "\(bouts)")
        let walking = try #require(tracker.summaries.first?.walking)
        let cadence = try #require(bouts.first?.1)
        #expect(abs(cadence - 120) < 2 && abs(cadence - (walking.cadence ?? 0)) < 1e-9, "bout \(cadence), summary \(String(describing: walking.cadence))")
    }

    @Test func movementWithoutWalkingIsNeitherAndSaysWhy() {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true)
        var events: [GaitTracker.Event] = []
        for i in 0..<500 {
            let t = Double(i) / 100
            tracker.add(uptime: t, stepPath: "sit", vertical: 0.2 * sin(2 * Double.pi * t * 0.3), ap: 0.2, ml: 0, yawRate: nil, events: &events)
        }
        tracker.finish(events: &events)
        let s = try! #require(tracker.summaries.first)
        #expect(s.activity == .neither && s.note?.contains("movement without walking") == true, "\(s)")
        #expect(s.walking == nil && s.sway == nil)
    }
}
