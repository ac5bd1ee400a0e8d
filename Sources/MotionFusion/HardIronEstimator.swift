import FoundationEssentials
import Glibc
import RecorderModel

/// The magnetometer's hard-iron offset (the field of magnetised parts that turn with the
/// device), estimated online by a least-squares sphere fit: readings `m` of a constant field
/// from varied orientations lie on a sphere `|m − c|² = r²` around the offset `c`, which is linear
/// in `(c, k = r² − |c|²)`: `|m|² = 2 c·m + k`. The normal equations are accumulated with an
/// exponential forgetting of time constant `memory` (an offset that changes is followed) and
/// solved every `solveInterval` readings.
///
/// `accuracy` follows CoreMotion's `CMMagneticFieldCalibrationAccuracy`: −1 until the readings
/// cover enough orientations for a fit, then by `coverage` — the readings' standard deviation
/// along their flattest direction against the radius (0.58 for an even cover of the sphere; turns
/// of 100–270° about each axis give ~0.23): 0 (low) from 0.1, 1 (medium) from 0.2, 2 (high)
/// from 0.35. The offset is used from accuracy 0 on.
public struct HardIronEstimator: Sendable {
    /// Seconds after which old readings weigh 1/e.
    public var memory: Double
    /// Readings between fits.
    public var solveInterval = 50
    /// The estimated offset, µT (zero until the first fit).
    public private(set) var offset = Vector3.zero
    /// The estimated field strength, µT.
    public private(set) var radius = 0.0
    /// −1 uncalibrated, 0 low, 1 medium, 2 high.
    public private(set) var accuracy = -1
    /// The smallest spread of the readings (standard deviation along their flattest direction)
    /// against the radius, at the last fit: ~0.58 when they cover the whole sphere evenly.
    public private(set) var coverage = 0.0
    /// Field strengths believed, µT.
    static let plausibleRadius = 10.0...200.0

    /// Σ w·aaᵀ (4×4, a = (mx, my, mz, 1)), Σ w·a·|m|², Σ w·|m|⁴ — upper triangle in `ata`.
    private var ata = [Double](repeating: 0, count: 16)
    private var atb = [Double](repeating: 0, count: 4)
    private var sinceSolve = 0
    private var lastUptime: Double?

    public init(memory: Double = 120) {
        self.memory = memory
    }

    /// Adds a reading (µT) measured at `uptime`.
    public mutating func add(_ m: Vector3, uptime: Double) {
        if let last = lastUptime, uptime > last {
            let decay = exp(-(uptime - last) / memory)
            for i in 0..<16 { ata[i] *= decay }
            for i in 0..<4 { atb[i] *= decay }
        }
        lastUptime = uptime
        let a = [m.x, m.y, m.z, 1.0]
        let b = m.dot(m)
        for i in 0..<4 {
            for j in i..<4 { ata[i * 4 + j] += a[i] * a[j] }
            atb[i] += a[i] * b
        }
        sinceSolve += 1
        if sinceSolve >= solveInterval {
            sinceSolve = 0
            solve()
        }
    }

    /// The reading less the offset.
    public func calibrated(_ m: Vector3) -> Vector3 { m - offset }

    mutating func solve() {
        let n = ata[15]
        guard n > 10 else { return }
        // The readings' covariance (from the same sums): how widely they spread in each direction.
        let mean = Vector3(x: ata[3] / n, y: ata[7] / n, z: ata[11] / n)
        let cxx = ata[0] / n - mean.x * mean.x, cxy = ata[1] / n - mean.x * mean.y, cxz = ata[2] / n - mean.x * mean.z
        let cyy = ata[5] / n - mean.y * mean.y, cyz = ata[6] / n - mean.y * mean.z, czz = ata[10] / n - mean.z * mean.z
        let smallestSpread = Self.smallestEigenvalue(cxx, cxy, cxz, cyy, cyz, czz).squareRoot()
        // Normal equations: (AᵀA) x = Aᵀb, x = (2c, k).
        var m = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 4)
        for i in 0..<4 {
            for j in 0..<4 { m[i][j] = i <= j ? ata[i * 4 + j] : ata[j * 4 + i] }
            m[i][4] = atb[i]
        }
        guard let x = Self.solve4(&m) else { return }
        let c = Vector3(x: x[0] / 2, y: x[1] / 2, z: x[2] / 2)
        let r2 = x[3] + c.dot(c)
        guard r2 > 0, r2.isFinite else { return }
        let r = r2.squareRoot()
        coverage = smallestSpread / r
        // A fit of readings bunched in one place is no sphere (its radius comes out of the noise):
        // the Earth's field is 25–65 µT, so a radius outside 10–200 µT is not believed.
        guard (Self.plausibleRadius).contains(r), coverage >= 0.1 else {
            if accuracy >= 0 { accuracy = 0 }
            return
        }
        offset = c
        radius = r
        accuracy = coverage >= 0.35 ? 2 : coverage >= 0.2 ? 1 : 0
    }

    /// Gaussian elimination with partial pivoting of a 4×5 augmented matrix; nil when singular.
    static func solve4(_ m: inout [[Double]]) -> [Double]? {
        for col in 0..<4 {
            var pivot = col
            for row in col + 1..<4 where abs(m[row][col]) > abs(m[pivot][col]) { pivot = row }
            guard abs(m[pivot][col]) > 1e-12 else { return nil }
            m.swapAt(col, pivot)
            for row in 0..<4 where row != col {
                let f = m[row][col] / m[col][col]
                if f != 0 { for k in col..<5 { m[row][k] -= f * m[col][k] } }
            }
        }
        return (0..<4).map { m[$0][4] / m[$0][$0] }
    }

    /// The smallest eigenvalue of a symmetric 3×3 matrix (trigonometric solution of its
    /// characteristic polynomial).
    static func smallestEigenvalue(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) -> Double {
        // [[a b c] [b d e] [c e f]]
        let p1 = b * b + c * c + e * e
        if p1 < 1e-30 { return min(a, d, f) }
        let q = (a + d + f) / 3
        let p2 = (a - q) * (a - q) + (d - q) * (d - q) + (f - q) * (f - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        let b11 = (a - q) / p, b12 = b / p, b13 = c / p, b22 = (d - q) / p, b23 = e / p, b33 = (f - q) / p
        let det = b11 * (b22 * b33 - b23 * b23) - b12 * (b12 * b33 - b23 * b13) + b13 * (b12 * b23 - b22 * b13)
        let r = max(-1, min(1, det / 2))
        let phi = acos(r) / 3
        // The eigenvalues are q + 2p cos(phi + 2πk/3); the smallest is k = 1.
        return max(0, q + 2 * p * cos(phi + 2 * .pi / 3))
    }
}
