import Foundation

/// The values a fake IIO device produces, shared by the generator and the tests that check
/// what recorderd recorded.
public enum FakeIIOPattern {
    /// The counter pattern: channel with scan index 0 counts scans; the others are a fixed
    /// function of the scan number and their index; wrapped into the channel's bits.
    public static func counter(scan: Int, channel: FakeIIOChannel) -> Int64 {
        let base = channel.index == 0 ? Int64(scan) : Int64(scan) &* Int64(2 * channel.index + 1) &* 37 &+ Int64(channel.index) &* 1111
        return wrap(base, channel)
    }

    /// `value` wrapped into the channel's valid bits (two's complement when signed).
    public static func wrap(_ value: Int64, _ channel: FakeIIOChannel) -> Int64 {
        guard channel.bits < 64 else { return value }
        let modulus = Int64(1) << Int64(channel.bits)
        var v = value % modulus
        if v < 0 { v += modulus }
        if channel.signed, v >= modulus / 2 { v -= modulus }
        return v
    }

    /// A measurement in SI units (m/s², rad/s, gauss) quantised as the device would report it:
    /// `round(value / scale)`, clamped to the channel's range.
    public static func quantise(_ value: Double, scale: Double, channel: FakeIIOChannel) -> Int64 {
        let maxValue = channel.signed ? Double((Int64(1) << Int64(channel.bits - 1)) - 1) : Double((Int64(1) << Int64(channel.bits)) - 1)
        let minValue = channel.signed ? -Double(Int64(1) << Int64(channel.bits - 1)) : 0
        return Int64(min(maxValue, max(minValue, (value / scale).rounded())))
    }

    /// The device timestamp (ns) of scan `scan` of a stream that started at `t0` (ns) at `rate` Hz.
    public static func timestamp(scan: Int, t0: Int64, rate: Double) -> Int64 {
        t0 + Int64((Double(scan) * 1e9 / rate).rounded())
    }

    /// One scan's measurements in the units IIO reports: m/s², rad/s and gauss.
    public struct Row: Sendable {
        public var acc: [Double]
        public var gyr: [Double]
        public var magn: [Double]?
    }

    /// The walking recordings' rows (acc in g, gyr in deg/s) in SI units: m/s² and rad/s.
    public static func walkRowsSI(csv path: String) throws -> [Row] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",").map { Double($0)! }
            return Row(acc: f[1...3].map { $0 * standardGravity }, gyr: f[4...6].map { $0 * Double.pi / 180 }, magn: nil)
        }
    }

    /// A trajectory's samples at `rate` Hz in IIO's units (g → m/s², µT → gauss).
    public static func rows(_ trajectory: RigidIMUTrajectory, rate: Double) -> [Row] {
        trajectory.samples(rate: rate).map { s in
            Row(acc: [s.accelerometer.x, s.accelerometer.y, s.accelerometer.z].map { $0 * standardGravity },
                gyr: [s.gyro.x, s.gyro.y, s.gyro.z], magn: [s.magnetometer.x, s.magnetometer.y, s.magnetometer.z].map { $0 / 100 })
        }
    }

    /// m/s² in one g, as IIO drivers and recorderd use it.
    public static let standardGravity = 9.80665
}
