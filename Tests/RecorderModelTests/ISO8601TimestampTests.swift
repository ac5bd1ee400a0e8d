import Foundation
@testable import RecorderModel
import RecorderTestSupport
import Testing
import RecorderJSON

/// The hand-written ISO-8601 reader against Foundation's `ISO8601DateFormatter` (ICU): the same
/// `Date`, bit for bit, for every form recorderd writes and for offsets, leap days and the
/// calendar's edges; what the strict reader does not take parses as ICU did, to the microsecond.
@Suite struct ISO8601TimestampTests {
    static func formatter(fraction: Bool) -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = fraction ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return f
    }

    /// The digit-by-digit writer against the C library's `gmtime_r`, over the years it covers,
    /// its edges and the millisecond that rounds up into the next second.
    @Test func writtenAsTheCLibraryWritesIt() {
        var generator = SplitMix(seed: 1008)
        var dates = [-30_610_224_000, -30_610_224_000.0004, -1, -0.0004, 0, 0.9996, 1_795_000_000.125, 951_782_400, 4_107_542_399.9995,
                     253_402_300_798.999, 253_402_300_799, 253_402_300_800, -30_610_224_001, -62_135_596_800, 1e12].map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<20_000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -30_610_224_000..<253_402_300_800, using: &generator))) }
        for date in dates {
            #expect(ISO8601Timestamp.string(from: date) == ISO8601Timestamp.gmtimeString(from: date), "\(date.timeIntervalSince1970)")
            var quoted: [UInt8] = []
            ISO8601Timestamp.append(date, quoted: true, to: &quoted)
            #expect(quoted == Array("\"\(ISO8601Timestamp.gmtimeString(from: date))\"".utf8))
        }
    }

    @Test func strictReadingIsWhatFoundationReads() {
        let fraction = Self.formatter(fraction: true), plain = Self.formatter(fraction: false)
        var generator = SplitMix(seed: 1009)
        var checked = 0, mismatches: [String] = []
        // Dates recorderd writes (milliseconds, +00:00), over 1900–2200, and the same instants
        // with other fraction lengths and offsets.
        for _ in 0..<3000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator))
            let date = Date(timeIntervalSince1970: seconds + Double(Int.random(in: 0..<1000, using: &generator)) / 1000)
            var texts = [ISO8601Timestamp.string(from: date)]
            let base = String(texts[0].prefix(19))
            let offset = ["Z", "+00:00", "+05:30", "-08:00", "+14:00", "-12:45"].randomElement(using: &generator)!
            texts.append(base + offset)
            texts.append(base + "." + String(Int.random(in: 0...9, using: &generator)) + offset)
            texts.append(base + "." + String(format: "%02d", Int.random(in: 0...99, using: &generator)) + offset)
            for text in texts {
                let expected = fraction.date(from: text) ?? plain.date(from: text)
                let strict = ISO8601Timestamp.strictDate(text)
                checked += 1
                if strict == nil || strict != expected {
                    mismatches.append("\(text): \(String(describing: strict?.timeIntervalSinceReferenceDate)) vs \(String(describing: expected?.timeIntervalSinceReferenceDate))")
                }
            }
        }
        for text in ["2024-02-29T23:59:59.999Z", "2000-02-29T00:00:00Z", "1970-01-01T00:00:00.000+00:00", "1969-12-31T23:59:59.999Z",
                     "1583-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2026-11-24T05:06:30.5-00:30"] {
            let expected = fraction.date(from: text) ?? plain.date(from: text)
            #expect(ISO8601Timestamp.strictDate(text) == expected, "\(text)")
            checked += 1
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(checked): \(mismatches.prefix(5))")
    }

    @Test func whatTheStrictReaderRefusesIsLeftToFoundation() {
        // Out of range or outside the strict form: the strict reader says nil...
        for text in ["2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
                     "2024-01-01T00:00:60Z", "2024-01-01T00:00:00", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234Z",
                     "2024-01-01 00:00:00Z", "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00+24:00", "0000-01-01T00:00:00Z",
                     "2024-01-01T00:00:00Zjunk", "", "1582-10-15T00:00:00Z", "２０２４-01-01T00:00:00Z"] {
            #expect(ISO8601Timestamp.strictDate(text) == nil, "\(text)")
        }
        // ...and `date(from:)` reads them with FoundationEssentials' ISO-8601 style (no ICU):
        // Foundation's `ISO8601DateFormatter` gave the same instants, but cut to the millisecond.
        let fraction = Self.formatter(fraction: true), plain = Self.formatter(fraction: false)
        let expected: [(String, Double?)] = [("2024-01-01T00:00:00.123456Z", 1_704_067_200.123456), ("2024-01-01T00:00:00.1234Z", 1_704_067_200.1234),
                                             ("2024-01-01T00:00:00+0100", 1_704_063_600), ("2023-02-29T00:00:00Z", 1_677_628_800),
                                             ("not a date", nil), ("2024-01-01T00:00:00", nil)]
        for (text, seconds) in expected {
            let date = ISO8601Timestamp.date(from: text)
            #expect(date.map { abs($0.timeIntervalSince1970 - seconds!) < 1e-6 } ?? (seconds == nil), "\(text): \(String(describing: date))")
            let icu = fraction.date(from: text) ?? plain.date(from: text)
            #expect(icu.map { abs($0.timeIntervalSince1970 - seconds!) < 1e-3 } ?? (seconds == nil), "\(text): ICU \(String(describing: icu))")
        }
    }
}
