import RecorderRuntime

/// recorderctl's own writes to standard output and error, unbuffered (`write(2)`: a line
/// written is out, in the order of the calls, whatever `print` holds back).
enum StandardStreams {
    static func output(_ text: String) { write(1, Array(text.utf8)) }
    static func output(_ bytes: [UInt8]) { write(1, bytes) }
    static func error(_ text: String) { write(2, Array(text.utf8)) }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { POSIXFile.writeAll(fd, $0) }
    }
}

extension String {
    /// The text in exactly `width` characters: cut, or padded with spaces (Foundation's
    /// `padding(toLength:withPad:startingAt:)` with a space).
    func fitted(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
