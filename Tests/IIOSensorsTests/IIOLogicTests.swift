import FakeIIO
import Foundation
import IIOSensors
import RecorderJSON
import RecorderModel
import Testing

/// The pure parts of the IIO backend: rates, timelines, channel roles, configuration errors; and
/// the fake device's scan layout (it must match the kernel's).
struct IIOLogicTests {
    @Test func availableRatesListsAndRanges() {
        #expect(IIOSampleRate.parseAvailable("12.5 26 52 104\n") == [12.5, 26, 52, 104])
        #expect(IIOSampleRate.parseAvailable("[10 10 50]") == [10, 20, 30, 40, 50])
        #expect(IIOSampleRate.parseAvailable("") == [])
        #expect(IIOSampleRate.nearest(to: 100, in: [12.5, 26, 52, 104, 208]) == 104)
        #expect(IIOSampleRate.nearest(to: 1000, in: [833, 1666]) == 833)
        #expect(IIOSampleRate.nearest(to: 39, in: [26, 52]) == 26, "a tie takes the lower rate")
        #expect(IIOSampleRate.nearest(to: 77, in: []) == 77)
        #expect(IIOSampleRate.attributeValue(104) == "104")
        #expect(IIOSampleRate.attributeValue(12.5) == "12.5")
    }

    @Test func timelineCountsLossFromTimestamps() {
        var t = IIOTimeline(rate: 100)
        #expect(t.lost(before: 1_000_000_000) == 0)
        #expect(t.lost(before: 1_010_000_000) == 0)
        #expect(t.lost(before: 1_024_000_000) == 0, "1.4 periods is jitter, not loss")
        #expect(t.lost(before: 1_064_000_000) == 3, "4 periods: 3 samples lost")
        #expect(t.uptime(timestamp: 2_500_000_000, offset: 0.25) == 2.75)
    }

    @Test func timelineWithoutTimestampsEndsAtTheRefill() {
        var t = IIOTimeline(rate: 100)
        #expect(abs(t.uptime(index: 0, of: 3, completion: 10) - 9.98) < 1e-12)
        #expect(abs(t.uptime(index: 2, of: 3, completion: 10) - 10) < 1e-12)
        // An early refill never goes back in time.
        #expect(t.uptime(index: 0, of: 2, completion: 10.001) >= 10.005)
    }

    @Test func channelRolesAndUnits() {
        #expect(IIOChannelRole(channelID: "accel_x") == .axis(.accelerometer, 0))
        #expect(IIOChannelRole(channelID: "anglvel_z") == .axis(.gyro, 2))
        #expect(IIOChannelRole(channelID: "magn_y") == .axis(.magnetometer, 1))
        #expect(IIOChannelRole(channelID: "timestamp") == .timestamp)
        #expect(IIOChannelRole(channelID: "temp") == nil)
        #expect(IIOChannelRole(channelID: "accel_x_raw") == nil)
        #expect(IIOChannelRole.unitFactor(.accelerometer) == 1 / 9.80665)
        #expect(IIOChannelRole.unitFactor(.gyro) == 1)
        #expect(IIOChannelRole.unitFactor(.magnetometer) == 100)
    }

    @Test func configurationErrorsNameTheKey() throws {
        func decode(_ json: String) throws -> IIOConfiguration {
            try JSONDecoder().decode(IIOConfiguration.self, from: Data(json.utf8))
        }
        let ok = try decode(#"{"name":"imu0","kind":"iio","uri":"local:","device":"lsm6dsox","gyroDevice":"g","frequency":100}"#)
        #expect(ok.uri == "local:" && ok.device == "lsm6dsox" && ok.gyroDevice == "g" && ok.frequency == 100)
        #expect(try decode(#"{"name":"imu0"}"#).uri == nil)
        for (json, key) in [(#"{"name":"imu0","frequency":"fast"}"#, "frequency"), (#"{"name":"imu0","frequency":-1}"#, "frequency"),
                            (#"{"name":"imu0","uri":""}"#, "uri"), (#"{"name":"imu0","device":7}"#, "device"),
                            (#"{"name":"imu0","sensorTypes":["location"]}"#, "sensorTypes")] {
            do {
                _ = try decode(json)
                Issue.record("accepted \(json)")
            } catch {
                #expect(DecodingErrorDescription.describe(error).hasPrefix(key), "\(DecodingErrorDescription.describe(error))")
            }
        }
    }

    @Test func fakeScanLayoutIsTheKernels() {
        // 6 × s16, 4 bytes of padding to align the s64 timestamp: 24 bytes.
        let imu = FakeIIOScanLayout(FakeIIOChannel.imu())
        #expect(imu.scanSize == 24)
        #expect(imu.offsets == [0, 2, 4, 6, 8, 10, 16])
        // accel only + timestamp: 6 + 2 pad + 8.
        #expect(FakeIIOScanLayout(FakeIIOChannel.imu(gyro: false)).scanSize == 16)
        // Three s16 without timestamp: 6 bytes.
        #expect(FakeIIOScanLayout(FakeIIOChannel.imu(gyro: false, timestamp: false)).scanSize == 6)
        #expect(FakeIIOChannel.parse(id: "accel_x", index: 0, type: "be:s12/16>>4\n") ==
                FakeIIOChannel(id: "accel_x", index: 0, bigEndian: true, signed: true, bits: 12, storage: 16, shift: 4))
    }
}
