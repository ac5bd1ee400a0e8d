/// Little-endian serialisation of MCAP's field types into a byte buffer.
struct MCAPBuffer {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// A String: uint32 length and UTF-8 bytes.
    mutating func string(_ s: String) {
        u32(UInt32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    /// uint32 length-prefixed bytes.
    mutating func bytes32(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes.append(contentsOf: b)
    }

    /// A Map<string, string>: uint32 byte length, then the pairs (sorted by key: deterministic).
    mutating func stringMap(_ map: [String: String]) {
        pairs(map) { $0.string($1); $0.string($2) }
    }

    /// A Map<uint16, uint64>: uint32 byte length, then the pairs in key order.
    mutating func u16u64Map(_ map: [UInt16: UInt64]) {
        pairs(map) { $0.u16($1); $0.u64($2) }
    }

    /// A map's uint32 byte length, then its pairs in key order, each written by `pair`.
    private mutating func pairs<Key: Comparable, Value>(_ map: [Key: Value], _ pair: (inout MCAPBuffer, Key, Value) -> Void) {
        var inner = MCAPBuffer()
        for (k, v) in map.sorted(by: { $0.key < $1.key }) { pair(&inner, k, v) }
        bytes32(inner.bytes)
    }

    /// A whole record: opcode, uint64 content length, content.
    static func record(_ opcode: UInt8, _ content: (inout MCAPBuffer) -> Void) -> [UInt8] {
        var body = MCAPBuffer()
        content(&body)
        var r = MCAPBuffer()
        r.u8(opcode)
        r.u64(UInt64(body.bytes.count))
        r.bytes.append(contentsOf: body.bytes)
        return r.bytes
    }
}
