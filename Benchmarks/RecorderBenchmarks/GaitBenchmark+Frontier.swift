import Foundation
import GaitAnalysis
import RecorderTestSupport

/// Can one setting of recorderd's step detection be at least as good as Mobilise-D's pipeline on
/// every daily-living trial at once (`BENCH_ONLY=gait-frontier`)? The contact detector's and the
/// bout rules' settings are swept over a grid around the shipped ones (54,000 settings); each is
/// scored against the INDIP reference on every trial, and on each daily-living trial beside
/// mobgap's figures from the same scorer (`BENCH_GAIT_PEER`, default
/// `.build/gait-reference/mobgap.json`, written by `scripts/gait-reference.sh`). Prints how many
/// settings meet each of mobgap's figures, the best each trial can do while the others hold, and
/// the shipped setting's place.
extension GaitBenchmark {
    /// A point of the grid.
    struct Setting {
        var detector: InitialContactDetector.Settings
        var bouts: WalkingBoutRules.Settings
    }

    static func frontier(fixtures: String) {
        let peerPath = ProcessInfo.processInfo.environment["BENCH_GAIT_PEER"] ?? ".build/gait-reference/mobgap.json"
        guard let peerData = FileManager.default.contents(atPath: peerPath),
              let peer = try? JSONSerialization.jsonObject(with: peerData) as? [String: [String: Any]] else {
            Benchmarks.say("gait-frontier: no mobgap output at \(peerPath) (scripts/gait-reference.sh writes it)")
            return
        }
        let reference = try! GaitReference.load(fixtures + "/reference_initial_contacts.json")
        let trials = fusedTrials(fixtures: fixtures).filter { !(reference[$0.name]?.walking_bouts.isEmpty ?? true) }
        let straight = trials.filter { $0.name.contains("Test5") }
        let daily = trials.filter { $0.name.contains("Test11") }
        // mobgap's figures on each daily-living trial: the bar.
        let bars = daily.map { trial in
            GaitReference.score((peer[trial.name]?["initialContacts"] as? [Double]) ?? [], against: reference[trial.name]!)
        }
        for (trial, bar) in zip(daily, bars) { Benchmarks.say("gait-frontier: mobgap \(trial.name): \(bar)") }

        var settings: [Setting] = []
        for sigma in [0.08, 0.10, 0.12, 0.15] {
            for relativeDepth in [0.2, 0.3, 0.4, 0.5, 0.6] {
                for activity in [0.03, 0.04, 0.05, 0.06, 0.07] {
                    for before in [1.0, 1.6] {
                        var d = InitialContactDetector.Settings()
                        (d.sigma, d.relativeDepth, d.minimumActivity, d.activityBefore) = (sigma, relativeDepth, activity, before)
                        for delay in [0.0, 0.05, 0.1] {
                            d.delay = delay
                            for minimumSteps in [3, 4, 5, 6, 8] {
                                for ratio in [1.5, 2.0, 3.0] {
                                    for continuing in [2, 3, 4] {
                                        for longest in [1.0, 1.5] {
                                            var b = WalkingBoutRules.Settings()
                                            (b.minimumSteps, b.largestRatio, b.continuingSteps, b.longestStep) = (minimumSteps, ratio, continuing, longest)
                                            settings.append(Setting(detector: d, bouts: b))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // The contacts of each detector setting (without its delay, a shift of every contact) are
        // found once; the bout rules run on them for each of their settings.
        var contactsBySetting: [String: [[Double]]] = [:]
        func contacts(_ d: InitialContactDetector.Settings) -> [[Double]] {
            var undelayed = d
            undelayed.delay = 0
            let key = [d.sigma, d.relativeDepth, d.minimumActivity, d.activityBefore].map { "\($0)" }.joined(separator: " ")
            if let found = contactsBySetting[key] { return found }
            let found = trials.map { trial in
                var detector = InitialContactDetector(settings: undelayed)
                var contacts: [Double] = []
                for (i, value) in trial.vertical.enumerated() { contacts += detector.add(uptime: Double(i) / 100, verticalAcceleration: value) }
                return contacts + detector.finish()
            }
            contactsBySetting[key] = found
            return found
        }
        func steps(_ contacts: [Double], _ setting: Setting) -> [Double] {
            var rules = WalkingBoutRules(settings: setting.bouts)
            var steps: [Double] = []
            for contact in contacts { for case .steps(let s) in rules.add(contact + setting.detector.delay) { steps += s } }
            return steps
        }
        /// Which of mobgap's four figures a score meets: recall, precision, count error, cadence error.
        func meets(_ s: GaitReference.Score, _ bar: GaitReference.Score) -> [Bool] {
            [s.recall >= bar.recall, s.precision >= bar.precision, s.countError <= bar.countError, s.cadenceError <= bar.cadenceError]
        }

        let started = Benchmarks.cpuSeconds()
        var straightOK = 0
        var figureCounts = [[Int]](repeating: [0, 0, 0, 0], count: daily.count)
        var allFour = [Int](repeating: 0, count: daily.count)
        var everything = 0
        // For each daily trial: the best of its figures among the settings that meet every figure of the others.
        var bestWhileOthersHold: [(recall: Double, precision: Double, count: Int, cadence: Double, settings: Int)] =
            daily.map { _ in (0, 0, Int.max, .infinity, 0) }
        // The most of the 3 × 4 figures one setting meets, and which figures those settings miss.
        var mostMet = 0
        var missedAtMost: [String: Int] = [:]
        var closest: [(Setting, [GaitReference.Score])] = []
        let figureNames = ["recall", "precision", "count error", "cadence error"]
        var shipped: [GaitReference.Score] = []
        let shippedDetector = InitialContactDetector.Settings(), shippedBouts = WalkingBoutRules.Settings()
        for setting in settings {
            let found = contacts(setting.detector)
            let scores = zip(trials, found).map { GaitReference.score(steps($1, setting), against: reference[$0.name]!) }
            let byName = Dictionary(uniqueKeysWithValues: zip(trials.map(\.name), scores))
            if setting.detector == shippedDetector && setting.bouts == shippedBouts { shipped = daily.map { byName[$0.name]! } }
            // The straight walks' targets (the tests'): every reference step, at most one extra in
            // the bout, cadence within 3 steps/min.
            guard straight.allSatisfy({ let s = byName[$0.name]!; return s.recall == 1 && s.extraInBouts <= 1 && s.cadenceError <= 3 }) else { continue }
            straightOK += 1
            let dailyScores = daily.map { byName[$0.name]! }
            let met = zip(dailyScores, bars).map { meets($0, $1) }
            for (i, m) in met.enumerated() {
                for (k, ok) in m.enumerated() where ok { figureCounts[i][k] += 1 }
                if !m.contains(false) { allFour[i] += 1 }
            }
            if met.allSatisfy({ !$0.contains(false) }) { everything += 1 }
            let metCount = met.joined().filter { $0 }.count
            if metCount > mostMet { (mostMet, missedAtMost, closest) = (metCount, [:], []) }
            if metCount == mostMet {
                closest.append((setting, dailyScores))
                for (i, m) in met.enumerated() {
                    for (k, ok) in m.enumerated() where !ok { missedAtMost[daily[i].name + " " + figureNames[k], default: 0] += 1 }
                }
            }
            for i in daily.indices where met.indices.allSatisfy({ $0 == i || !met[$0].contains(false) }) {
                let s = dailyScores[i]
                var best = bestWhileOthersHold[i]
                best = (max(best.recall, s.recall), max(best.precision, s.precision), min(best.count, s.countError), min(best.cadence, s.cadenceError),
                        best.settings + 1)
                bestWhileOthersHold[i] = best
            }
        }
        Benchmarks.say(String(format: "gait-frontier: %d settings (%d detector settings), %.1f s of CPU; %d meet the straight walks' targets",
                              settings.count, contactsBySetting.count, Benchmarks.cpuSeconds() - started, straightOK))
        for (i, trial) in daily.enumerated() {
            let c = figureCounts[i]
            Benchmarks.say("gait-frontier: \(trial.name): of those, recall ≥ mobgap's \(c[0]), precision \(c[1]), count error \(c[2]), "
                           + "cadence error \(c[3]); all four \(allFour[i])")
            let b = bestWhileOthersHold[i]
            if b.settings == 0 {
                Benchmarks.say("gait-frontier: \(trial.name): no setting meets every figure of the other daily trials")
            } else {
                Benchmarks.say(String(format: "gait-frontier: %@: where the other daily trials meet all of mobgap's figures (%d settings), its best is "
                                      + "recall %.3f, precision %.3f, count error %d, cadence error %.1f (mobgap %.3f, %.3f, %d, %.1f)",
                                      trial.name, b.settings, b.recall, b.precision, b.count, b.cadence,
                                      bars[i].recall, bars[i].precision, bars[i].countError, bars[i].cadenceError))
            }
        }
        Benchmarks.say("gait-frontier: the most of mobgap's \(daily.count * 4) figures one setting meets: \(mostMet); what those settings miss (settings): "
                       + missedAtMost.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (setting, scores) in closest.prefix(5) {
            let d = setting.detector, b = setting.bouts
            Benchmarks.say(String(format: "gait-frontier: closest: σ %.2f s, relative depth %.1f, activity ≥ %.2f g over %.1f s, delay %.2f s; "
                                  + "bouts from %d contacts, ratio ≤ %.1f, %d to continue, steps ≤ %.1f s: ", d.sigma, d.relativeDepth,
                                  d.minimumActivity, d.activityBefore, d.delay, b.minimumSteps, b.largestRatio, b.continuingSteps, b.longestStep)
                           + scores.map { String(format: "%.3f/%.3f/%d/%.1f", $0.recall, $0.precision, $0.countError, $0.cadenceError) }.joined(separator: "  "))
        }
        Benchmarks.say("gait-frontier: settings meeting every figure of every daily trial: \(everything)")
        for (trial, s) in zip(daily, shipped) { Benchmarks.say("gait-frontier: shipped setting, \(trial.name): \(s)") }
    }
}
