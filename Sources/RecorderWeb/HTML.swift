import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// What the templates show, made for people: escaping (`HTML.escape`, every template value), numbers, sizes, dates.
enum HTML {
    /// `text` with `& < > " '` escaped, for element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters never reach a page (a file name or an error message could carry one).
                if ControlCharacters.isControl(ch) && ch != "\n" && ch != "\t" { out += "\u{FFFD}" } else { out.unicodeScalars.append(ch) }
            }
        }
        return out
    }

    /// A number for people: at most `digits` decimals, no trailing zeros.
    /// A length of time: `12.5 s`.
    static func seconds(_ value: Double) -> String {
        number(value, digits: 1) + " s"
    }

    static func number(_ value: Double, digits: Int = 2) -> String {
        guard value.isFinite else { return "–" }
        let text = CFormat.string("%.\(digits)f", value)
        guard text.contains(".") else { return text }
        var trimmed = text
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed
    }

    /// A byte count for people (KiB, MiB, GiB).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(number(value, digits: 1)) \(units[unit])"
    }

    /// A date as `2026-11-23 16:10:41 UTC`.
    static func date(_ date: Date) -> String {
        // The C library's calendar (FoundationEssentials resolves no named time zone without ICU).
        var t = time_t(Int(saturating: floor(date.timeIntervalSince1970)))
        var c = tm()
        gmtime_r(&t, &c)
        return CFormat.string("%04d-%02d-%02d %02d:%02d:%02d UTC", c.tm_year + 1900, c.tm_mon + 1, c.tm_mday, c.tm_hour, c.tm_min, c.tm_sec)
    }
}
