import RecorderModel

/// The `data` of FHIR SampledData being built: values separated by spaces, `E` for each sample
/// lost in a gap (the gap records' `droppedSamples`), written in place as the records stream by.
struct SampledDataSeries {
    private(set) var encoder = JSONLinesEncoder(reservingCapacity: 4096)
    private(set) var count = 0
    /// Values other than `E`.
    private(set) var values = 0

    /// The most points one series takes (a 24-hour recording at 1 kHz is 86.4 M).
    static let maximumPoints = 100_000_000

    mutating func append(_ value: Double) throws(ExportError) {
        try separate()
        encoder.appendNumber(value)
        values += 1
    }

    /// `n` samples lost.
    mutating func appendGap(_ n: Int) throws(ExportError) {
        guard n >= 0, n <= Self.maximumPoints - count else { throw .badFile("a gap of \(n) samples is more than an Observation can hold") }
        for _ in 0..<n {
            try separate()
            encoder.appendStatic("E")
        }
    }

    private mutating func separate() throws(ExportError) {
        guard count < Self.maximumPoints else { throw .badFile("more than \(Self.maximumPoints) samples of one sensor type: too many for an Observation") }
        if count > 0 { encoder.appendStatic(" ") }
        count += 1
    }

    /// The series' text (nothing in it needs escaping in a JSON string).
    var text: [UInt8] { encoder.bytes }
}
