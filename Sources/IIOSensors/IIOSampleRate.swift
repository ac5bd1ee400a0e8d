import FoundationEssentials
import Glibc

/// Sampling rates as IIO writes them in `sampling_frequency_available`: a list (`12.5 26 52`) or
/// a range (`[min step max]`).
public enum IIOSampleRate {
    /// The rates listed; a range gives its min, max and (up to 1000) steps between.
    public static func parseAvailable(_ text: String) -> [Double] {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
            let parts = trimmed.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            guard parts.count == 3, parts[1] > 0, parts[2] >= parts[0] else { return parts.filter { $0 > 0 } }
            let count = min(1000, Int(saturating: ((parts[2] - parts[0]) / parts[1]).rounded(.down)))
            return (0...count).map { parts[0] + Double($0) * parts[1] }.filter { $0 > 0 }
        }
        return trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }.filter { $0 > 0 }
    }

    /// The available rate nearest to `requested` (the lower one on a tie); `requested` itself
    /// when nothing is listed.
    public static func nearest(to requested: Double, in available: [Double]) -> Double {
        available.min { a, b in
            let da = abs(a - requested), db = abs(b - requested)
            return da == db ? a < b : da < db
        } ?? requested
    }

    /// The rate a polled device runs at: the highest it offers (`requested` when nothing is
    /// listed), whatever the polling rate. A read returns the device's newest conversion, so at
    /// its highest rate a value is at most one short conversion old when read (its timestamp, the
    /// read's, is then exact to that) and no conversion is read twice however the two clocks
    /// drift; and drivers that convert on demand wait for it (st_lsm6dsx waits three to four
    /// output periods per channel read), which at a low rate would cost more than the period.
    public static func forPolling(_ requested: Double, in available: [Double]) -> Double {
        available.max() ?? requested
    }

    /// How a rate is written to `sampling_frequency`: integers without a fraction.
    public static func attributeValue(_ rate: Double) -> String {
        rate == rate.rounded() && abs(rate) < 1e15 ? String(Int64(rate)) : String(rate)
    }
}
