import Foundation

/// Step and stride regularity and symmetry from the unbiased autocorrelation of the vertical
/// trunk acceleration (R. Moe-Nilssen, J. L. Helbostad, "Estimation of gait cycle
/// characteristics by trunk accelerometry", J. Biomech. 37(1), 2004): the coefficient at the
/// first dominant peak (lag ≈ one step) is the step regularity, at the second (lag ≈ one stride,
/// two steps) the stride regularity; their ratio says how alike left and right steps are.
public struct GaitRegularity: Sendable, Equatable, Codable {
    /// Autocorrelation coefficient at the step lag (1: every step alike).
    public var stepRegularity: Double
    /// Autocorrelation coefficient at the stride lag (1: every stride alike).
    public var strideRegularity: Double
    /// stepRegularity / strideRegularity (1: left and right steps alike).
    public var symmetry: Double

    /// The measures of `samples` (a bout's vertical acceleration at `rate` Hz) whose steps take
    /// about `stepTime` seconds; nil when the bout is shorter than three strides or a peak is not
    /// positive.
    public init?(samples: [Double], rate: Double, stepTime: Double) {
        let n = samples.count
        guard rate > 0, stepTime > 0, Double(n) / rate >= 6 * stepTime else { return nil }
        let mean = samples.reduce(0, +) / Double(n)
        let x = samples.map { $0 - mean }
        func coefficient(_ lag: Int) -> Double {
            var sum = 0.0
            for i in 0..<(n - lag) { sum += x[i] * x[i + lag] }
            return sum / Double(n - lag)
        }
        let variance = coefficient(0)
        guard variance > 0 else { return nil }
        /// The highest coefficient with its lag between `low` and `high` seconds.
        func peak(_ low: Double, _ high: Double) -> Double {
            let lags = max(1, Int((low * rate).rounded(.down)))...min(n - 1, Int((high * rate).rounded(.up)))
            return lags.map(coefficient).max()! / variance
        }
        let step = peak(0.75 * stepTime, 1.25 * stepTime)
        let stride = peak(1.75 * stepTime, 2.25 * stepTime)
        guard step > 0, stride > 0 else { return nil }
        stepRegularity = step
        strideRegularity = stride
        symmetry = step / stride
    }
}
