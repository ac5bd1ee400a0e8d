import Foundation
@testable import RecorderModel
import Testing
import RecorderConfiguration
import RecorderJSON

@Suite("Unknown configuration keys")
struct ConfigurationKeysTests {
    let schema = DaemonConfiguration.keys(devices: [
        "iio": ConfigurationKeys.keys(["name", "kind", "frequency", "device"]).merging(["fusion": .keys(["proportionalGain", "alwaysOn"])]),
    ])

    func warnings(_ json: String) throws -> [String] {
        schema.unknownKeys(in: try JSONParser.parse(Array(json.utf8)))
    }

    @Test func eachUnknownKeyIsNamedByItsPathWithTheKeyMeant() throws {
        let found = try warnings("""
        {"ringSecnds": 5, "limits": {"lineTimout": 3}, "zzz": 1,
         "devices": [{"name": "a", "kind": "iio", "frequncy": 100, "fusion": {"proportinalGain": 2}},
                     {"name": "b", "kind": "iio", "fusion": true},
                     {"name": "c", "kind": "unknown-kind", "anything": 1}]}
        """)
        #expect(found == ["devices[0].frequncy: unknown key; did you mean frequency?",
                          "devices[0].fusion.proportinalGain: unknown key; did you mean proportionalGain?",
                          "limits.lineTimout: unknown key; did you mean lineTimeout?",
                          "ringSecnds: unknown key; did you mean ringSeconds?",
                          "zzz: unknown key"])
    }

    @Test func aKnownFileHasNoWarnings() throws {
        #expect(try warnings(#"{"socket": "/s", "limits": {"connections": 2}, "devices": [{"name": "a", "kind": "iio", "device": "x"}]}"#).isEmpty)
    }

    @Test func editDistanceCountsTyposOnce() {
        #expect(ConfigurationKeys.editDistance("frequncy", "frequency") == 1)
        #expect(ConfigurationKeys.editDistance("lenght", "length") == 1)
        #expect(ConfigurationKeys.editDistance("", "abc") == 3)
        #expect(ConfigurationKeys.editDistance("kitten", "sitting") == 3)
        #expect(ConfigurationKeys.nearest(to: "RingSeconds", among: ["ringSeconds", "retryInterval"]) == "ringSeconds")
        #expect(ConfigurationKeys.nearest(to: "xyz", among: ["ringSeconds"]) == nil)
    }

    @Test func everyProblemIsListedNotOnlyTheFirst() {
        let reading = DaemonConfiguration.read(Data("""
        {"ringSeconds": "long", "orphanTimeout": -1, "limits": {"connections": 0},
         "devices": [{"kind": "iio"}, {"name": "ok", "kind": "iio"}, {"name": "ok", "kind": "iio"}]}
        """.utf8))
        #expect(reading.problems.count == 5, "\(reading.problems)")
        #expect(reading.problems.contains { $0.hasPrefix("ringSeconds: expected a number") })
        #expect(reading.problems.contains { $0.hasPrefix("orphanTimeout: expected seconds > 0") })
        #expect(reading.problems.contains { $0.hasPrefix("limits.connections:") })
        #expect(reading.problems.contains { $0 == "devices[0].name: required key is missing" })
        #expect(reading.problems.contains { $0.hasPrefix("devices[2]: duplicate device name") })
        #expect(reading.setAsideDevices == [0, 2])
        #expect(DaemonConfiguration.read(Data("{".utf8)).problems.first?.hasPrefix("malformed JSON") == true)
    }
}
