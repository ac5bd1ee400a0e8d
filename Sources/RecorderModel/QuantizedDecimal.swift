import Foundation

/// Writes the values of a quantised sensor channel — whole counts of `quantum` (an IIO channel's
/// `scale` in the file unit), plus the channel's offset — as the shortest decimal that gives the
/// count back, rather than the shortest decimal that gives back the `Double` the multiplication
/// happened to produce (`(raw + offset) × scale` rarely has fewer than 16 significant digits).
///
/// The decimal written lies within `tolerance` (0.45 of a count) of the exact value, so a reader
/// recovers the device's count with `round(value / quantum) − offset` — even in single precision,
/// whose error over a 16-bit range is a few thousandths of a count. The decimal is also exactly
/// what the reader's parser returns: `m / 10ⁿ` of two exactly representable numbers is rounded
/// once, as a correctly rounding parser rounds the text `m·10⁻ⁿ`.
///
/// Cost: a few multiplications; no `String`, no shortest-round-trip search. The digits are
/// written by `RecordScratch.putDecimal`.
public struct QuantizedDecimal: Sendable {
    /// One count in the written unit.
    public let quantum: Double
    /// How far the written decimal may lie from the value: 0.45 of a count.
    public let tolerance: Double
    /// The finest decimal grid tried, `10^finest ≤ 0.8 × quantum`: its nearest multiple is always
    /// within `tolerance`. Three coarser grids (up to 1,000 times) are tried first, for fewer digits.
    let finest: Int
    /// `10^|e|` of the four grids `e = finest + 3 … finest`, coarsest first (exact in a `Double`).
    let powers: (Double, Double, Double, Double)

    /// The quanta this formats: between 1e-12 and 1e12 (a channel's scale outside them is
    /// written as any other number).
    public static let quantumRange: ClosedRange<Double> = 1e-12...1e12

    /// Nil when `quantum` is not a finite number within `quantumRange`.
    public init?(quantum: Double) {
        guard quantum.isFinite, Self.quantumRange.contains(quantum) else { return nil }
        self.quantum = quantum
        tolerance = 0.45 * quantum
        let finest = Int((log10(0.8 * quantum)).rounded(.down))
        self.finest = finest
        func power(_ e: Int) -> Double { (0..<abs(e)).reduce(1.0) { p, _ in p * 10 } }
        powers = (power(finest + 3), power(finest + 2), power(finest + 1), power(finest))
    }

    /// The decimal `(digits, exponent)` for `value`: `digits × 10^exponent`, on the coarsest of
    /// the four grids that has one within `tolerance` (the fewest significant digits); nil when
    /// `value` is not finite or too large for the grid (|value| ≥ 10¹⁴ counts).
    @inline(__always)
    public func decimal(_ value: Double) -> (digits: Int64, exponent: Int)? {
        guard value.isFinite, abs(value) < quantum * 1e14 else { return nil }
        // The grid 10× coarser than the finest holds a decimal about half the time: from there,
        // coarser while they hold one (rarely), else the finest (which always does).
        guard let coarse = nearest(value, step: 2) else { return nearest(value, step: 3) }
        guard let coarser = nearest(value, step: 1) else { return coarse }
        return nearest(value, step: 0) ?? coarser
    }

    /// The multiple of grid `step` (0: `10^(finest+3)` … 3: `10^finest`) nearest `value`, as
    /// `(digits, exponent)`, when within `tolerance`.
    @inline(__always)
    func nearest(_ value: Double, step: Int) -> (digits: Int64, exponent: Int)? {
        let exponent = finest + 3 - step
        let p = step == 0 ? powers.0 : step == 1 ? powers.1 : step == 2 ? powers.2 : powers.3
        // m = value / 10^exponent, rounded half away from zero (one conversion, no libm call);
        // the candidate is exactly what a reader's parser makes of the text "m·10^exponent".
        let scaled = exponent < 0 ? value * p : value / p
        let m = Int64(scaled + (scaled < 0 ? -0.5 : 0.5))
        let candidate = exponent < 0 ? Double(m) / p : Double(m) * p
        return abs(candidate - value) <= tolerance ? (m, exponent) : nil
    }
}
