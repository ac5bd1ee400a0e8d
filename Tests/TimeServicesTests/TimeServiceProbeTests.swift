import Foundation
import Logging
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing
@testable import TimeServices

/// The probe against real chronyd daemons on loopback (a server of its own clock and a follower
/// of it, neither touching this machine's clock), read beside what `chronyc` itself prints.
@Suite(.serialized) struct TimeServiceProbeTests {
    static func probe(commandPort: Int, source: ClockConfiguration.Source = .chrony) -> TimeServiceProbe {
        var configuration = ClockConfiguration()
        configuration.source = source
        configuration.chronyPort = commandPort
        return TimeServiceProbe(configuration: configuration, timeout: 10, logger: Logger(label: "test.clock"))
    }

    /// A field of chronyc's human output (`Stratum         : 9`).
    static func field(_ name: String, of text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(.enabled(if: ChronyDaemon.testsEnabled("TimeServiceProbeTests")), .timeLimit(.minutes(2)), .ownThread)
    func aFollowerIsUnsynchronisedUntilItsServerAnswersThenAsChronycSays() async throws {
        let serverPort = LoopbackTCP.freePort(datagram: true)
        let follower = try await ChronyDaemon.follower(of: serverPort)
        let probe = Self.probe(commandPort: follower.commandPort)
        let before = await probe.current()
        #expect(before.source == .chrony && before.synchronised == false && before.leapStatus == "Not synchronised", "\(before)")
        #expect(Self.field("Leap status", of: try await follower.chronyc(["tracking"])) == "Not synchronised")
        #expect(probe.recent() == before)

        let server = try await ChronyDaemon.server(port: serverPort)
        try await follower.synchronised()
        let after = await probe.current()
        let chronyc = try await follower.chronyc(["tracking"])
        #expect(after.source == .chrony && after.synchronised == true, "\(after)")
        // The independent reading: chronyc's own lines (`Reference ID : 7F000001 (127.0.0.1)`,
        // `Stratum : 9`, `System time : 0.000001345 seconds fast of NTP time`).
        #expect(Self.field("Reference ID", of: chronyc) == "7F000001 (127.0.0.1)" && after.reference == "127.0.0.1", "\(chronyc)")
        #expect(Self.field("Stratum", of: chronyc) == "9" && after.stratum == 9, "\(chronyc)")
        let systemTime = try #require(Self.field("System time", of: chronyc)).split(separator: " ")
        let magnitude = try #require(Double(String(systemTime[0])))
        // Both readings of the same loopback clock: well within a millisecond, and within the bound.
        let offset = try #require(after.offset), bound = try #require(after.estimatedError)
        #expect(magnitude < 0.001 && abs(offset) < 0.001, "\(chronyc) \(after)")
        #expect(bound >= abs(offset))
        #expect(systemTime.contains("fast") || systemTime.contains("slow"))
        try await server.stop()
        try await follower.stop()
    }

    /// Whether this machine has no system bus (CI's has none): timesyncd cannot answer.
    static func withoutSystemBus() -> Bool {
        if !FileManager.default.fileExists(atPath: "/run/dbus/system_bus_socket") { return true }
        print("SKIP noChronydAndNoTimesyncdIsUnknownSayingWhatWasTried: this machine has a system bus (timesyncd may answer); runs under CI")
        return false
    }

    @Test(.enabled(if: ChronyDaemon.testsEnabled("TimeServiceProbeTests") && withoutSystemBus()), .timeLimit(.minutes(2)), .ownThread)
    func noChronydAndNoTimesyncdIsUnknownSayingWhatWasTried() async throws {
        // A command port nobody serves: chronyc's "506 Cannot talk to daemon".
        let probe = Self.probe(commandPort: LoopbackTCP.freePort(datagram: true), source: .auto)
        let state = await probe.current()
        #expect(state.source == .unknown && state.synchronised == nil, "\(state)")
        #expect(state.error?.contains("chrony: chronyc -h 127.0.0.1:") == true && state.error?.contains("506 Cannot talk to daemon") == true, "\(state)")
        #expect(state.error?.contains("timesyncd: ") == true, "\(state)")
        #expect(state.summary.hasPrefix("unknown ("))
    }

    @Test(.ownThread) func aMissingChronycIsSaid() async {
        var configuration = ClockConfiguration()
        configuration.source = .chrony
        configuration.chronyc = "/nonexistent/chronyc"
        let state = await TimeServiceProbe(configuration: configuration, logger: Logger(label: "test.clock")).current()
        #expect(state.source == .unknown && state.error == "chrony: /nonexistent/chronyc is not installed (Debian's chrony)", "\(state)")
    }
}
