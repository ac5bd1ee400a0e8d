import BLESensors
import Foundation
import RecorderModel

/// Oracles for the Heart Rate Measurement parser over arbitrary notifications, under
/// AddressSanitizer: what it accepts obeys the flags (each announced field present, nothing
/// unannounced, a plausible rate, whole RR intervals), and laid out again by the specification it
/// reads back the same; what it refuses, it refuses with a reason, never a crash.
public enum HeartRateCheck {
    public static func run(_ bytes: [UInt8]) {
        let measurement: HeartRateMeasurement
        do {
            measurement = try HeartRateMeasurementParser.parse(bytes, uptime: 1)
        } catch {
            if error.description.isEmpty { fail("a refusal without a reason", bytes) }
            return
        }
        let flags = bytes[0]
        if measurement.heartRate < 0 || measurement.heartRate > HeartRateMeasurementParser.maximumRate { fail("an implausible rate accepted", bytes) }
        if (measurement.energyExpended != nil) != (flags & 0x08 != 0) { fail("energy expended against its flag", bytes) }
        if measurement.rrIntervals.isEmpty == (flags & 0x10 != 0) { fail("RR intervals against their flag", bytes) }
        let contact: Bool? = (flags >> 1) & 3 == 3 ? true : (flags >> 1) & 3 == 2 ? false : nil
        if measurement.contact != contact { fail("sensor contact against its bits", bytes) }
        var again: [UInt8] = [flags & 0x1f]
        func uint16(_ value: Int) { again += [UInt8(value & 0xff), UInt8(value >> 8)] }
        if flags & 0x01 != 0 { uint16(measurement.heartRate) } else { again.append(UInt8(measurement.heartRate)) }
        if let energy = measurement.energyExpended { uint16(energy) }
        for interval in measurement.rrIntervals {
            let counts = interval * 1024
            if counts != counts.rounded() || counts < 0 || counts > 65_535 { fail("an RR interval that is no whole count of 1/1024 s", bytes) }
            uint16(Int(counts))
        }
        guard let back = try? HeartRateMeasurementParser.parse(again, uptime: 1), back == measurement else {
            fail("a measurement laid out again does not read back the same", bytes)
        }
    }

    static func fail(_ message: String, _ bytes: [UInt8]) -> Never {
        FileHandle.standardError.write(Data("\(message): \(bytes)\n".utf8))
        abort()
    }
}
