extension StringProtocol {
    /// The text without the white space (spaces, tabs, line breaks: `Character.isWhitespace`) at
    /// either end: Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` without
    /// Foundation.
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
