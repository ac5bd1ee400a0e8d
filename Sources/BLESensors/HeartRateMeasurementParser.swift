import RecorderModel

/// Reads a Heart Rate Measurement notification (GATT characteristic 0x2A37, Bluetooth SIG's
/// Heart Rate Service 1.0, section 3.1) exactly as the specification lays it out:
///
/// | byte(s) | field | present when |
/// | --- | --- | --- |
/// | 0 | flags: bit 0 rate format (0 UINT8, 1 UINT16), bits 1–2 sensor contact (2 not detected, 3 detected, 0–1 not supported), bit 3 energy expended, bit 4 RR intervals, bits 5–7 reserved | always |
/// | 1 or 1–2 | heart rate, count/min, little-endian | always |
/// | next 2 | energy expended, kJ, UINT16 | bit 3 |
/// | the rest, 2 each | RR intervals, 1/1024 s, UINT16 | bit 4 (one or more) |
///
/// Reserved flag bits are ignored, as the specification asks of receivers, and so are bytes past
/// the fields the flags announce when no RR intervals are announced (a later revision's fields).
/// A notification whose flags promise a field that is absent, or whose RR intervals do not come
/// in whole pairs of bytes, is refused with the reason; so is a rate above `maximumRate`.
public enum HeartRateMeasurementParser {
    /// The highest rate taken as a measurement (count/min); a UINT16 allows 65,535.
    public static let maximumRate = 300

    /// The measurement in `bytes`, received at `uptime`.
    public static func parse(_ bytes: [UInt8], uptime: Double) throws(BLEError) -> HeartRateMeasurement {
        guard let flags = bytes.first else { throw BLEError("empty Heart Rate Measurement") }
        var at = 1
        func uint16(_ field: String) throws(BLEError) -> Int {
            guard at + 2 <= bytes.count else {
                throw BLEError("short Heart Rate Measurement: flags 0x\(hex(flags)) announce \(field) at byte \(at), \(bytes.count) byte(s) in all")
            }
            defer { at += 2 }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        let rate: Int
        if flags & 0x01 != 0 {
            rate = try uint16("a 16-bit rate")
        } else {
            guard bytes.count >= 2 else { throw BLEError("short Heart Rate Measurement: no rate after the flags") }
            rate = Int(bytes[1])
            at = 2
        }
        guard rate <= maximumRate else { throw BLEError("implausible heart rate \(rate) count/min (at most \(maximumRate))") }
        let contact: Bool? = switch (flags >> 1) & 0x03 {
        case 0x02: false
        case 0x03: true
        default: nil
        }
        let energy = flags & 0x08 != 0 ? try uint16("energy expended") : nil
        var intervals: [Double] = []
        if flags & 0x10 != 0 {
            let rest = bytes.count - at
            guard rest >= 2, rest % 2 == 0 else {
                throw BLEError("malformed Heart Rate Measurement: flags 0x\(hex(flags)) announce RR intervals, \(rest) byte(s) follow (pairs expected)")
            }
            intervals.reserveCapacity(rest / 2)
            while at < bytes.count { intervals.append(Double(try uint16("an RR interval")) / 1024) }
        }
        return HeartRateMeasurement(uptime: uptime, heartRate: rate, contact: contact, energyExpended: energy, rrIntervals: intervals)
    }

    /// Four hexadecimal digits, upper case (`2A37`).
    static func hex4(_ value: UInt16) -> String {
        let digits = Array("0123456789ABCDEF")
        return String((0..<4).map { digits[Int(value >> (12 - 4 * $0)) & 0xF] })
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
