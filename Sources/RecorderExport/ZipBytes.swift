import RecorderJSON

/// A zip header's bytes, little-endian as APPNOTE lays them out.
struct ZipBytes {
    private(set) var bytes: [UInt8] = []

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    mutating func bytes(_ more: [UInt8]) { bytes.append(contentsOf: more) }

    /// MS-DOS time then date of `seconds` since 1970 (UTC; two-second steps), held to the
    /// fields' range, 1980 to 2107.
    mutating func dosTime(_ seconds: Int64) {
        let lowest: Int64 = 315_532_800  // 1980-01-01T00:00:00Z
        let highest: Int64 = 4_354_819_198  // 2107-12-31T23:59:58Z
        let clamped = min(max(seconds, lowest), highest)
        let days = clamped / 86_400
        let second = clamped % 86_400
        let (year, month, day) = ISO8601Timestamp.civilFromDays(Int(days))
        u16(UInt16(second / 3600) << 11 | UInt16(second % 3600 / 60) << 5 | UInt16(second % 60 / 2))
        u16(UInt16(year - 1980) << 9 | UInt16(month) << 5 | UInt16(day))
    }

    /// The extended timestamp field (0x5455) with the modification time alone, whole seconds
    /// since 1970 (held to its signed 32 bits).
    mutating func extendedTimestamp(_ seconds: Int64) {
        u16(0x5455)
        u16(5)
        bytes.append(1)
        u32(UInt32(bitPattern: Int32(clamping: seconds)))
    }
}
