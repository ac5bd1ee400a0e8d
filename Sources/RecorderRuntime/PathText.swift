/// A file path's parts as text, as Foundation's `NSString` path methods give them (trailing
/// slashes ignored, `/` its own parent), without Foundation.
public enum PathText {
    /// The path without its last component: `/a/b` and `/a/b/` → `/a`, `/a` → `/`, `b` → ``.
    public static func parent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path.utf8[...])
        guard !trimmed.isEmpty else { return path.isEmpty ? "" : "/" }
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        let parent = withoutTrailingSlashes(trimmed[..<slash])
        return parent.isEmpty ? "/" : String(Substring(parent))
    }

    /// The path's last component: `/a/b` and `/a/b/` → `b`, `/` → `/`, `` → ``.
    public static func lastComponent(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path.utf8[...])
        guard !trimmed.isEmpty else { return path.isEmpty ? "" : "/" }
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return String(Substring(trimmed)) }
        return String(Substring(trimmed[trimmed.index(after: slash)...]))
    }

    /// An absolute path with its `.` and `..` components and repeated slashes taken out, by text
    /// alone (symbolic links not followed): `/a/./b//../c` → `/a/c`. A relative path is returned
    /// as it is.
    public static func standardized(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func withoutTrailingSlashes(_ text: Substring.UTF8View) -> Substring.UTF8View {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)] == UInt8(ascii: "/") { end = text.index(before: end) }
        return text[..<end]
    }
}
