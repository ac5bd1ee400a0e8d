import FoundationEssentials
import Glibc
import RecorderModel

/// Tells a left from a right initial contact by the trunk's rotation about the vertical at the
/// contact: the sign of the yaw rate, smoothed and with its local mean removed, as McCamley et al.
/// (Gait & Posture 36(2), 2012, the paper of the contact detector) tell them — positive: right,
/// otherwise left (mobgap's `LrcMcCamley` with the yaw axis uses the same sign). McCamley and
/// mobgap band-pass the whole signal (0.5–2 Hz, forward and backward); this classifier works as
/// the samples arrive, from 40 Hz bins of the last `history` seconds: a Gaussian of `sigma`
/// seconds around the contact less the mean of the `halfWindow` seconds on each side — a
/// zero-phase band-pass whose look-ahead is what the detector's own (0.5 s and more) already
/// gives. On the bundled walks with their INDIP reference: BENCHMARKS.md.
///
/// Pure: no clock, no I/O. Feed the yaw rate (any unit, counterclockwise seen from above
/// positive) in time order; a gap starts afresh.
struct StepSideClassifier: Sendable {
    static let rate = InitialContactDetector.rate
    static let sigma = 0.1
    static let halfWindow = 0.5
    /// Bins kept: the window before a contact, and the detector's latency after it.
    static let history = 96

    private var bins = [Double](repeating: 0, count: history)
    /// The bin number each slot of `bins` holds (Int.min: none).
    private var binNumbers = [Int](repeating: .min, count: history)
    private var current: (bin: Int, sum: Double, count: Int)?
    /// The Gaussian's taps over ±3σ, and their sum.
    private static let kernel: [Double] = {
        let h = Int((3 * sigma * rate).rounded(.up))
        return (-h...h).map { k in
            let t = Double(k) / rate
            return exp(-t * t / (2 * sigma * sigma))
        }
    }()
    private static let kernelSum = kernel.reduce(0, +)

    /// One yaw-rate sample at `uptime` seconds.
    mutating func add(uptime: Double, yawRate: Double) {
        let bin = Int((uptime * Self.rate).rounded(.down))
        if let c = current, c.bin == bin {
            current = (bin, c.sum + yawRate, c.count + 1)
            return
        }
        if let c = current { store(c.sum / Double(c.count), bin: c.bin) }
        current = (bin, yawRate, 1)
    }

    /// Forgets the signal (a gap).
    mutating func reset() {
        for i in binNumbers.indices { binNumbers[i] = .min }
        current = nil
    }

    /// The side of a contact at `uptime`; nil when the bins around it are not there (no yaw
    /// rate, a gap, the signal's first moments).
    func side(at uptime: Double) -> FootSide? {
        let centre = Int((uptime * Self.rate).rounded(.down))
        let h = Self.kernel.count / 2
        var weighted = 0.0, weights = 0.0
        for k in -h...h {
            guard let v = value(centre + k) else { continue }
            weighted += Self.kernel[k + h] * v
            weights += Self.kernel[k + h]
        }
        let w = Int((Self.halfWindow * Self.rate).rounded())
        var sum = 0.0, count = 0
        for b in (centre - w)...(centre + w) {
            guard let v = value(b) else { continue }
            sum += v
            count += 1
        }
        // At least the contact's bin and most of the kernel on both sides.
        guard value(centre) != nil, weights > 0.8 * Self.kernelSum, count > w else { return nil }
        return weighted / weights - sum / Double(count) > 0 ? .right : .left
    }

    private mutating func store(_ value: Double, bin: Int) {
        let slot = ((bin % Self.history) + Self.history) % Self.history
        bins[slot] = value
        binNumbers[slot] = bin
    }

    private func value(_ bin: Int) -> Double? {
        let slot = ((bin % Self.history) + Self.history) % Self.history
        return binNumbers[slot] == bin ? bins[slot] : nil
    }
}
