import Foundation
import GaitAnalysis
import MotionFusion
import RecorderModel

/// The gait analysis (`BENCH_ONLY=gait`): its cost per sample — the whole `GaitTracker` (contact
/// detector, bout rules, regularity, sway, turns, per-step stretches) over the fused motion of
/// every mobgap walk, looped to 2 million samples (the fusion measured apart: `BENCH_ONLY=fusion`),
/// and the detector and bout rules alone — and recorderd's steps on each trial, with the side of
/// each contact, written as JSON (`BENCH_GAIT_OUTPUT`, default `.build/gait-reference/recorderd.json`)
/// for `scripts/gait-reference.sh` to score beside Mobilise-D's pipeline.
enum GaitBenchmark {
    /// One mobgap trial fused as a recording fuses it (100 Hz).
    struct FusedTrial {
        /// `HA/001/TimeMeasure1_Test5_Trial1`.
        let name: String
        /// Vertical user acceleration (g, along fused gravity) per row.
        let vertical: [Double]
        /// Rate of turn about fused vertical (rad/s) per row, `nil` before the fusion's first output.
        let yawRate: [Double?]
        /// What the tracker is fed: vertical, the accelerometer's x and y (g), the yaw rate.
        let signals: [(vertical: Double, ap: Double, ml: Double, yaw: Double)]
    }

    /// Every trial of the fixtures' reference, in name order.
    static func fusedTrials(fixtures: String) -> [FusedTrial] {
        let referenceText = try! String(contentsOfFile: fixtures + "/reference_initial_contacts.json", encoding: .utf8)
        let reference = try! JSONSerialization.jsonObject(with: Data(referenceText.replacingOccurrences(of: "NaN", with: "null").utf8)) as! [String: Any]
        return reference.keys.sorted().map { trial in
            var fuser = DeviceMotionFuser(usesMagnetometer: false)
            let text = try! String(contentsOfFile: fixtures + "/\(trial).csv", encoding: .utf8)
            var values: [Double] = []
            var yaws: [Double?] = []
            var signals: [(vertical: Double, ap: Double, ml: Double, yaw: Double)] = []
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: ",").map { Double($0)! }
                let uptime = Double(values.count) / 100
                let frame = MotionFrame(uptime: uptime, accelerometer: Vector3(x: f[1], y: f[2], z: f[3]),
                                        gyro: Vector3(x: f[4], y: f[5], z: f[6]) * (Double.pi / 180))
                guard let m = fuser.fuse(frame) else { values.append(0); yaws.append(nil); continue }
                let up = m.gravity * (1 / m.gravity.length)
                values.append(m.userAcceleration.dot(up))
                yaws.append(m.rotationRate.dot(up))
                signals.append((values.last!, frame.accelerometer!.x, frame.accelerometer!.y, m.rotationRate.dot(up)))
            }
            return FusedTrial(name: trial, vertical: values, yawRate: yaws, signals: signals)
        }
    }

    static func run(fixtures: String) {
        let trials = fusedTrials(fixtures: fixtures)
        var verticals: [String: [Double]] = [:]
        var yawRates: [String: [Double?]] = [:]
        for trial in trials {
            verticals[trial.name] = trial.vertical
            yawRates[trial.name] = trial.yawRate
        }
        let signals = trials.flatMap(\.signals)
        // recorderd's steps per trial, and the side of every contact the tracker reports.
        var output: [String: [String: Any]] = [:]
        for (trial, values) in verticals {
            output[trial] = ["initialContacts": steps(values, offset: 0), "sides": sides(values, yawRates[trial]!)]
        }
        let path = ProcessInfo.processInfo.environment["BENCH_GAIT_OUTPUT"] ?? ".build/gait-reference/recorderd.json"
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! JSONSerialization.data(withJSONObject: output, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        // The cost: every trial in turn, continuing in time, to 2 million samples; best of 3.
        let all = verticals.keys.sorted().flatMap { verticals[$0]! }
        let total = 2_000_000
        var best = Double.infinity
        var found = 0
        for _ in 0..<3 {
            let t0 = Benchmarks.cpuSeconds()
            found = steps(all, offset: 0, count: total).count
            best = min(best, (Benchmarks.cpuSeconds() - t0) / Double(total) * 1e9)
        }
        var bestTracker = Double.infinity
        var events = 0
        for _ in 0..<3 {
            let t0 = Benchmarks.cpuSeconds()
            events = track(signals, count: total)
            bestTracker = min(bestTracker, (Benchmarks.cpuSeconds() - t0) / Double(total) * 1e9)
        }
        // With step lengths (a participant's sensor height: stride length, speed and distance).
        var bestSpatial = Double.infinity
        for _ in 0..<3 {
            let t0 = Benchmarks.cpuSeconds()
            _ = track(signals, count: total, pendulumLength: 0.964)
            bestSpatial = min(bestSpatial, (Benchmarks.cpuSeconds() - t0) / Double(total) * 1e9)
        }
        Benchmarks.say(String(format: "gait: contact detector and bout rules %.0f ns per sample (%d steps in %d samples at 100 Hz); "
                              + "the whole tracker %.0f ns per sample (%d events), %.0f ns with step lengths; steps per trial in %@",
                              best, found, total, bestTracker, events, bestSpatial, path))
    }

    /// The whole tracker over `signals` (100 Hz), looped to `count` samples, the step path changing
    /// every 30 s, with step lengths when `pendulumLength` is given; returns the events.
    static func track(_ signals: [(vertical: Double, ap: Double, ml: Double, yaw: Double)], count: Int, pendulumLength: Double? = nil) -> Int {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true, pendulumLength: pendulumLength)
        var events: [GaitTracker.Event] = []
        var total = 0
        let paths = ["task/walk", "task/stand"]
        for i in 0..<count {
            let s = signals[i % signals.count]
            tracker.add(uptime: Double(i) / 100, stepPath: paths[(i / 3000) % 2], vertical: s.vertical, ap: s.ap, ml: s.ml, yawRate: s.yaw,
                        events: &events)
            total += events.count
            events.removeAll(keepingCapacity: true)
        }
        tracker.finish(events: &events)
        return total + events.count
    }

    /// The contacts the tracker reports in a trial (100 Hz) with their sides, as `[seconds, side]`.
    static func sides(_ values: [Double], _ yaws: [Double?]) -> [[Any]] {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: false)
        var events: [GaitTracker.Event] = []
        for i in values.indices {
            tracker.add(uptime: Double(i) / 100, stepPath: "walk", vertical: values[i], ap: 0, ml: 0, yawRate: yaws[i], events: &events)
        }
        tracker.finish(events: &events)
        return events.compactMap { if case .step(let t, let side, _) = $0 { return [t, side?.rawValue ?? NSNull()] } else { return nil } }
    }

    /// The steps in `values` (100 Hz), looped to `count` samples.
    static func steps(_ values: [Double], offset: Double, count: Int? = nil) -> [Double] {
        var detector = InitialContactDetector()
        var bouts = WalkingBoutRules()
        var steps: [Double] = []
        for i in 0..<(count ?? values.count) {
            for contact in detector.add(uptime: offset + Double(i) / 100, verticalAcceleration: values[i % values.count]) {
                for case .steps(let s) in bouts.add(contact) { steps += s }
            }
        }
        for case .steps(let s) in bouts.finish() { steps += s }
        return steps
    }
}
