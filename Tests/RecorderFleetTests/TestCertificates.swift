import Foundation
import RecorderTestSupport
import Testing

/// A test CA made with openssl for one test: the broker's certificate (for 127.0.0.1), a client
/// certificate it signed, and a client certificate of another CA the broker must refuse.
struct TestCertificates {
    let directory: String
    var ca: String { directory + "/ca.pem" }
    var serverCertificate: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }
    var clientCertificate: String { directory + "/client.pem" }
    var clientKey: String { directory + "/client.key" }
    var rogueCertificate: String { directory + "/rogue-client.pem" }
    var rogueKey: String { directory + "/rogue-client.key" }

    static func make() async throws -> TestCertificates {
        let directory = try Fixtures.temporaryDirectory()
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        func openssl(_ arguments: [String]) async throws {
            let p = try await ChildProcess("/usr/bin/openssl", arguments)
            let status = try await p.wait(timeout: 30)
            try #require(status == 0, "openssl \(arguments.prefix(2)): \(p.printed)")
        }
        for ca in ["ca", "rogue-ca"] {
            try await openssl(["req", "-x509"] + ec + ["-keyout", "\(directory)/\(ca).key", "-out", "\(directory)/\(ca).pem", "-days", "2", "-subj", "/CN=recorderd test \(ca)"])
        }
        for (name, ca, extra) in [("server", "ca", ["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]), ("client", "ca", []), ("rogue-client", "rogue-ca", [])] {
            try await openssl(["req"] + ec + ["-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).csr", "-subj", "/CN=\(name)"] + extra)
            try await openssl(["x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", "\(directory)/\(ca).pem", "-CAkey", "\(directory)/\(ca).key",
                               "-CAcreateserial", "-out", "\(directory)/\(name).pem", "-days", "2", "-copy_extensions", "copy"])
        }
        return TestCertificates(directory: directory)
    }

    /// The broker's TLS listener: clients must present a certificate of the test CA.
    var brokerConfiguration: String {
        """
        listener $PORT 127.0.0.1
        cafile \(ca)
        certfile \(serverCertificate)
        keyfile \(serverKey)
        require_certificate true
        allow_anonymous true

        """
    }

    /// mosquitto_sub's and mosquitto_pub's TLS arguments.
    var clientArguments: [String] {
        ["--cafile", ca, "--cert", clientCertificate, "--key", clientKey]
    }
}
