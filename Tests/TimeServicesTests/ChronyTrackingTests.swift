import Foundation
import RecorderModel
import Testing
@testable import TimeServices

/// `chronyc -c tracking` lines as chrony 4.3 printed them (a follower of a loopback server, that
/// server with its local clock, a follower with no server), and broken ones.
@Suite struct ChronyTrackingTests {
    let checked = Date(timeIntervalSince1970: 1_795_926_060)

    @Test func aFollowersLineIsSynchronisedWithItsOffsetNegatedAndChronysErrorBound() throws {
        // chronyc's own words for it: "System time : 0.000001345 seconds fast of NTP time".
        let line = "7F000001,127.0.0.1,9,1795926060.400633298,-0.000001345,-0.000000010,0.000000162,-0.036,-0.001,0.157,0.000006032,0.000000545,0.3,Normal\n"
        let state = try ChronyTracking.parse(line, checked: checked)
        #expect(state.source == .chrony && state.synchronised == true && state.stratum == 9 && state.reference == "127.0.0.1")
        #expect(state.leapStatus == "Normal" && state.checked == checked && state.error == nil)
        // Fast: ahead of the reference, a positive offset.
        #expect(state.offset == 0.000001345)
        let bound = try #require(state.estimatedError)
        #expect(abs(bound - (0.000001345 + 0.000000545 + 0.000006032 / 2)) < 1e-15)
        #expect(state.summary == "synchronised to 127.0.0.1 (chrony, stratum 9, offset +0.000001345 s ± 0.000004906 s)")
    }

    @Test func aLocalClocksReferenceIsNamedLOCAL() throws {
        let state = try ChronyTracking.parse("7F7F0101,,8,1795925943.634870200,0.000000000,0.000000000,0.000000000,0.000,0.000,0.000,0.000000000,0.000000000,0.0,Normal\n",
                                             checked: checked)
        #expect(state.synchronised == true && state.reference == "LOCAL" && state.stratum == 8)
        #expect(ChronyTracking.referenceName("47505300") == "GPS")
        #expect(ChronyTracking.referenceName("0A000001") == "0A000001")
    }

    @Test func aFollowerWithoutItsServerIsNotSynchronised() throws {
        let state = try ChronyTracking.parse("00000000,,0,0.000000000,0.000000000,0.000000000,0.000000000,0.000,0.000,0.000,1.000000000,1.000000000,0.0,Not synchronised\n",
                                             checked: checked)
        #expect(state.source == .chrony && state.synchronised == false && state.offset == nil && state.estimatedError == nil && state.reference == nil)
        #expect(state.leapStatus == "Not synchronised")
        #expect(state.summary == "NOT synchronised (chrony, stratum 0)")
    }

    @Test(arguments: [
        ("", "printed 0 lines"),
        ("506 Cannot talk to daemon\n", "printed 1 fields"),
        ("7F000001,a,9,1,0,0,0,0,0,0,0,0,0,Normal\n7F000001,a,9,1,0,0,0,0,0,0,0,0,0,Normal\n", "printed 2 lines"),
        ("7F00001,a,9,1,0,0,0,0,0,0,0,0,0,Normal", "reference ID"),
        ("7F000001,a,17,1,0,0,0,0,0,0,0,0,0,Normal", "stratum"),
        ("7F000001,a,9,1,nan,0,0,0,0,0,0,0,0,Normal", "system time"),
        ("7F000001,a,9,1,1e300,0,0,0,0,0,0,0,0,Normal", "system time"),
        ("7F000001,a,9,1,0,0,0,0,0,0,-1,0,0,Normal", "root delay"),
        ("7F000001,a,9,1,0,0,0,0,0,0,0,inf,0,Normal", "root dispersion"),
        ("7F000001,a,9,1,0,0,0,0,0,0,0,0,0,Sideways", "leap status"),
        ("7F000001,a\u{1B}[2J,9,1,0,0,0,0,0,0,0,0,0,Normal", "control character"),
    ])
    func brokenLinesAreRefusedSayingWhat(line: String, expected: String) {
        #expect(throws: TimeServiceError.self) { try ChronyTracking.parse(line, checked: checked) }
        do {
            _ = try ChronyTracking.parse(line, checked: checked)
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }
}
