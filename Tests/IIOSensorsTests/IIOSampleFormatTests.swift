import CLibIIO
import Foundation
@testable import IIOSensors
import RecorderTestSupport
import Testing

/// recorderd decodes scan values itself (`IIOSampleFormat`); the truth is libiio's own
/// `iio_channel_convert` on channels whose formats libiio parsed (an XML context: no device, no
/// root needed), fed the same bytes.
struct IIOSampleFormatTests {
    /// Storage formats as drivers write them in `scan_elements/*_type`: every length, both byte
    /// orders, signed and unsigned, partial bits with and without shifts, fully defined (`S`/`U`).
    static let formats = [
        "le:s16/16>>0", "be:s16/16>>0", "le:u16/16>>0", "be:u16/16>>0",
        "le:s12/16>>4", "be:s12/16>>4", "le:u12/16>>4", "le:s12/16>>0", "be:u10/16>>6", "le:s14/16>>2",
        "le:s8/8>>0", "le:u8/8>>0", "le:s6/8>>2", "be:s8/8>>0",
        "le:s32/32>>0", "be:s32/32>>0", "le:u32/32>>0", "le:s24/32>>8", "be:s24/32>>0", "le:s20/32>>4", "le:u18/32>>14",
        "le:s64/64>>0", "be:s64/64>>0", "le:u64/64>>0", "le:s48/64>>16",
        "le:S16/16>>0", "be:U16/16>>0", "le:S12/16>>4", "le:S32/32>>0",
    ]

    static func xml(_ formats: [String]) -> String {
        var channels = ""
        for (i, format) in formats.enumerated() {
            let escaped = format.replacingOccurrences(of: ">", with: "&gt;")
            channels += "<channel id=\"voltage\(i)\" type=\"input\"><scan-element index=\"\(i)\" format=\"\(escaped)\" /></channel>"
        }
        return "<?xml version=\"1.0\" encoding=\"utf-8\"?><context name=\"xml\" version-major=\"0\" version-minor=\"24\" version-git=\"test\">"
            + "<device id=\"iio:device0\" name=\"formats\">\(channels)</device></context>"
    }

    @Test func decodesEveryFormatAsLibiioDoes() throws {
        let text = Self.xml(Self.formats)
        let context = try #require(text.withCString { iio_create_xml_context_mem($0, text.utf8.count) }, "libiio parses the context")
        defer { iio_context_destroy(context) }
        let device = try #require(iio_context_get_device(context, 0))
        #expect(iio_device_get_channels_count(device) == UInt32(Self.formats.count))
        var generator = SplitMix(seed: 0x5eed)
        var checked = 0
        var plain: [String] = []
        for i in 0..<Int(iio_device_get_channels_count(device)) {
            let channel = try #require(iio_device_get_channel(device, UInt32(i)))
            let format = iio_channel_get_data_format(channel).pointee
            let id = String(cString: iio_channel_get_id(channel))
            let decoder = try #require(IIOSampleFormat(format), "\(id): a format recorderd decodes")
            let wrapped = IIOChannel(pointer: channel)
            if decoder.isHostInt16 { plain.append(Self.formats[i]) }
            // Edge patterns, then random ones: every bit of the storage exercised.
            var patterns: [UInt64] = [0, .max, 1, 1 << 63, 0x8000, 0x7fff, 0x0800, 0x07ff, 0x80, 0x7f, 0xfff0, 0x8000_0000, 0x7fff_ffff]
            for _ in 0..<5_000 { patterns.append(generator.next()) }
            for pattern in patterns {
                withUnsafeBytes(of: pattern) { bytes in
                    let ours = decoder.value(at: bytes.baseAddress!)
                    let libiio = wrapped.convert(bytes.baseAddress!, format: format)
                    if ours != libiio {
                        Issue.record("\(id) (\(Self.formats[i])): bytes \(String(pattern, radix: 16)) → \(ours), libiio \(libiio)")
                    }
                    // The decoder's plain-load path (IIOStream's lanes) for host-order s16.
                    if decoder.isHostInt16, Int64(bytes.loadUnaligned(as: Int16.self)) != libiio {
                        Issue.record("\(id) (\(Self.formats[i])): a plain s16 load of \(String(pattern, radix: 16)) is not libiio's \(libiio)")
                    }
                }
                checked += 1
            }
        }
        #expect(checked == Self.formats.count * 5_013)
        // Read as plain s16 loads: the little-endian (host order here) s16 formats, no other.
        #expect(plain == ["le:s16/16>>0", "le:S16/16>>0"])
    }

    @Test func unalignedValuesAreRead() throws {
        let text = Self.xml(["be:s12/16>>4"])
        let context = try #require(text.withCString { iio_create_xml_context_mem($0, text.utf8.count) })
        defer { iio_context_destroy(context) }
        let channel = try #require(iio_device_get_channel(iio_context_get_device(context, 0), 0))
        let decoder = try #require(IIOSampleFormat(iio_channel_get_data_format(channel).pointee))
        // 0x80 0x10 big-endian = 0x8010; >> 4 = 0x801; 12-bit signed: −2047.
        let bytes: [UInt8] = [0xff, 0x80, 0x10]
        bytes.withUnsafeBytes { #expect(decoder.value(at: $0.baseAddress! + 1) == -2047) }
    }

    @Test func formatsItDoesNotDecodeAreLeftToLibiio() {
        var format = iio_data_format()
        format.length = 24
        format.bits = 24
        #expect(IIOSampleFormat(format) == nil, "24-bit storage")
        format.length = 16
        format.bits = 16
        format.repeat = 2
        #expect(IIOSampleFormat(format) == nil, "repeated values")
        format.repeat = 1
        format.bits = 17
        #expect(IIOSampleFormat(format) == nil, "more valid bits than stored")
    }
}
