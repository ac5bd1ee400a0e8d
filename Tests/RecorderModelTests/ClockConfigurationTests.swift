import Foundation
import RecorderConfiguration
import RecorderModel
import Testing

/// `clock` in the daemon's configuration: the default, each source, chronyd's address, and errors
/// naming the key.
@Suite("Clock configuration")
struct ClockConfigurationTests {
    func decode(_ clock: String) -> Result<ClockConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in try DaemonConfiguration.decode(Data(#"{"clock": \#(clock)}"#.utf8)).clock }
    }

    @Test func theDefaultAsksChronydOnItsPortThenTimesyncd() throws {
        let c = try DaemonConfiguration.decode(Data("{}".utf8)).clock
        #expect(c.source == .auto && c.chronyHost == "127.0.0.1" && c.chronyPort == 323 && c.chronyc == "/usr/bin/chronyc")
        let chosen = try decode(#"{"source": "chrony", "chrony": "[::1]:11323", "chronyc": "/opt/chrony/bin/chronyc"}"#).get()
        #expect(chosen.source == .chrony && chosen.chronyHost == "::1" && chosen.chronyPort == 11323 && chosen.chronyc == "/opt/chrony/bin/chronyc")
        for source in ClockConfiguration.Source.allCases {
            #expect(try decode(#"{"source": "\#(source.rawValue)"}"#).get().source == source)
        }
        // The effective configuration (--check-config) shows it as read.
        let text = String(decoding: try JSONEncoder().encode(try DaemonConfiguration.decode(Data(#"{"clock": {"source": "none"}}"#.utf8))), as: UTF8.self)
        #expect(text.contains(#""clock":{"#) && text.contains(#""source":"none""#), "\(text)")
    }

    @Test func badValuesNameTheKey() {
        let cases: [(String, String)] = [
            (#"{"source": "ntpd"}"#, "clock.source: expected one of auto, chrony, timesyncd, none, not \"ntpd\""),
            (#"{"source": 1}"#, "clock.source"),
            (#"{"chrony": "127.0.0.1"}"#, "clock.chrony: expected host:port"),
            (#"{"chrony": "127.0.0.1:0"}"#, "is not 1 to 65535"),
            (#"{"chrony": "time.example.org:323"}"#, "is not an IP address or localhost"),
            (#"{"chronyc": "chronyc"}"#, "clock.chronyc: expected an absolute path"),
            (#"{"chronyc": ""}"#, "clock.chronyc: expected a program path of 1 to 1024 bytes"),
        ]
        for (json, expected) in cases {
            switch decode(json) {
            case .success: Issue.record("accepted \(json)")
            case .failure(let error): #expect(error.message.contains(expected), "\(json): \(error.message)")
            }
        }
    }
}
