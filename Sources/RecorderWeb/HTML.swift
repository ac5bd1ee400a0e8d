import Foundation
import RecorderModel

/// Server-rendered HTML: escaping and the page layout every page shares.
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

    /// A whole page: the navigation, `body`, the shared style and script. `csrf` goes into a meta
    /// tag the script sends back with every POST.
    static func page(title: String, section: String, csrf: String, body: String) -> String {
        let nav = [("devices", "Devices"), ("tasks", "Tasks"), ("runs", "Runs")].map { id, label in
            "<a href=\"/\(id)\"\(id == section ? " class=\"here\"" : "")>\(label)</a>"
        }.joined()
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="\(escape(csrf))">
        <title>\(escape(title)) · recorderd</title>
        <link rel="stylesheet" href="/static/app.css">
        <script src="/static/app.js" defer></script>
        </head><body data-section="\(escape(section))">
        <header><span class="brand">recorderd</span><nav>\(nav)</nav></header>
        <main>
        \(body)
        </main></body></html>
        """
    }

    /// A page that only says what went wrong (never a stack trace).
    static func errorPage(_ error: WebError, csrf: String) -> String {
        page(title: "Error \(error.status.code)", section: "", csrf: csrf, body: """
        <h1>\(error.status.code) \(escape(error.status.reasonPhrase))</h1>
        <p class="error" id="error-message">\(escape(error.message))</p>
        <p><a href="/devices">Devices</a> · <a href="/tasks">Tasks</a> · <a href="/runs">Runs</a></p>
        """)
    }

    /// A number for people: at most `digits` decimals, no trailing zeros.
    static func number(_ value: Double, digits: Int = 2) -> String {
        guard value.isFinite else { return "–" }
        let text = String(format: "%.\(digits)f", value)
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
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
