import ArgumentParser
import Foundation
import RecorderFleet
import RecorderModel

/// `recorderctl fleet`: every Pi's status as the broker holds it.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Show the fleet: each Pi's retained status on an MQTT broker (online, last seen, runs, faults).")
    @OptionGroup var broker: BrokerOptions
    @Option(help: "Only this site.") var site: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let statuses: [FleetStatus]
        do {
            statuses = try await FleetView.statuses(options: try broker.options(clientPrefix: "recorderctl-fleet"), prefix: broker.prefix, site: site)
        } catch {
            throw CommandFailure("\(error)", .unavailable)
        }
        if json { return try Output.json(statuses) }
        if statuses.isEmpty { return print("no recorderd under \(broker.prefix)/ on \(broker.broker)") }
        print("SITE         DEVICE       STATE    LAST SEEN                 RUNS  DEVICES")
        for s in statuses {
            let faulty = (s.devices ?? []).filter { $0.state == .unavailable }.map(\.name)
            let devices = "\((s.devices ?? []).count)" + (faulty.isEmpty ? "" : " (unavailable: \(faulty.joined(separator: ", ")))")
            let state = s.state == .offline ? "offline" + (s.reason.map { " (\($0))" } ?? "") : "online"
            print([pad(s.site, 12), pad(s.device, 12), pad(state, 8), pad(s.time ?? "-", 25), pad("\((s.taskRuns ?? []).count)", 5), devices].joined(separator: " "))
        }
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}

/// How recorderctl reaches an MQTT broker (`fleet`, and the collector).
struct BrokerOptions: ParsableArguments {
    @Option(help: "The broker: mqtt://host[:port] or mqtts://host[:port].") var broker: String
    @Option(help: "The topics' prefix.") var prefix = "recorderd/v1"
    @Option(help: "TLS: the CA to trust (PEM; default: the system's).") var ca: String?
    @Option(help: "TLS: a client certificate (PEM).") var cert: String?
    @Option(help: "TLS: the client certificate's key (PEM).") var key: String?
    @Option(help: "The broker's user name.") var username: String?
    @Option(help: "A file whose first line is the password.") var passwordFile: String?

    func options(clientPrefix: String) throws -> MQTTClient.Options {
        let parsed: (host: String, port: Int, tls: Bool)
        switch MQTTConfiguration.parseBroker(broker) {
        case .success(let b): parsed = b
        case .failure(let error): throw ValidationError("--broker: \(error.message)")
        }
        guard prefix.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ MQTTConfiguration.isTopicLevel(String($0)) }) else {
            throw ValidationError("--prefix: expected topic levels joined by / (each 1 to 64 of A-Z a-z 0-9 . _ -)")
        }
        guard (cert == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
        guard parsed.tls || (ca == nil && cert == nil) else { throw ValidationError("TLS files need an mqtts:// broker") }
        var o = MQTTClient.Options(clientID: "\(clientPrefix)-\(UUID().uuidString.prefix(8))", host: parsed.host, port: parsed.port)
        o.useTLS = parsed.tls
        (o.caFile, o.certificateFile, o.keyFile) = (ca, cert, key)
        o.username = username
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else { throw ValidationError("--password-file: cannot read \(passwordFile)") }
            o.password = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
        return o
    }
}
