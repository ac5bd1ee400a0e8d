import Glibc

/// Step length from the trunk's vertical excursion within the step: Zijlstra & Hof's inverted
/// pendulum (Gait & Posture 18(2), 2003: the centre of mass vaults over the stance leg, so a rise
/// and fall of `h` over a pendulum of length `l` covers `2√(2lh − h²)` forwards), with the
/// excursion found by integrating the vertical acceleration twice *within the step*: its mean is
/// removed (the trunk ends a step as high, and as fast upwards, as it began it: no drift carried
/// from step to step) and the position's linear trend.
///
/// The correction: the pendulum alone leaves out the double-support phase, and Zijlstra & Hof
/// multiplied it by a constant, 1.25, kept here. Before the pendulum, `excursionFloor` (6.5 mm)
/// is taken off each step's excursion: the part of it that is not the centre of mass vaulting —
/// the sensor's noise and the trunk's own vertical motion, integrated over the step — which a
/// step of daily living's shuffling is made of almost entirely (its excursion of 1–2 cm gave
/// strides half as long again as INDIP's). The floor is fitted on the INDIP reference bouts; left
/// out one participant at a time and fitted on the other two, the speed error on the one left out
/// is what the fit on all three gives (0.078 against 0.077 m/s; BENCHMARKS.md). A constant
/// correction of 1.1 without the floor erred by 0.115 m/s; a factor growing with the cadence fitted
/// the reference's own contacts, but not recorderd's (daily living's shuffling gives cadences far
/// above the reference's).
///
/// Pure: samples in, lengths out.
public struct PendulumStepLength: Sendable {
    /// Zijlstra & Hof's correction factor.
    public static let correction = 1.25
    /// Metres of a step's excursion that are not the pendulum's, taken off before it.
    public static let excursionFloor = 0.0065
    static let standardGravity = 9.80665

    /// The pendulum's length: the sensor's height above the ground, m.
    public let pendulumLength: Double
    let rate: Double
    /// The latest samples' uptimes and vertical accelerations (g), oldest first, as a ring.
    private var uptimes: [Double]
    private var values: [Double]
    private var next = 0
    private var count = 0

    /// `pendulumLength`: m; `rate`: samples per second; `seconds`: how far back a step may begin.
    public init(pendulumLength: Double, rate: Double, seconds: Double) {
        self.pendulumLength = pendulumLength
        self.rate = rate
        let capacity = max(2, Int((seconds * max(rate, 1)).rounded(.up)) + 1)
        uptimes = [Double](repeating: 0, count: capacity)
        values = [Double](repeating: 0, count: capacity)
    }

    /// One sample: its uptime and the vertical acceleration (up positive, gravity removed), g.
    public mutating func add(uptime: Double, vertical: Double) {
        uptimes[next] = uptime
        values[next] = vertical
        next = (next + 1) % uptimes.count
        count = min(count + 1, uptimes.count)
    }

    /// Samples were lost: a step across the gap cannot be measured.
    public mutating func reset() {
        count = 0
    }

    /// The vertical excursion (m, peak to trough) of the trunk from contact `start` to contact
    /// `end`; nil when the samples held do not reach back to `start` or are too few.
    public func excursion(from start: Double, to end: Double) -> Double? {
        guard count > 0, end > start else { return nil }
        let oldest = (next - count + uptimes.count) % uptimes.count
        guard uptimes[oldest] <= start + 0.5 / rate else { return nil }
        var accelerations: [Double] = []
        accelerations.reserveCapacity(Int((end - start) * rate) + 2)
        for k in 0..<count {
            let i = (oldest + k) % uptimes.count
            if uptimes[i] >= start - 0.5 / rate, uptimes[i] <= end + 0.5 / rate { accelerations.append(values[i]) }
        }
        return Self.excursion(accelerations: accelerations, rate: rate)
    }

    /// The excursion (m) of the vertical accelerations of one step (g, at `rate`).
    static func excursion(accelerations: [Double], rate: Double) -> Double? {
        let n = accelerations.count
        guard n >= 4 else { return nil }
        let dt = 1 / rate
        let mean = accelerations.reduce(0, +) / Double(n)
        // Velocity with the mean acceleration removed (it ends where it began), then its mean
        // removed (the trunk ends as high as it began).
        var velocity = [Double](repeating: 0, count: n)
        var v = 0.0
        for i in 0..<n {
            v += (accelerations[i] - mean) * Self.standardGravity * dt
            velocity[i] = v
        }
        let meanVelocity = velocity.reduce(0, +) / Double(n)
        var position = [Double](repeating: 0, count: n)
        var p = 0.0
        for i in 0..<n {
            p += (velocity[i] - meanVelocity) * dt
            position[i] = p
        }
        // Any residue of the trend between the ends.
        let slope = (position[n - 1] - position[0]) / Double(n - 1)
        var low = Double.infinity, high = -Double.infinity
        for i in 0..<n {
            let x = position[i] - position[0] - slope * Double(i)
            low = min(low, x)
            high = max(high, x)
        }
        let h = high - low
        return h.isFinite ? h : nil
    }

    /// The corrected step length (m) for an excursion (m): `excursionFloor` taken off, then the
    /// pendulum and its correction.
    public func stepLength(excursion: Double) -> Double {
        let l = pendulumLength
        let h = max(0, excursion - Self.excursionFloor)
        return 2 * max(0, 2 * l * h - h * h).squareRoot() * Self.correction
    }
}
