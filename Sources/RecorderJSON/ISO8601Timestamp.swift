import FoundationEssentials
import Glibc
import RecorderRuntime

/// ISO-8601 dates with milliseconds and a UTC offset (`2026-11-22T10:15:30.123+00:00`).
public enum ISO8601Timestamp {
    /// Formats `date` in UTC with milliseconds and offset `+00:00`.
    public static func string(from date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string(from: date)`'s text, in quotes when `quoted` (as a JSON string), written
    /// digit by digit for the years 1000–9999 (every date a recording makes); other years go
    /// through `gmtime_r`.
    public static func append(_ date: Date, quoted: Bool = false, to bytes: inout [UInt8]) {
        let since1970 = date.timeIntervalSince1970
        // -30,610,224,000 is 1000-01-01 and 253,402,300,800 is 10000-01-01 (UTC); a second short
        // of the end, so that the milliseconds rounded up cannot carry into the year 10000.
        guard since1970 >= -30_610_224_000, since1970 < 253_402_300_799 else {
            let text = gmtimeString(from: date)
            if quoted { bytes.append(UInt8(ascii: "\"")) }
            bytes += text.utf8
            if quoted { bytes.append(UInt8(ascii: "\"")) }
            return
        }
        var t = Int(floor(since1970))
        var ms = Int(((since1970 - Double(t)) * 1000).rounded())
        if ms >= 1000 { ms -= 1000; t += 1 }
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secondOfDay = t - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func put(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(v / divisor))
                v %= divisor
                divisor /= 10
            }
        }
        if quoted { bytes.append(UInt8(ascii: "\"")) }
        put(year, 4)
        bytes.append(UInt8(ascii: "-"))
        put(month, 2)
        bytes.append(UInt8(ascii: "-"))
        put(day, 2)
        bytes.append(UInt8(ascii: "T"))
        put(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        put(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "."))
        put(ms, 3)
        bytes += "+00:00".utf8
        if quoted { bytes.append(UInt8(ascii: "\"")) }
    }

    /// The text through the C library (any year a `time_t` and `tm` hold).
    package static func gmtimeString(from date: Date) -> String {
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
    ///
    /// The internet form with 0–3 fraction digits and `Z` or a `±HH:MM` offset — every date
    /// recorderd writes — is read by hand (`strictDate`), to the same `Date` Foundation's
    /// `ISO8601DateFormatter` gives (ICU's millisecond arithmetic); anything else goes to
    /// FoundationEssentials' `Date.ISO8601FormatStyle` (no ICU: this module does not load it).
    /// An ICU formatter for every date made reading a manifest with a step history take
    /// milliseconds, and start-up reads every run's.
    public static func date(from string: String) -> Date? {
        if let date = strictDate(string) { return date }
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) { return d }
        return try? Date.ISO8601FormatStyle().parse(string)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.f{1,3}](Z|±HH:MM)` with every field in range (seconds 0–59, the day
    /// within its month, years 1583–9999 — the Gregorian calendar's, offsets under 24 h); nil for
    /// anything else.
    package static func strictDate(_ string: String) -> Date? {
        var text = string
        return text.withUTF8 { strictDate($0) }
    }

    static func strictDate(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        let n = b.count
        guard n >= 20, n <= 29 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for i in at..<at + count {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
              let day = digits(8, 2), b[10] == UInt8(ascii: "T"), let hour = digits(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = digits(14, 2), b[16] == UInt8(ascii: ":"), let second = digits(17, 2) else { return nil }
        // ICU's calendar is Julian before October 1582: earlier dates are left to it.
        guard year >= 1583, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var i = 19
        var milliseconds = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < n, b[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            let count = i - start
            guard count >= 1, count <= 3, let fraction = digits(start, count) else { return nil }
            milliseconds = fraction * [100, 10, 1][count - 1]
        }
        guard i < n else { return nil }
        var offset = 0
        if b[i] == UInt8(ascii: "Z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard i + 6 == n, let h = digits(i + 1, 2), b[i + 3] == UInt8(ascii: ":"), let m = digits(i + 4, 2), h < 24, m < 60 else { return nil }
            offset = (h * 60 + m) * 60 * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == n else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        // ICU's arithmetic: a whole number of milliseconds since 1970 (exact in a Double), then
        // seconds since 2001.
        let since1970 = Double(seconds * 1000 + milliseconds) / 1000
        return Date(timeIntervalSinceReferenceDate: since1970 - Date.timeIntervalBetween1970AndReferenceDate)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`);
    /// the zip archives' DOS dates too.
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
