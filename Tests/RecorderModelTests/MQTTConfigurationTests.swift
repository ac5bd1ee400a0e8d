import Foundation
import RecorderConfiguration
import RecorderModel
import Testing

/// `mqtt` in the daemon's configuration: broker URLs, topic levels, TLS and credentials, errors
/// naming the key.
@Suite("MQTT configuration")
struct MQTTConfigurationTests {
    func decode(_ mqtt: String) -> Result<MQTTConfiguration?, ConfigurationError> {
        Result { () throws(ConfigurationError) in try DaemonConfiguration.decode(Data(#"{"mqtt": \#(mqtt)}"#.utf8)).mqtt }
    }

    @Test func brokersDefaultsAndTheDeviceID() throws {
        let plain = try #require(try decode(#"{"broker": "mqtt://broker.lab", "site": "clinic-a"}"#).get())
        #expect(plain.host == "broker.lab" && plain.port == 1883 && !plain.usesTLS && plain.topicPrefix == "recorderd/v1")
        #expect(plain.keepalive == 30 && plain.statusInterval == 60 && !plain.remoteControl && plain.device == nil)
        #expect(plain.upload && plain.uploadBandwidth == nil && !plain.deleteAfterUpload && plain.keepFreeBytes == nil)
        #expect(plain.protocolChoice == .auto)
        for (text, choice) in [("auto", MQTTProtocolChoice.auto), ("5", .v5), ("3.1.1", .v311)] {
            #expect(try decode(#"{"broker": "mqtt://h", "site": "s", "protocol": "\#(text)"}"#).get()?.protocolChoice == choice)
        }
        #expect(plain.deviceID(hostName: "raspberrypi") == "raspberrypi")
        #expect(plain.deviceID(hostName: "pi 7/#+") == "pi-7---", "a host name becomes one topic level")
        let tls = try #require(try decode(#"""
            {"broker": "mqtts://[::1]:18883/", "site": "s", "device": "pi-07", "topicPrefix": "study42/recorderd",
             "tls": {"ca": "ca.pem", "certificate": "c.pem", "key": "k.pem"}, "username": "pi-07", "passwordFile": "pw",
             "keepalive": 5, "statusInterval": 1, "remoteControl": true}
            """#).get())
        #expect(tls.host == "::1" && tls.port == 18883 && tls.usesTLS && tls.device == "pi-07" && tls.topicPrefix == "study42/recorderd")
        #expect(tls.tls == MQTTTLSFiles(ca: "ca.pem", certificate: "c.pem", key: "k.pem") && tls.username == "pi-07" && tls.remoteControl)
        #expect(try decode(#"{"broker": "mqtts://10.0.0.1", "site": "s"}"#).get()?.port == 8883)
        #expect(try DaemonConfiguration.decode(Data("{}".utf8)).mqtt == nil)
        #expect(plain.live.isEmpty)
        // A list of nodes: tried in order; one scheme; written back as a list.
        let cluster = try #require(try decode(#"{"broker": ["mqtt://n1:1883", "mqtt://n2:1884", "mqtt://[::1]"], "site": "s"}"#).get())
        #expect(cluster.nodes == [MQTTBrokerNode(url: "mqtt://n1:1883", host: "n1", port: 1883), MQTTBrokerNode(url: "mqtt://n2:1884", host: "n2", port: 1884),
                                  MQTTBrokerNode(url: "mqtt://[::1]", host: "::1", port: 1883)])
        #expect(cluster.broker == "mqtt://n1:1883" && cluster.host == "n1" && !cluster.usesTLS)
        let again = try #require(try decode(String(decoding: try JSONEncoder().encode(cluster), as: UTF8.self)).get())
        #expect(again == cluster)
        #expect(try decode(#"{"broker": ["mqtts://one"], "site": "s"}"#).get()?.nodes.map(\.port) == [8883])
        #expect(plain.nodes.count == 1 && plain.nodes[0].url == "mqtt://broker.lab")
        let live = try #require(try decode(#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu0"}, {"device": "gps0", "sensorTypes": ["location"], "rate": 0.5}]}"#).get())
        #expect(live.live == [MQTTLiveStream(device: "imu0", rate: 10), MQTTLiveStream(device: "gps0", sensorTypes: [.location], rate: 0.5)])
    }

    @Test func badValuesNameTheKey() {
        let cases: [(String, String)] = [
            (#"{"site": "s"}"#, "mqtt.broker"),
            (#"{"broker": "tcp://h:1883", "site": "s"}"#, "mqtt.broker: expected mqtt://host[:port] or mqtts://host[:port]: the scheme"),
            (#"{"broker": "mqtt://h:0", "site": "s"}"#, "port \"0\" is not 1 to 65535"),
            (#"{"broker": "mqtt://h:99999999999999999999", "site": "s"}"#, "is not 1 to 65535"),
            (#"{"broker": "mqtt://user@h", "site": "s"}"#, "a path, user or query is not allowed"),
            (#"{"broker": "mqtt://h/path", "site": "s"}"#, "a path, user or query is not allowed"),
            (#"{"broker": "mqtt://", "site": "s"}"#, "no host"),
            (#"{"broker": "mqtt://h_x", "site": "s"}"#, "is not a host name or address"),
            (#"{"broker": "mqtt://[::1", "site": "s"}"#, "unclosed ["),
            (#"{"broker": "mqtt://h a", "site": "s"}"#, "spaces or control characters"),
            (#"{"broker": "mqtt://h"}"#, "mqtt.site"),
            (#"{"broker": [], "site": "s"}"#, "mqtt.broker: expected 1 to 8 broker URLs, not 0"),
            (#"{"broker": ["mqtt://a", "mqtt://b", "mqtt://c", "mqtt://d", "mqtt://e", "mqtt://f", "mqtt://g", "mqtt://h", "mqtt://i"], "site": "s"}"#,
             "expected 1 to 8 broker URLs, not 9"),
            (#"{"broker": ["mqtt://a", "mqtts://b"], "site": "s"}"#, "mqtt.broker: the nodes mix mqtt:// and mqtts://"),
            (#"{"broker": ["mqtt://a", "tcp://b"], "site": "s"}"#, "mqtt.broker: node 2: expected mqtt://host[:port]"),
            (#"{"broker": ["mqtt://a:1883", "mqtt://a"], "site": "s"}"#, "mqtt.broker: a:1883 is listed twice"),
            (#"{"broker": 1883, "site": "s"}"#, "mqtt.broker: expected a broker URL"),
            (#"{"broker": ["mqtt://a", 7], "site": "s"}"#, "mqtt.broker: expected a broker URL"),
            (#"{"broker": "mqtt://h", "site": "a/b"}"#, "mqtt.site: expected a topic level"),
            (#"{"broker": "mqtt://h", "site": "+"}"#, "mqtt.site: expected a topic level"),
            (##"{"broker": "mqtt://h", "site": "s", "device": "#"}"##, "mqtt.device: expected a topic level"),
            (#"{"broker": "mqtt://h", "site": "s", "topicPrefix": "a//b"}"#, "mqtt.topicPrefix"),
            (#"{"broker": "mqtt://h", "site": "s", "topicPrefix": "$SYS"}"#, "mqtt.topicPrefix"),
            (#"{"broker": "mqtt://h", "site": "s", "tls": {"ca": "ca.pem"}}"#, "mqtt.tls: TLS files are set but the broker is mqtt://"),
            (#"{"broker": "mqtts://h", "site": "s", "tls": {"certificate": "c.pem"}}"#, "mqtt.tls.key: a client certificate needs its key"),
            (#"{"broker": "mqtts://h", "site": "s", "tls": {"ca": ""}}"#, "mqtt.tls.ca: expected a file path"),
            (#"{"broker": "mqtt://h", "site": "s", "passwordFile": "pw"}"#, "mqtt.passwordFile: a password needs a username"),
            (#"{"broker": "mqtt://h", "site": "s", "username": "a b"}"#, "mqtt.username"),
            (#"{"broker": "mqtt://h", "site": "s", "keepalive": 4}"#, "mqtt.keepalive: expected seconds between 5 and 3600"),
            (#"{"broker": "mqtt://h", "site": "s", "keepalive": 1e300}"#, "mqtt.keepalive"),
            (#"{"broker": "mqtt://h", "site": "s", "statusInterval": 0}"#, "mqtt.statusInterval"),
            (#"{"broker": "mqtt://h", "site": "s", "remoteControl": "yes"}"#, "mqtt.remoteControl"),
            (#"{"broker": "mqtt://h", "site": "s", "protocol": "3"}"#, "mqtt.protocol: expected \"auto\", \"5\" or \"3.1.1\""),
            (#"{"broker": "mqtt://h", "site": "s", "protocol": 5}"#, "mqtt.protocol"),
            (#"{"broker": "mqtt://h", "site": "s", "uploadBandwidth": 10}"#, "mqtt.uploadBandwidth: expected bytes per second"),
            (#"{"broker": "mqtt://h", "site": "s", "keepFreeBytes": 1000}"#, "mqtt.keepFreeBytes: keepFreeBytes applies to deleteAfterUpload"),
            (#"{"broker": "mqtt://h", "site": "s", "deleteAfterUpload": true, "keepFreeBytes": -1}"#, "mqtt.keepFreeBytes: expected bytes"),
            (#"{"broker": "mqtt://h", "site": "s", "deleteAfterUpload": true, "upload": false}"#, "mqtt.deleteAfterUpload: deleteAfterUpload needs upload"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"rate": 5}]}"#, "mqtt.live[0].device"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu/0"}]}"#, "mqtt.live[0].device: expected a device name"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu0", "rate": 0}]}"#, "mqtt.live[0].rate: expected records per second"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu0", "rate": 1e300}]}"#, "mqtt.live[0].rate"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu0", "sensorTypes": []}]}"#, "mqtt.live[0].sensorTypes: expected at least one"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "imu0", "sensorTypes": ["smell"]}]}"#, "mqtt.live[0].sensorTypes"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "a"}, {"device": "a"}]}"#, "mqtt.live: device a is listed twice"),
            (#"{"broker": "mqtt://h", "site": "s", "live": [{"device": "d0"}, {"device": "d1"}, {"device": "d2"}, {"device": "d3"}, {"device": "d4"}, {"device": "d5"}, {"device": "d6"}, {"device": "d7"}, {"device": "d8"}, {"device": "d9"}, {"device": "d10"}, {"device": "d11"}, {"device": "d12"}, {"device": "d13"}, {"device": "d14"}, {"device": "d15"}, {"device": "d16"}, {"device": "d17"}, {"device": "d18"}, {"device": "d19"}, {"device": "d20"}, {"device": "d21"}, {"device": "d22"}, {"device": "d23"}, {"device": "d24"}, {"device": "d25"}, {"device": "d26"}, {"device": "d27"}, {"device": "d28"}, {"device": "d29"}, {"device": "d30"}, {"device": "d31"}, {"device": "d32"}]}"#, "mqtt.live: at most 32 live streams"),
        ]
        for (json, expected) in cases {
            switch decode(json) {
            case .success: Issue.record("accepted \(json)")
            case .failure(let error): #expect(error.message.contains(expected), "\(json): \(error.message)")
            }
        }
    }

    @Test func theEffectiveConfigurationRoundTrips() throws {
        let c = try DaemonConfiguration.decode(Data(#"{"mqtt": {"broker": "mqtt://h", "site": "s", "username": "u", "passwordFile": "/p", "live": [{"device": "imu0", "rate": 2}]}}"#.utf8))
        let again = try DaemonConfiguration.decode(try JSONEncoder().encode(c))
        #expect(again.mqtt == c.mqtt)
    }
}
