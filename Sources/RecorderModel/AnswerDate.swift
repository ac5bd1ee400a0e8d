import FoundationEssentials
import Glibc
import RecorderJSON

/// A `date` answer: a calendar date (`2026-11-23`, FHIR `valueDate`) or an ISO-8601 date and time
/// with a UTC offset (`2026-11-23T09:30:00+01:00`, FHIR `valueDateTime`).
public struct AnswerDate: Sendable, Equatable {
    public let text: String
    /// True for a date and time, false for a calendar date.
    public let hasTime: Bool

    /// Parses `text`; nil unless it is one of the two forms and a real date (no 2026-02-30).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        if bytes.count == 10 {
            guard Self.isCalendarDate(bytes[...]) else { return nil }
            hasTime = false
        } else {
            guard bytes.count > 10, bytes[10] == UInt8(ascii: "T"), bytes.count <= 40, Self.isCalendarDate(bytes[0..<10]),
                  ISO8601Timestamp.date(from: text) != nil else { return nil }
            hasTime = true
        }
        self.text = text
    }

    /// `yyyy-MM-dd` naming a day that exists (years 0001…9999).
    static func isCalendarDate(_ b: ArraySlice<UInt8>) -> Bool {
        let s = Array(b)
        guard s.count == 10, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-") else { return false }
        func number(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(s[i]) else { return nil }
                v = v * 10 + Int(s[i] - UInt8(ascii: "0"))
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              year >= 1, (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }
}
