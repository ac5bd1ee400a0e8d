import Foundation

/// ISO-8601 dates with milliseconds and a UTC offset (`2026-11-22T10:15:30.123+00:00`).
public enum ISO8601Timestamp {
    /// Formats `date` in UTC with milliseconds and offset `+00:00`.
    public static func string(from date: Date) -> String {
        var t = time_t(Int(saturating: floor(date.timeIntervalSince1970)))
        var ms = Int(saturating: ((date.timeIntervalSince1970 - Double(t)) * 1000).rounded())
        if ms >= 1000 { ms -= 1000; t += 1 }
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let msText = String(repeating: "0", count: ms < 10 ? 2 : ms < 100 ? 1 : 0) + String(ms)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(msText)+00:00"
    }

    /// The compact UTC form used in run directory names: `yyyyMMdd'T'HHmmss'Z'`.
    public static func compactString(from date: Date) -> String {
        let full = string(from: date)
        let chars = Array(full)
        let s = String(chars[0..<4]) + String(chars[5..<7]) + String(chars[8..<10]) + "T"
            + String(chars[11..<13]) + String(chars[14..<16]) + String(chars[17..<19]) + "Z"
        return s
    }

    /// Parses the forms this project writes, and ISO-8601 with or without fractional seconds.
    public static func date(from string: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = withFraction.date(from: string) { return d }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: string)
    }
}
