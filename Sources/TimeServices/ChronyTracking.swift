import FoundationEssentials
import RecorderModel

/// `chronyc -c tracking` read: its one line of 14 comma-separated fields (reference ID, name,
/// stratum, reference time, system time, last offset, RMS offset, frequency, residual frequency,
/// skew, root delay, root dispersion, update interval, leap status). No I/O; tested alone.
public enum ChronyTracking {
    /// The fields a line has.
    static let fieldCount = 14
    /// The largest offset, delay or dispersion taken as a number of seconds (beyond: garbage).
    static let largestSeconds = 1e9

    /// The state `text` (chronyc's output) says, read at `checked`; throws with what is wrong in it.
    public static func parse(_ text: String, checked: Date) throws(TimeServiceError) -> ClockSynchronisation {
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        guard let line = lines.first, lines.count == 1 else {
            throw TimeServiceError("chronyc printed \(lines.count) lines, expected one: \(TimeServiceError.excerpt(text))")
        }
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == fieldCount else {
            throw TimeServiceError("chronyc printed \(fields.count) fields, expected \(fieldCount): \(TimeServiceError.excerpt(text))")
        }
        let referenceID = fields[0]
        guard referenceID.count == 8, UInt32(referenceID, radix: 16) != nil else {
            throw TimeServiceError("chronyc's reference ID \(TimeServiceError.excerpt(referenceID)) is not 8 hex digits")
        }
        guard let stratum = Int(fields[2]), (0...16).contains(stratum) else {
            throw TimeServiceError("chronyc's stratum \(TimeServiceError.excerpt(fields[2])) is not 0 to 16")
        }
        func seconds(_ index: Int, _ name: String, nonNegative: Bool = false) throws(TimeServiceError) -> Double {
            guard let value = Double(fields[index]), value.isFinite, abs(value) <= largestSeconds, !nonNegative || value >= 0 else {
                throw TimeServiceError("chronyc's \(name) \(TimeServiceError.excerpt(fields[index])) is not a number of seconds"
                                       + (nonNegative ? " of 0 or more" : ""))
            }
            return value
        }
        // chronyc's "System time" is the correction still to apply: positive when the clock is slow.
        let correction = try seconds(4, "system time")
        let rootDelay = try seconds(10, "root delay", nonNegative: true)
        let rootDispersion = try seconds(11, "root dispersion", nonNegative: true)
        let leap = fields[13]
        guard ["Normal", "Insert second", "Delete second", "Not synchronised"].contains(leap) else {
            throw TimeServiceError("chronyc's leap status \(TimeServiceError.excerpt(leap)) is none chrony prints")
        }
        let synchronised = leap != "Not synchronised" && (1...15).contains(stratum) && referenceID != "00000000"
        let name = fields[1]
        let reference: String? = synchronised ? (name.isEmpty ? Self.referenceName(referenceID) : String(name.prefix(255))) : nil
        if let reference, ControlCharacters.first(in: reference) != nil {
            throw TimeServiceError("chronyc's reference name has a control character")
        }
        return ClockSynchronisation(source: .chrony, synchronised: synchronised, offset: synchronised ? -correction : nil,
                                    estimatedError: synchronised ? abs(correction) + rootDispersion + rootDelay / 2 : nil,
                                    stratum: stratum, reference: reference, leapStatus: leap, checked: checked)
    }

    /// A reference ID without a name: the four ASCII letters it spells (`7F7F0101` is chrony's
    /// local clock, `LOCAL`), else the hex digits.
    static func referenceName(_ hex: String) -> String {
        if hex.uppercased() == "7F7F0101" { return "LOCAL" }
        guard let value = UInt32(hex, radix: 16) else { return hex }
        let bytes = [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xff) }.filter { $0 != 0 }
        if !bytes.isEmpty, bytes.allSatisfy({ (0x41...0x5a).contains($0) || (0x30...0x39).contains($0) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return hex.uppercased()
    }
}
