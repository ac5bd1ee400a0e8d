import BLESensors
import RecorderModel
import Testing

/// The Heart Rate Measurement parser against the specification's layout (GATT 0x2A37, Heart
/// Rate Service 1.0 §3.1): every flag, alone and together, and notifications that break it.
struct HeartRateMeasurementParserTests {
    static func parse(_ bytes: [UInt8]) throws(BLEError) -> HeartRateMeasurement {
        try HeartRateMeasurementParser.parse(bytes, uptime: 42.5)
    }

    @Test func aRateInOneByteWithNothingElse() throws {
        #expect(try Self.parse([0x00, 72]) == HeartRateMeasurement(uptime: 42.5, heartRate: 72))
        #expect(try Self.parse([0x00, 0]).heartRate == 0, "0 is what a strap without contact may send")
    }

    @Test func aRateInTwoBytesLittleEndian() throws {
        #expect(try Self.parse([0x01, 0x2c, 0x01]).heartRate == 300)
        #expect(try Self.parse([0x01, 0x48, 0x00]).heartRate == 72)
    }

    /// Bits 1–2: 0 and 1 not supported, 2 supported and not detected, 3 detected.
    @Test func sensorContactFromBitsOneAndTwo() throws {
        #expect(try Self.parse([0x00, 60]).contact == nil)
        #expect(try Self.parse([0x02, 60]).contact == nil)
        #expect(try Self.parse([0x04, 60]).contact == false)
        #expect(try Self.parse([0x06, 60]).contact == true)
    }

    @Test func energyExpendedInKilojoules() throws {
        let m = try Self.parse([0x08, 90, 0x10, 0x27])
        #expect(m.heartRate == 90 && m.energyExpended == 10_000 && m.rrIntervals.isEmpty)
    }

    /// RR intervals in 1/1024 s, as many as the notification holds, oldest first.
    @Test func rrIntervalsOneOrMany() throws {
        #expect(try Self.parse([0x10, 60, 0x00, 0x04]).rrIntervals == [1.0])
        #expect(try Self.parse([0x10, 75, 0x00, 0x04, 0x00, 0x03, 0x33, 0x03]).rrIntervals == [1.0, 0.75, 819.0 / 1024])
        let many = [UInt8](repeating: 0, count: 18).enumerated().map { $0.offset % 2 == 0 ? UInt8(0x00) : UInt8(0x04) }
        #expect(try Self.parse([0x10, 60] + many).rrIntervals == Array(repeating: 1.0, count: 9))
    }

    /// Every field at once: a 16-bit rate, contact, energy, then RR intervals after the energy.
    @Test func everyFieldTogetherInTheirOrder() throws {
        let m = try Self.parse([0x1f, 0x9a, 0x00, 0x06, 0x00, 0x00, 0x02, 0x66, 0x02])
        #expect(m == HeartRateMeasurement(uptime: 42.5, heartRate: 154, contact: true, energyExpended: 6, rrIntervals: [0.5, 614.0 / 1024]))
    }

    /// Reserved bits are ignored (the specification asks receivers to), and so are bytes after
    /// the announced fields when no RR intervals are announced.
    @Test func reservedBitsAndTrailingBytesWithoutRRAreIgnored() throws {
        #expect(try Self.parse([0xe0, 70]).heartRate == 70)
        #expect(try Self.parse([0x00, 70, 0xff]) == HeartRateMeasurement(uptime: 42.5, heartRate: 70))
    }

    @Test(arguments: [
        ([], "empty"),
        ([0x00], "no rate"),
        ([0x01, 0x48], "a 16-bit rate"),
        ([0x08, 72, 0x01], "energy expended"),
        ([0x10, 72], "RR intervals, 0 byte(s)"),
        ([0x10, 72, 0x00, 0x04, 0x01], "RR intervals, 3 byte(s)"),
        ([0x18, 72, 0x10], "energy expended"),
        ([0x01, 0xa0, 0x0f], "implausible heart rate 4000"),
    ] as [([UInt8], String)])
    func malformedNotificationsAreRefusedWithTheReason(bytes: [UInt8], reason: String) {
        #expect {
            try Self.parse(bytes)
        } throws: { error in
            (error as? BLEError)?.description.contains(reason) == true
        }
    }
}
