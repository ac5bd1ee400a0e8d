import Foundation

/// One buffered channel of a fake IIO device, as its `scan_elements/in_<id>_type` describes it.
public struct FakeIIOChannel: Sendable, Equatable {
    public var id: String
    public var index: Int
    public var bigEndian: Bool
    public var signed: Bool
    /// Valid bits.
    public var bits: Int
    /// Storage bits (8, 16, 32, 64).
    public var storage: Int
    public var shift: Int

    public init(id: String, index: Int, bigEndian: Bool = false, signed: Bool = true, bits: Int = 16, storage: Int = 16, shift: Int = 0) {
        self.id = id
        self.index = index
        self.bigEndian = bigEndian
        self.signed = signed
        self.bits = bits
        self.storage = storage
        self.shift = shift
    }

    /// The `type` file's text, e.g. `le:s16/16>>0`.
    public var typeText: String { "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(bits)/\(storage)>>\(shift)" }

    /// Parses a `type` file's text.
    public static func parse(id: String, index: Int, type text: String) -> FakeIIOChannel? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = t.split(separator: ":")
        guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
        var rest = Substring(parts[1])
        guard let sign = rest.first, sign == "s" || sign == "u" else { return nil }
        rest = rest.dropFirst()
        let pieces = rest.split(separator: "/")
        guard pieces.count == 2, let bits = Int(pieces[0]) else { return nil }
        let tail = pieces[1].components(separatedBy: ">>")
        guard tail.count == 2, let storage = Int(tail[0]), let shift = Int(tail[1]) else { return nil }
        return FakeIIOChannel(id: id, index: index, bigEndian: parts[0] == "be", signed: sign == "s", bits: bits, storage: storage, shift: shift)
    }

    /// Motion channels and the timestamp of a typical IMU (lsm6dsx): 6 × s16 then s64.
    public static func imu(accel: Bool = true, gyro: Bool = true, magn: Bool = false, timestamp: Bool = true) -> [FakeIIOChannel] {
        var ids: [String] = []
        if accel { ids += ["accel_x", "accel_y", "accel_z"] }
        if gyro { ids += ["anglvel_x", "anglvel_y", "anglvel_z"] }
        if magn { ids += ["magn_x", "magn_y", "magn_z"] }
        var channels = ids.enumerated().map { FakeIIOChannel(id: $1, index: $0) }
        if timestamp { channels.append(FakeIIOChannel(id: "timestamp", index: ids.count, bits: 64, storage: 64)) }
        return channels
    }
}

/// The kernel's scan layout for enabled channels: in index order, each element aligned to its own
/// size, the scan padded to its largest element.
public struct FakeIIOScanLayout: Sendable {
    public let channels: [FakeIIOChannel]
    /// Byte offset of each channel in a scan.
    public let offsets: [Int]
    public let scanSize: Int

    public init(_ enabled: [FakeIIOChannel]) {
        channels = enabled.sorted { $0.index < $1.index }
        var offset = 0
        var offsets: [Int] = []
        var largest = 1
        for c in channels {
            let size = c.storage / 8
            offset = (offset + size - 1) / size * size
            offsets.append(offset)
            offset += size
            largest = max(largest, size)
        }
        self.offsets = offsets
        scanSize = channels.isEmpty ? 0 : (offset + largest - 1) / largest * largest
    }

    /// Writes `raw` (already within the channel's bits) for channel `i` into `scan`.
    public func store(_ raw: Int64, channel i: Int, into scan: UnsafeMutableRawBufferPointer) {
        let c = channels[i]
        let size = c.storage / 8
        let mask: UInt64 = c.storage == 64 ? ~0 : (1 << UInt64(c.storage)) - 1
        let word = (UInt64(bitPattern: raw) << UInt64(c.shift)) & mask
        for b in 0..<size {
            let byte = UInt8(truncatingIfNeeded: word >> UInt64(8 * (c.bigEndian ? size - 1 - b : b)))
            scan[offsets[i] + b] = byte
        }
    }
}
