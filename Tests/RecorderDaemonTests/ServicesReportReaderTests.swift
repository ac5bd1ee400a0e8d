import RecorderJSON
import RecorderProtocol
@testable import RecorderDaemon
import Testing

/// The daemon's reading of the services process's reports (descriptor 3): lines cut from the
/// bytes however they come, and what is not a report skipped and counted.
@Suite struct ServicesReportReaderTests {
    static let refused = FleetLinkInfo(state: .refused, broker: "mqtt://broker:1883", protocolVersion: "5",
                                       detail: "Bad user name or password (CONNACK 134)", since: "2026-11-29T01:00:00.000+0000")

    static let listening = WebPageInfo(state: .listening, address: "http://0.0.0.0:8080/")

    static func line(_ report: ServicesReport) throws -> [UInt8] {
        try JSONTextEncoder().encode(report) + [UInt8(ascii: "\n")]
    }
    static func line(_ info: FleetLinkInfo) throws -> [UInt8] { try line(ServicesReport(fleet: info)) }

    @Test func statesArriveWholeHoweverTheBytesAreCut() throws {
        let connecting = FleetLinkInfo(state: .connecting, broker: "mqtt://broker:1883")
        let bytes = try Self.line(connecting) + Self.line(ServicesReport(page: Self.listening)) + Self.line(Self.refused)
        for cut in [1, 7, bytes.count / 2, bytes.count - 1] {
            var reader = ServicesReportReader()
            let first = reader.take(bytes[..<cut])
            let rest = reader.take(bytes[cut...])
            #expect(first + rest == [ServicesReport(fleet: connecting), ServicesReport(page: Self.listening), ServicesReport(fleet: Self.refused)],
                    "cut at \(cut)")
            #expect(reader.discarded == 0)
        }
        var reader = ServicesReportReader()
        #expect(reader.take(try Self.line(Self.refused).dropLast()).isEmpty, "no state before its newline")
    }

    @Test func whatIsNoStateIsSkippedAndCounted() throws {
        var reader = ServicesReportReader()
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: ServicesReport.maximumBytes * 3) + [UInt8(ascii: "\n")]
        let states = reader.take(Array("{\"fleet\": {\"state\": \"sideways\", \"broker\": \"b\"}}\n[1, 2]\n\n".utf8) + long + (try Self.line(Self.refused)))
        #expect(states == [ServicesReport(fleet: Self.refused)], "the state after them still arrives")
        #expect(reader.discarded == 3, "an unknown state, an array, an overlong line (the empty line is nothing)")
    }

    @Test func theSummaryIsWhatRecorderctlPrints() {
        #expect(Self.refused.summary == "refused: Bad user name or password (CONNACK 134) (mqtt://broker:1883, MQTT 5) since 2026-11-29T01:00:00.000+0000")
        #expect(FleetLinkInfo(state: .connected, broker: "mqtts://b:8883", protocolVersion: "3.1.1").summary == "connected (mqtts://b:8883, MQTT 3.1.1)")
        #expect(Self.listening.summary == "listening on http://0.0.0.0:8080/")
        #expect(WebPageInfo(state: .cannotListen, address: "http://10.0.0.5:80/", detail: "bind: Cannot assign requested address").summary
                == "cannot listen on http://10.0.0.5:80/: bind: Cannot assign requested address; trying again")
    }
}
