import FoundationEssentials
import Glibc

/// A second-order Butterworth low-pass section (bilinear transform, prewarped), direct form II
/// transposed.
struct Biquad: Sendable {
    private let b0, b1, b2, a1, a2: Double
    private var z1 = 0.0, z2 = 0.0
    private var primed = false

    init(lowPass cutoff: Double, rate: Double) {
        let k = tan(Double.pi * min(cutoff, 0.45 * rate) / rate)
        let q = 1 / 2.0.squareRoot()
        let norm = 1 / (1 + k / q + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - k / q + k * k) * norm
    }

    /// The filtered value; the state starts at the first input's steady state (no start-up step).
    mutating func next(_ x: Double) -> Double {
        if !primed {
            primed = true
            // Steady state for a constant input x: output x.
            z1 = x - b0 * x
            z2 = b2 * x - a2 * x
        }
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
