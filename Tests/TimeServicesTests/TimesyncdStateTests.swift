import Foundation
import RecorderModel
import RecorderSystemd
import Testing
@testable import TimeServices

/// timesyncd's properties, as `GetAll` on `org.freedesktop.timesync1.Manager` answers them
/// (types as systemd 252's `src/timesync/timesyncd-bus.c` declares them).
@Suite struct TimesyncdStateTests {
    let checked = Date(timeIntervalSince1970: 1_795_926_060)

    static func message(leap: UInt32 = 0, stratum: UInt32 = 2, delay: UInt64 = 4_000, dispersion: UInt64 = 1_000,
                        times: (UInt64, UInt64, UInt64, UInt64)) -> DBusValue {
        .variant(.structure([.uint32(leap), .uint32(4), .uint32(4), .uint32(stratum), .int32(-23), .uint64(delay), .uint64(dispersion),
                             .bytes([0xC0, 0, 2, 1]), .uint64(times.0), .uint64(times.1), .uint64(times.2), .uint64(times.3),
                             .boolean(false), .uint64(12), .uint64(150)]))
    }

    @Test func theLastAnswersTimesGiveTheOffsetAndTheKernelSaysSynchronised() throws {
        // Sent at 1000 µs, received by the server at 1500, sent back at 1600, here at 2000: the
        // server's clock is ((1500 − 1000) + (1600 − 2000)) / 2 = 50 µs ahead of ours.
        let properties: [String: DBusValue] = [
            "ServerName": .variant(.string("ntp.example.org")),
            "NTPMessage": Self.message(times: (1_000, 1_500, 1_600, 2_000)),
        ]
        let state = try TimesyncdState.state(properties: properties, kernelSynchronised: true, checked: checked)
        #expect(state.source == .timesyncd && state.synchronised == true && state.reference == "ntp.example.org" && state.stratum == 2)
        #expect(state.offset == -0.00005 && state.leapStatus == "Normal")
        #expect(abs(try #require(state.estimatedError) - (0.00005 + 0.001 + 0.002)) < 1e-12)
    }

    @Test func withoutANameTheServersAddressIsTheReference() throws {
        let properties: [String: DBusValue] = [
            "ServerName": .variant(.string("")),
            "ServerAddress": .variant(.structure([.int32(2), .bytes([192, 0, 2, 1])])),
            "NTPMessage": Self.message(times: (1_000, 1_000, 1_000, 1_000)),
        ]
        let state = try TimesyncdState.state(properties: properties, kernelSynchronised: false, checked: checked)
        #expect(state.reference == "192.0.2.1" && state.synchronised == false && state.offset == 0)
    }

    @Test func noAnswerYetLeavesOffsetAndStratumOut() throws {
        let state = try TimesyncdState.state(properties: ["NTPMessage": Self.message(times: (0, 0, 0, 0))], kernelSynchronised: false, checked: checked)
        #expect(state.source == .timesyncd && state.synchronised == false && state.offset == nil && state.stratum == nil)
    }

    @Test func aMessageOfTheWrongShapeOrOutOfRangeIsRefused() {
        #expect(throws: TimeServiceError.self) {
            try TimesyncdState.state(properties: ["NTPMessage": .variant(.structure([.uint32(0)]))], kernelSynchronised: true, checked: checked)
        }
        #expect(throws: TimeServiceError.self) {
            try TimesyncdState.state(properties: ["NTPMessage": Self.message(stratum: 99, times: (1, 2, 3, 4))], kernelSynchronised: true, checked: checked)
        }
        #expect(throws: TimeServiceError.self) {
            try TimesyncdState.state(properties: ["ServerName": .string("evil\u{1B}]0;x\u{07}")], kernelSynchronised: true, checked: checked)
        }
    }
}
