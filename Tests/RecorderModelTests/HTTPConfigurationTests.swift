import Foundation
import RecorderConfiguration
import RecorderModel
import Testing

/// `http` in the daemon's configuration: addresses, the token rule, errors naming the key.
@Suite("HTTP configuration")
struct HTTPConfigurationTests {
    func decode(_ http: String) -> Result<HTTPConfiguration?, ConfigurationError> {
        Result { () throws(ConfigurationError) in try DaemonConfiguration.decode(Data(#"{"http": \#(http)}"#.utf8)).http }
    }

    @Test func addressesAndTheTokenRule() throws {
        let local = try #require(try decode(#"{"listen": "127.0.0.1:8080"}"#).get())
        #expect(local.host == "127.0.0.1" && local.port == 8080 && local.isLoopback && local.token == nil && local.taskDirectory == "tasks")
        let v6 = try #require(try decode(#"{"listen": "[::1]:80", "taskDirectory": "/etc/recorderd/tasks"}"#).get())
        #expect(v6.host == "::1" && v6.port == 80 && v6.isLoopback && v6.taskDirectory == "/etc/recorderd/tasks")
        #expect(try decode(#"{"listen": "localhost:8080"}"#).get()?.isLoopback == true)
        let lan = try #require(try decode(#"{"listen": "0.0.0.0:8080", "token": "0123456789abcdef"}"#).get())
        #expect(!lan.isLoopback && lan.token == "0123456789abcdef")
        #expect(try DaemonConfiguration.decode(Data("{}".utf8)).http == nil)
    }

    @Test func badValuesNameTheKey() {
        let cases: [(String, String)] = [
            (#"{"listen": "0.0.0.0:8080"}"#, "http.token: a token is required when listening on 0.0.0.0"),
            (#"{"listen": "192.168.1.20:8080", "token": "short"}"#, "http.token: expected 16 to 256 printable ASCII characters"),
            (#"{"listen": "127.0.0.1:8080", "token": "has a space in it.."}"#, "http.token: expected 16 to 256"),
            (#"{"listen": "127.0.0.1:8080", "token": "semi;colons;are;out"}"#, "http.token: expected 16 to 256"),
            (#"{"listen": "127.0.0.1"}"#, "http.listen: expected host:port"),
            (#"{"listen": "127.0.0.1:0"}"#, "http.listen: expected host:port (e.g. 127.0.0.1:8080 or [::1]:8080): port \"0\" is not 1 to 65535"),
            (#"{"listen": "127.0.0.1:65536"}"#, "is not 1 to 65535"),
            (#"{"listen": "127.0.0.1:99999999999999999999"}"#, "is not 1 to 65535"),
            (#"{"listen": "example.com:80"}"#, "\"example.com\" is not an IP address or localhost"),
            (#"{"listen": "[::1:80"}"#, "unclosed ["),
            (#"{"listen": "[fe80::zz]:80"}"#, "is not an IPv6 address"),
            (#"{"listen": ":8080"}"#, "no host"),
            (#"{"listen": 8080}"#, "http.listen"),
            (#"{"token": "0123456789abcdef"}"#, "http.listen"),
            (#"{"listen": "127.0.0.1:8080", "taskDirectory": ""}"#, "http.taskDirectory: expected a directory path"),
        ]
        for (json, expected) in cases {
            switch decode(json) {
            case .success: Issue.record("accepted \(json)")
            case .failure(let error): #expect(error.message.contains(expected), "\(json): \(error.message)")
            }
        }
    }

    @Test func theEffectiveConfigurationDoesNotPrintTheToken() throws {
        let c = try DaemonConfiguration.decode(Data(#"{"http": {"listen": "0.0.0.0:8080", "token": "0123456789abcdef"}}"#.utf8))
        let text = String(decoding: try JSONEncoder().encode(c), as: UTF8.self)
        #expect(!text.contains("0123456789abcdef") && text.contains("(set)"))
    }
}
