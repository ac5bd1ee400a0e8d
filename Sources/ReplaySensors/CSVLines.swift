/// The non-blank lines of a text in memory, with their 1-based line numbers: LF or CRLF line
/// ends (a lone CR ends a line too), no copying.
struct CSVLines {
    struct Line {
        var text: UnsafeBufferPointer<UInt8>
        var number: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0
    var number = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> Line? {
        while offset < bytes.count {
            let start = offset
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r") { end += 1 }
            offset = end
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "\r") { offset += 1 }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "\n") { offset += 1 }
            number += 1
            if end > start { return Line(text: UnsafeBufferPointer(rebasing: bytes[start..<end]), number: number) }
        }
        return nil
    }
}
