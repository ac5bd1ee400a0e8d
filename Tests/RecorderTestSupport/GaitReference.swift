import Foundation

/// The INDIP reference of the mobgap walks (`reference_initial_contacts.json`: foot-worn sensors'
/// walking bouts and initial contacts per trial) and the one way detected steps are scored against
/// it — `Benchmarks/gait/score.py`'s rule — shared by the accuracy tests and the gait benchmarks.
public enum GaitReference {
    public struct Bout: Decodable, Sendable {
        public let start_s: Double
        public let end_s: Double
        /// The reference's contacts, seconds from the file's start (`nil` where it lost one).
        public let initial_contacts_s: [Double?]
        public let cadence_steps_per_min: Double
    }

    public struct Trial: Decodable, Sendable {
        public let walking_bouts: [Bout]
    }

    /// The reference file of the fixtures (its lost contacts are `NaN`, which JSON has no word
    /// for: read as null).
    public static let path = Fixtures.root + "/imu/mobgap/reference_initial_contacts.json"

    /// Every trial of `file`, by name (`HA/001/TimeMeasure1_Test5_Trial1`).
    public static func load(_ file: String = path) throws -> [String: Trial] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        return try JSONDecoder().decode([String: Trial].self, from: Data(text.replacingOccurrences(of: "NaN", with: "null").utf8))
    }

    /// Detected steps against one trial's reference.
    public struct Score: CustomStringConvertible, Sendable {
        public var reference = 0, detected = 0, hits = 0, extraInBouts = 0
        /// Mean over the reference bouts of |cadence of the steps detected within the bout −
        /// the reference's|, steps/min.
        public var cadenceError = 0.0
        public var recall: Double { Double(hits) / Double(reference) }
        public var precision: Double { detected == 0 ? 0 : Double(hits) / Double(detected) }
        public var countError: Int { abs(detected - reference) }
        public var description: String {
            String(format: "%d reference, %d detected, %d hits: recall %.3f, precision %.3f, count error %d, extra in bouts %d, cadence error %.1f",
                   reference, detected, hits, recall, precision, countError, extraInBouts, cadenceError)
        }
    }

    /// A detection within ±0.25 s of a reference contact is a hit (each matched once, closest
    /// first); extras in bouts are detections within a reference bout (±0.25 s) that match none;
    /// each bout's cadence is 60 (n − 1) / (last − first) of the n detections within it.
    public static func score(_ steps: [Double], against trial: Trial) -> Score {
        let tolerance = 0.25
        let contacts = trial.walking_bouts.flatMap { $0.initial_contacts_s.compactMap { $0 } }.sorted()
        let found = steps.sorted()
        var pairs: [(Double, Int, Int)] = []
        var low = 0
        for (j, d) in found.enumerated() {
            while low < contacts.count, contacts[low] < d - tolerance { low += 1 }
            var i = low
            while i < contacts.count, contacts[i] <= d + tolerance {
                pairs.append((abs(d - contacts[i]), i, j))
                i += 1
            }
        }
        pairs.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        var matchedReference = Set<Int>(), matchedSteps = Set<Int>()
        for (_, i, j) in pairs where !matchedReference.contains(i) && !matchedSteps.contains(j) {
            matchedReference.insert(i)
            matchedSteps.insert(j)
        }
        var s = Score(reference: contacts.count, detected: found.count, hits: matchedReference.count)
        s.extraInBouts = found.indices.filter { j in
            !matchedSteps.contains(j) && trial.walking_bouts.contains { found[j] >= $0.start_s - tolerance && found[j] <= $0.end_s + tolerance }
        }.count
        var errors: [Double] = []
        for bout in trial.walking_bouts {
            let inside = found.filter { $0 >= bout.start_s - tolerance && $0 <= bout.end_s + tolerance }
            let cadence = inside.count >= 2 ? 60 * Double(inside.count - 1) / (inside.last! - inside.first!) : 0
            errors.append(abs(cadence - bout.cadence_steps_per_min))
        }
        s.cadenceError = errors.reduce(0, +) / Double(errors.count)
        return s
    }
}
