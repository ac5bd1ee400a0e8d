import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderConfiguration
import RecorderFleet
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// `recorderctl fleet`: every Pi's status as the broker holds it.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Show the fleet: each Pi's retained status on an MQTT broker (online, last seen, runs recording, runs pending upload, faults).")
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
        print("SITE         DEVICE       STATE    LAST SEEN                 RUNS  UPLOADS  CLOCK     DEVICES")
        var unsynchronised: [String] = []
        for s in statuses {
            let faulty = (s.devices ?? []).filter { $0.state == .unavailable }.map(\.name)
            let devices = "\((s.devices ?? []).count)" + (faulty.isEmpty ? "" : " (unavailable: \(faulty.joined(separator: ", ")))")
            let state = s.state == .offline ? "offline" + (s.reason.map { " (\($0))" } ?? "") : "online"
            print([pad(s.site, 12), pad(s.device, 12), pad(state, 8), pad(s.time ?? "-", 25), pad("\((s.taskRuns ?? []).count)", 5),
                   pad(s.uploadsPending.map { "\($0)" } ?? "-", 8), pad(Self.clockColumn(s.clock), 9), devices].joined(separator: " "))
            if let clock = s.clock, clock.synchronised != true {
                unsynchronised.append(clock.source == .unknown
                    ? "warning: clock state unknown on \(s.site)/\(s.device): \(clock.error ?? "no time service answered") (install chrony there)"
                    : "warning: clock not synchronised on \(s.site)/\(s.device): \(clock.summary); its runs' wall-clock times may be off")
            }
        }
        for line in unsynchronised { print(line) }
    }

    /// `synced`, `UNSYNCED` (a service answered: not synchronised), `unknown` (none answered), or
    /// `-` (a recorderd that does not say).
    static func clockColumn(_ clock: ClockSynchronisation?) -> String {
        guard let clock else { return "-" }
        if clock.source == .unknown { return "unknown" }
        return clock.synchronised == true ? "synced" : "UNSYNCED"
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text.fitted(to: width)
    }
}

/// How recorderctl reaches an MQTT broker (`fleet`, and the collector).
struct BrokerOptions: ParsableArguments {
    @Option(help: "The broker: mqtt://host[:port] or mqtts://host[:port]; a cluster's nodes joined by commas (tried in turn).") var broker: String
    @Option(help: "The topics' prefix.") var prefix = "recorderd/v1"
    @Option(name: .customLong("protocol"), help: "MQTT: auto (5, else 3.1.1 when the broker refuses 5), 5 or 3.1.1.") var protocolText = "auto"
    @Option(help: "TLS: the CA to trust (PEM; default: the system's).") var ca: String?
    @Option(help: "TLS: a client certificate (PEM).") var cert: String?
    @Option(help: "TLS: the client certificate's key (PEM).") var key: String?
    @Option(help: "The broker's user name.") var username: String?
    @Option(help: "A file whose first line is the password.") var passwordFile: String?

    func validate() throws {
        guard MQTTProtocolChoice(rawValue: protocolText) != nil else { throw ValidationError("--protocol: \(MQTTProtocolChoice.expected)") }
    }

    func options(clientPrefix: String) throws -> MQTTClient.Options {
        let urls = broker.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (1...MQTTConfiguration.maximumNodes).contains(urls.count) else {
            throw ValidationError("--broker: 1 to \(MQTTConfiguration.maximumNodes) nodes, not \(urls.count)")
        }
        var nodes: [(host: String, port: Int, tls: Bool)] = []
        for url in urls {
            switch MQTTConfiguration.parseBroker(url) {
            case .success(let b): nodes.append(b)
            case .failure(let error): throw ValidationError("--broker: \(urls.count > 1 ? url + ": " : "")\(error.message)")
            }
        }
        guard Set(nodes.map(\.tls)).count == 1 else { throw ValidationError("--broker: the nodes mix mqtt:// and mqtts://: one scheme for all") }
        let parsed = nodes[0]
        guard prefix.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ MQTTConfiguration.isTopicLevel(String($0)) }) else {
            throw ValidationError("--prefix: expected topic levels joined by / (each 1 to 64 of A-Z a-z 0-9 . _ -)")
        }
        guard let choice = MQTTProtocolChoice(rawValue: protocolText) else { throw ValidationError("--protocol: \(MQTTProtocolChoice.expected)") }
        guard (cert == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
        guard parsed.tls || (ca == nil && cert == nil) else { throw ValidationError("TLS files need an mqtts:// broker") }
        var o = MQTTClient.Options(clientID: "\(clientPrefix)-\(UUID().uuidString.prefix(8))", host: parsed.host, port: parsed.port)
        o.otherNodes = nodes.dropFirst().map { MQTTClient.Node(host: $0.host, port: $0.port) }
        o.protocolChoice = choice
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

/// `recorderctl collect`: receives every Pi's ended runs into a folder.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Receive the fleet's runs: DIR/{site}/{device}/{task}/{run}/, each file checked against its SHA-256 before it is acknowledged.")
    @OptionGroup var broker: BrokerOptions
    @Option(help: "The folder the runs go to.") var dir: String
    @Option(help: "Share the load with other collectors of this group (an MQTT 5 shared subscription; they must share DIR).") var share: String?
    @Option(help: "Only this site's Pis (one collector per site: the way to share the load over MQTT 3.1.1).") var site: String?
    @Flag(help: "Ask the Pis for plain chunks, not zstd-compressed ones (as a collector before compression did).") var plainChunks = false

    func run() async throws {
        if let share, !MQTTConfiguration.isTopicLevel(share) { throw ValidationError("--share: expected 1 to 64 of A-Z a-z 0-9 . _ -") }
        if let site, !MQTTConfiguration.isTopicLevel(site) { throw ValidationError("--site: expected 1 to 64 of A-Z a-z 0-9 . _ -") }
        if share != nil, broker.protocolText == MQTTProtocolChoice.v311.rawValue {
            throw ValidationError(Collector.shareNeedsMQTT5.replacing("this broker speaks", with: "--protocol is"))
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let directory = PathText.standardized(dir)
        let collector = Collector(options: try broker.options(clientPrefix: "recorderctl-collect"), prefix: broker.prefix, shareGroup: share, site: site,
                                  directory: directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory,
                                  plainChunks: plainChunks)
        // Until it is stopped (Ctrl-C, SIGTERM): what it holds on disk is safe at any moment.
        do {
            try await collect(collector, directory: directory)
        } catch let refused as Collector.ShareNeedsMQTT5 {
            throw CommandFailure(refused.description, .usage)
        } catch let refused as Collector.Refused {
            throw CommandFailure(refused.description, .unavailable)
        }
    }

    func collect(_ collector: Collector, directory: String) async throws {
        @Sendable func emit(_ line: String) { StandardStreams.output(line + "\n") }
        try await collector.run { report in
            switch report {
            case .connected(let version): emit("collecting from \(broker.broker) over MQTT \(version.rawValue) into \(directory) (\(collector.patterns.joined(separator: ", ")))")
            case .complete(let site, let device, let m, let wireBytes):
                let bytes = m.files.reduce(Int64(0)) { $0 + $1.size }
                emit("run \(site)/\(device)/\(m.taskIdentifier)/\(m.directory): \(m.files.count) files, \(bytes) bytes, checked (\(wireBytes) bytes of chunks on the wire)")
            case .refused(let site, let device, let run, let reason): emit("refused \(site)/\(device) run \(run): \(reason)")
            case .healed(let site, let device, let run, let file): emit("\(site)/\(device) run \(run): \(file) failed its SHA-256; asked for again")
            case .failed(let what): StandardStreams.error("collect: " + what + "\n")
            }
        }
    }
}
