import CLibIIO

/// An IIO channel's storage format (`le:s12/16>>4`), decoded to a host integer in Swift rather
/// than by one `iio_channel_convert` call per value: the same steps (byte order, right shift, then
/// sign extension or masking from the valid bits, unless the format is fully defined), the result
/// read as a `length`-bit signed or unsigned integer. Tested against `iio_channel_convert` on
/// every format libiio parses.
struct IIOSampleFormat: Sendable, Equatable {
    /// Bytes per value: 1, 2, 4 or 8.
    let bytes: Int
    /// The value is stored in the other byte order than the host's.
    let swapsBytes: Bool
    let shift: UInt64
    /// Valid bits (≤ `bytes × 8`).
    let bits: UInt64
    let isSigned: Bool
    /// The stored value needs no sign extension or masking.
    let isFullyDefined: Bool

    /// Nil for a format this does not decode (a length other than 8, 16, 32, 64 bits, repeated
    /// values, valid bits and shift beyond the length): such a channel goes through libiio.
    init?(_ format: iio_data_format) {
        guard [8, 16, 32, 64].contains(format.length), format.repeat <= 1,
              format.bits >= 1, format.bits <= format.length, format.shift < format.length else { return nil }
        bytes = Int(format.length / 8)
        swapsBytes = format.is_be != (UInt16(1).bigEndian == 1)
        shift = UInt64(format.shift)
        bits = UInt64(format.bits)
        isSigned = format.is_signed
        isFullyDefined = format.is_fully_defined
    }

    /// The value is a host-order signed 16-bit integer as stored (`le:s16/16>>0` on a little-endian
    /// host, the common IMU format): `value(at:)` is then a plain load.
    var isHostInt16: Bool { bytes == 2 && !swapsBytes && shift == 0 && isSigned && (isFullyDefined || bits == 16) }

    /// The value stored at `source` (unaligned).
    @inline(__always)
    func value(at source: UnsafeRawPointer) -> Int64 {
        var v: UInt64
        switch bytes {
        case 1: v = UInt64(source.load(as: UInt8.self))
        case 2:
            let x = source.loadUnaligned(as: UInt16.self)
            v = UInt64(swapsBytes ? x.byteSwapped : x)
        case 4:
            let x = source.loadUnaligned(as: UInt32.self)
            v = UInt64(swapsBytes ? x.byteSwapped : x)
        default:
            let x = source.loadUnaligned(as: UInt64.self)
            v = swapsBytes ? x.byteSwapped : x
        }
        v >>= shift
        let width = UInt64(bytes * 8)
        if !isFullyDefined, bits < width {
            if isSigned {
                let unused = 64 - bits
                v = UInt64(bitPattern: Int64(bitPattern: v << unused) >> unused)
            } else {
                v &= (1 << bits) - 1
            }
        }
        return Self.narrow(Int64(bitPattern: v), bits: bytes * 8, signed: isSigned)
    }

    /// `value` read as a `bits`-bit signed or unsigned integer (how libiio leaves a converted
    /// value in `bits / 8` bytes); other widths unchanged.
    @inline(__always)
    static func narrow(_ value: Int64, bits: Int, signed: Bool) -> Int64 {
        switch (bits, signed) {
        case (8, true): return Int64(Int8(truncatingIfNeeded: value))
        case (16, true): return Int64(Int16(truncatingIfNeeded: value))
        case (32, true): return Int64(Int32(truncatingIfNeeded: value))
        case (8, false): return Int64(UInt8(truncatingIfNeeded: value))
        case (16, false): return Int64(UInt16(truncatingIfNeeded: value))
        case (32, false): return Int64(UInt32(truncatingIfNeeded: value))
        default: return value
        }
    }
}
