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

/// `IIOCapturePolicy`: which mode a device runs in, and why, from what its driver offers.
struct IIOCapturePolicyTests {
    static func facts(buffered: Bool = true, raw: Bool = true, consumer: IIOCapturePolicy.Consumer = .absent,
                      triggers: [(id: String, name: String)] = [], hrtimer: Bool = false) -> IIOCapturePolicy.Facts {
        IIOCapturePolicy.Facts(device: "bmi160 (iio:device0)", hasBufferedAxes: buffered, hasRawAxes: raw, consumer: consumer,
                               triggers: triggers, canMakeHrtimer: hrtimer, hrtimerName: "recorderd-imu0")
    }

    @Test func automaticBuffersWhereTheBufferFillsAndPollsWhereNothingFillsIt() {
        typealias P = IIOCapturePolicy
        #expect(P.decide(.automatic, Self.facts()) == .buffer(reason: "buffered: the driver fills its buffer (no trigger needed)"))
        #expect(P.decide(.automatic, Self.facts(consumer: .set("bmi160-dev0"))) == .buffer(reason: "buffered: trigger bmi160-dev0"))
        guard case .poll(let why) = P.decide(.automatic, Self.facts(consumer: .unset, triggers: [("trigger0", "other-dev")])) else {
            Issue.record("an unset trigger must poll")
            return
        }
        #expect(why.hasPrefix("polled: no trigger"))
        #expect(why.contains("other-dev (trigger0)"), "names the triggers one could configure, never picks one: \(why)")
        #expect(P.decide(.automatic, Self.facts(buffered: false)) == .poll(reason: "polled: the driver has no buffer (no data-ready interrupt)"))
        guard case .fail(let none) = P.decide(.automatic, Self.facts(raw: false, consumer: .unset)) else {
            Issue.record("nothing to fill the buffer and nothing to poll must fail")
            return
        }
        #expect(none.contains("name a trigger"))
        guard case .fail = P.decide(.automatic, Self.facts(buffered: false, raw: false)) else {
            Issue.record("no channels must fail")
            return
        }
    }

    @Test func configuredTriggersNoneAndHrtimer() {
        typealias P = IIOCapturePolicy
        #expect(P.Request(nil) == .automatic && P.Request("none") == .none && P.Request("hrtimer") == .hrtimer && P.Request("t") == .named("t"))
        #expect(P.decide(.none, Self.facts()) == .poll(reason: "polled: \"trigger\": \"none\" in the configuration"))
        guard case .fail = P.decide(.none, Self.facts(raw: false)) else { Issue.record("none without raw channels"); return }
        // By name or id; a device without a trigger consumer takes none.
        let triggers = [(id: "trigger0", name: "bmi160-dev0")]
        #expect(P.decide(.named("bmi160-dev0"), Self.facts(consumer: .unset, triggers: triggers))
            == .assignTrigger(name: "bmi160-dev0", reason: "buffered: trigger bmi160-dev0 (configured)"))
        #expect(P.decide(.named("trigger0"), Self.facts(consumer: .unset, triggers: triggers))
            == .assignTrigger(name: "bmi160-dev0", reason: "buffered: trigger bmi160-dev0 (configured)"))
        guard case .fail(let unknown) = P.decide(.named("x"), Self.facts(consumer: .unset, triggers: triggers)) else { Issue.record("unknown"); return }
        #expect(unknown == "no IIO trigger named \"x\" (triggers: bmi160-dev0 (trigger0))")
        guard case .fail(let absent) = P.decide(.named("bmi160-dev0"), Self.facts(consumer: .absent, triggers: triggers)) else { Issue.record("absent"); return }
        #expect(absent.contains("takes no trigger"))
        // hrtimer: made once, then found by its name; a kernel without it is an error saying so.
        #expect(P.decide(.hrtimer, Self.facts(consumer: .unset, hrtimer: true)) == .makeHrtimer(name: "recorderd-imu0"))
        #expect(P.decide(.hrtimer, Self.facts(consumer: .unset, triggers: [("trigger3", "recorderd-imu0")], hrtimer: true))
            == .assignTrigger(name: "recorderd-imu0", reason: "buffered: hrtimer trigger recorderd-imu0 made by recorderd (configured)"))
        guard case .fail(let noTimer) = P.decide(.hrtimer, Self.facts(consumer: .unset)) else { Issue.record("no hrtimer"); return }
        #expect(noTimer.contains("iio-trig-hrtimer"))
    }
}
