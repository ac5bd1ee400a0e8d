import FoundationEssentials
import Glibc
import RecorderModel

/// Turns from the yaw rate of a trunk-worn gyroscope (the rate about the vertical, which fused
/// gravity gives), after El-Gohary et al. ("Continuous monitoring of turning in patients with
/// movement disability", Sensors 14(1), 2014): the rate low-passed (1.5 Hz); a turn is a stretch
/// where its magnitude exceeds `peakRate` somewhere, bounded where it falls below `edgeRate`,
/// that turns through at least `minimumAngle` in `shortest`…`longest` seconds.
///
/// Pure and streaming: feed samples in time order; each call returns the turn it completed, if any.
public struct TurnDetector: Sendable {
    public var edgeRate = 5.0
    public var peakRate = 15.0
    public var minimumAngle = 45.0
    public var shortest = 0.5
    public var longest = 10.0

    private var filter: Biquad
    private var lastUptime: Double?
    private var current: (start: Double, angle: Double, peak: Double, sign: Double)?

    /// `rate`: samples per second.
    public init(rate: Double) {
        filter = Biquad(lowPass: 1.5, rate: rate)
    }

    /// One yaw-rate sample (radians per second, counter-clockwise seen from above positive).
    public mutating func add(uptime: Double, yawRate: Double) -> Turn? {
        let degrees = filter.next(yawRate * 180 / Double.pi)
        defer { lastUptime = uptime }
        let dt = lastUptime.map { uptime - $0 } ?? 0
        if var turn = current {
            if abs(degrees) >= edgeRate, (degrees > 0 ? 1.0 : -1.0) == turn.sign {
                turn.angle += degrees * dt
                turn.peak = max(turn.peak, abs(degrees))
                current = turn
                return nil
            }
            current = nil
            let duration = uptime - turn.start
            guard turn.peak >= peakRate, abs(turn.angle) >= minimumAngle, duration >= shortest, duration <= longest else { return nil }
            return Turn(start: turn.start, end: uptime, angle: turn.angle, peakRate: turn.peak)
        }
        if abs(degrees) >= edgeRate { current = (uptime, degrees * dt, abs(degrees), degrees > 0 ? 1 : -1) }
        return nil
    }
}
