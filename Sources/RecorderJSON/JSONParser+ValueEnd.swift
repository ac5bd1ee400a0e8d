extension JSONParser {
    /// Where the JSON value that starts at `start` ends (the index after it), found without
    /// building or checking it: strings (with their escapes) and the nesting of objects and
    /// arrays are followed, nothing else. Nil when `bytes` end first. For splitting a text of
    /// values whose reader checks each one itself (a `stream.records` notification's records).
    public static func valueEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        var depth = 0
        var inString = false
        while i < bytes.count {
            let byte = bytes[i]
            i += 1
            if inString {
                if byte == UInt8(ascii: "\\") {
                    i += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return i }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 { return depth == 0 ? i : nil }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                if depth == 0 { return i - 1 }
            default: break
            }
        }
        return depth == 0 && !inString && i > start ? i : nil
    }
}
