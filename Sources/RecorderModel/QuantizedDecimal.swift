import FoundationEssentials
import Glibc

/// Writes the values of a quantised sensor channel — whole counts of `quantum` (an IIO channel's
/// `scale` in the file unit), plus the channel's offset — as the shortest decimal that gives the
/// count back, rather than the shortest decimal that gives back the `Double` the multiplication
/// happened to produce (`(raw + offset) × scale` rarely has fewer than 16 significant digits).
///
/// The decimal written lies within `tolerance` (0.45 of a count) of the exact value, so a reader
/// recovers the device's count with `round(value / quantum) − offset` — even in single precision,
/// whose error over a 16-bit range is a few thousandths of a count. The test is made counting in
/// steps of the finest grid: its rounding (about 10⁻¹⁶ of the value) is far inside the 0.05 of a
/// count between the tolerance and half a count, and a reader's parse of the text rounds once.
///
/// Cost: one multiplication or division and a division per grid tried; no `String`, no
/// shortest-round-trip search. The digits are written by `RecordScratch.putDecimal`.
public struct QuantizedDecimal: Sendable {
    /// One count in the written unit.
    public let quantum: Double
    /// How far the written decimal may lie from the value: 0.45 of a count.
    public let tolerance: Double
    /// The finest decimal grid tried, `10^finest ≤ 0.8 × quantum`: its nearest multiple is always
    /// within `tolerance`. Three coarser grids (up to 1,000 times) are tried first, for fewer digits.
    let finest: Int
    /// `10^|finest|` (exact in a `Double`): values are multiplied by it (`finest < 0`) or divided,
    /// to count in steps of the finest grid.
    let finestPower: Double
    /// `tolerance` in steps of the finest grid (between 0.56 and 5.6).
    let scaledTolerance: Double

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
        finestPower = (0..<abs(finest)).reduce(1.0) { p, _ in p * 10 }
        scaledTolerance = finest < 0 ? tolerance * finestPower : tolerance / finestPower
    }

    /// The decimal `(digits, exponent)` for `value`: `digits × 10^exponent`, on the coarsest of
    /// the four grids that has one within `tolerance` (the fewest significant digits); nil when
    /// `value` is not finite or too large for the grid (|value| ≥ 10¹⁴ counts).
    ///
    /// Counted in steps of the finest grid (`s`, one multiplication or division), a grid `10^k`
    /// times coarser holds a decimal when the multiple of `10^k` nearest `s` is within
    /// `scaledTolerance` of it. The grid 10× coarser than the finest holds one about half the
    /// time: from there, coarser while they hold one (rarely), else the finest (which always does).
    @inline(__always)
    public func decimal(_ value: Double) -> (digits: Int64, exponent: Int)? {
        guard value.isFinite, abs(value) < quantum * 1e14 else { return nil }
        let s = finest < 0 ? value * finestPower : value / finestPower
        guard let coarse = Self.nearest(s, step: 10, within: scaledTolerance) else {
            return (Self.rounded(s), finest)
        }
        guard let coarser = Self.nearest(s, step: 100, within: scaledTolerance) else { return (coarse, finest + 1) }
        guard let coarsest = Self.nearest(s, step: 1000, within: scaledTolerance) else { return (coarser, finest + 2) }
        return (coarsest, finest + 3)
    }

    /// `s / step` rounded half away from zero, when that multiple of `step` is within `tolerance`
    /// of `s` (`step` and the multiple are exact in a `Double`).
    @inline(__always)
    static func nearest(_ s: Double, step: Double, within tolerance: Double) -> Int64? {
        let m = rounded(s / step)
        return abs(Double(m) * step - s) <= tolerance ? m : nil
    }

    /// Rounded half away from zero (one conversion, no libm call). The callers' |x| stays below
    /// 1.25 × 10¹⁵, under 2⁵² where adding 0.5 to an odd whole number would round it up
    /// (`RecordScratch.putTime` meets that range and rounds otherwise); a candidate one off near a
    /// half is still checked against the tolerance.
    @inline(__always)
    static func rounded(_ x: Double) -> Int64 {
        Int64(x + (x < 0 ? -0.5 : 0.5))
    }
}
