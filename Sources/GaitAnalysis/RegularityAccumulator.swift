import FoundationEssentials
import Glibc

/// Step and stride regularity and symmetry from the unbiased autocorrelation of the vertical
/// trunk acceleration (R. Moe-Nilssen, J. L. Helbostad, "Estimation of gait cycle
/// characteristics by trunk accelerometry", J. Biomech. 37(1), 2004): the coefficient at the
/// first dominant peak (lag ≈ one step) is the step regularity, at the second (lag ≈ one stride,
/// two steps) the stride regularity; their ratio says how alike left and right steps are.
///
/// Streaming: the products of each new value with the last `maximumLag` values of its bout are
/// summed as values arrive (no pass over stored data). Which values belong to a walking bout is
/// known only once its steps are (a bout is recognised a few steps after it began), so values
/// wait as `pending` until `commit(upTo:)` takes those up to a confirmed step; `startBout(at:)`
/// drops what came before the bout and `endBout()` what followed its last step.
public struct RegularityAccumulator: Sendable {
    /// The measures.
    public struct Measures: Sendable, Equatable {
        /// Autocorrelation coefficient at the step lag (1: every step alike).
        public var stepRegularity: Double
        /// Autocorrelation coefficient at the stride lag (1: every stride alike).
        public var strideRegularity: Double
        /// stepRegularity / strideRegularity (1: left and right steps alike).
        public var symmetry: Double
    }

    /// Values per second.
    public let rate: Double
    /// The longest lag summed, in values (2.25 × the longest step time).
    public let maximumLag: Int
    /// Seconds of values kept pending outside a bout (enough for the steps that found it).
    public let pendingSeconds: Double
    private var pending: [(time: Double, value: Double)] = []
    /// The bout's last `maximumLag` committed values, a ring (`historyCount` of them valid).
    private var history: [Double]
    private var historyNext = 0
    private var historyCount = 0
    /// sums[l]: Σ x_i · x_(i-l) over committed pairs of the same bout; pairs[l] their number.
    private var sums: [Double]
    private var pairs: [Int]
    private var total = 0.0
    private var count = 0

    /// `rate`: values per second; `longestStep`: seconds.
    public init(rate: Double, longestStep: Double = 1.0, pendingSeconds: Double = 6) {
        self.rate = rate
        self.pendingSeconds = pendingSeconds
        maximumLag = max(2, Int((2.25 * longestStep * rate).rounded(.up)))
        history = [Double](repeating: 0, count: maximumLag)
        sums = [Double](repeating: 0, count: maximumLag + 1)
        pairs = [Int](repeating: 0, count: maximumLag + 1)
    }

    /// One value (the vertical acceleration at `time`), pending until committed.
    public mutating func add(time: Double, value: Double) {
        pending.append((time, value))
        if let first = pending.first, time - first.time > pendingSeconds * 2 {
            pending.removeFirst(pending.firstIndex { time - $0.time <= pendingSeconds } ?? 0)
        }
    }

    /// A bout began at `start` (its first step): values before it are dropped, and the bout's
    /// values do not pair with an earlier bout's.
    public mutating func startBout(at start: Double) {
        pending.removeAll { $0.time < start }
        historyCount = 0
        historyNext = 0
    }

    /// Adds the pending values up to `time` (a confirmed step of the bout) to the sums.
    public mutating func commit(upTo time: Double) {
        var taken = 0
        for (t, x) in pending {
            guard t <= time else { break }
            taken += 1
            sums[0] += x * x
            pairs[0] += 1
            var index = historyNext
            for lag in 1...maximumLag {
                guard lag <= historyCount else { break }
                index = index == 0 ? maximumLag - 1 : index - 1
                sums[lag] += x * history[index]
                pairs[lag] += 1
            }
            history[historyNext] = x
            historyNext = (historyNext + 1) % maximumLag
            historyCount = min(historyCount + 1, maximumLag)
            total += x
            count += 1
        }
        pending.removeFirst(taken)
    }

    /// The bout ended at its last committed step: what followed it is dropped.
    public mutating func endBout() {
        pending.removeAll()
        historyCount = 0
        historyNext = 0
    }

    /// The measures for steps of about `stepTime` seconds; nil when the bouts held fewer than
    /// three strides or a peak is not positive.
    public func measures(stepTime: Double) -> Measures? {
        guard count > 0, stepTime > 0, Double(count) / rate >= 6 * stepTime else { return nil }
        let mean = total / Double(count)
        func coefficient(_ lag: Int) -> Double? {
            pairs[lag] > 0 ? sums[lag] / Double(pairs[lag]) - mean * mean : nil
        }
        guard let variance = coefficient(0), variance > 0 else { return nil }
        /// The highest coefficient with its lag between `low` and `high` seconds.
        func peak(_ low: Double, _ high: Double) -> Double? {
            let lags = max(1, Int((low * rate).rounded(.down)))...max(1, min(maximumLag, Int((high * rate).rounded(.up))))
            return lags.compactMap(coefficient).max().map { $0 / variance }
        }
        guard let step = peak(0.75 * stepTime, 1.25 * stepTime), let stride = peak(1.75 * stepTime, 2.25 * stepTime),
              step > 0, stride > 0 else { return nil }
        return Measures(stepRegularity: step, strideRegularity: stride, symmetry: step / stride)
    }
}
