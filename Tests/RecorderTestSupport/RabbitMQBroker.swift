import Foundation
import Testing

/// A real RabbitMQ node with its MQTT plugin (Debian 12's `rabbitmq-server`, 3.10: MQTT 3.1.1
/// only — it closes the connection on a CONNECT of MQTT 5), for one test: its own node name, free
/// loopback ports (MQTT, AMQP, Erlang distribution), configuration, data directory and its own
/// `epmd` on a port of its own; both started and stopped by their PIDs.
public struct RabbitMQBroker: TestBroker {
    public let node: ChildProcess
    /// Its own epmd; nil for a node of a `RabbitMQCluster` (the cluster's one epmd).
    public let epmd: ChildProcess?
    public let port: Int
    public let directory: String
    public let nodeName: String
    /// The port of the epmd it registered with.
    public let epmdPort: Int
    public var clientArguments: [String] { [] }

    static let bin = "/usr/lib/rabbitmq/bin"

    /// Whether the RabbitMQ tests run: always under CI (which installs rabbitmq-server; missing,
    /// they fail), elsewhere when it is installed (else a printed reason).
    public static func testsEnabled(_ name: String) -> Bool {
        if Privileges.isCI { return true }
        guard FileManager.default.isExecutableFile(atPath: bin + "/rabbitmq-server"), FileManager.default.isExecutableFile(atPath: "/usr/bin/epmd"),
              MosquittoBroker.testsEnabled(name) else {
            print("SKIP \(name): needs Debian's rabbitmq-server (scripts/setup.sh); runs under CI")
            return false
        }
        return true
    }

    /// Starts a node with an epmd of its own; returns once its log says the server started and
    /// its MQTT port accepts.
    public static func start() async throws -> RabbitMQBroker {
        let epmdPort = LoopbackTCP.freePort()
        let epmd = try await ChildProcess("/usr/bin/epmd", ["-port", "\(epmdPort)", "-address", "127.0.0.1"])
        do {
            return try await startNode(epmdPort: epmdPort, epmd: epmd)
        } catch {
            _ = try? await epmd.stop()
            throw error
        }
    }

    /// Starts a node registered with the epmd on `epmdPort` (`epmd`: its own, stopped with it)
    /// and, when given, the Erlang `cookie` its cluster shares. A node that found one of its
    /// ports taken meanwhile (another process bound it between our pick and its start) is
    /// started again on new ports, up to three times.
    static func startNode(epmdPort: Int, epmd: ChildProcess?, cookie: String? = nil) async throws -> RabbitMQBroker {
        for _ in 1..<3 {
            do {
                return try await startNodeOnce(epmdPort: epmdPort, epmd: epmd, cookie: cookie)
            } catch let error as BrokerError where error.portTaken {
                print("RabbitMQ: a port was taken; starting the node again on others: \(error.description.suffix(300))")
            }
        }
        return try await startNodeOnce(epmdPort: epmdPort, epmd: epmd, cookie: cookie)
    }

    static func startNodeOnce(epmdPort: Int, epmd: ChildProcess?, cookie: String?) async throws -> RabbitMQBroker {
        let directory = try Fixtures.temporaryDirectory()
        let mqtt = LoopbackTCP.freePort(), amqp = LoopbackTCP.freePort(), distribution = LoopbackTCP.freePort()
        let name = "recorderd-test-\(mqtt)@localhost"
        if let cookie { try writeCookie(cookie, home: directory) }
        try """
        listeners.tcp.default = 127.0.0.1:\(amqp)
        mqtt.listeners.tcp.default = 127.0.0.1:\(mqtt)
        mqtt.allow_anonymous = true
        loopback_users = none

        """.write(toFile: directory + "/rabbitmq.conf", atomically: true, encoding: .utf8)
        try "[rabbitmq_mqtt].\n".write(toFile: directory + "/enabled_plugins", atomically: true, encoding: .utf8)
        let environment = [
            "HOME": directory, "RABBITMQ_NODENAME": name, "RABBITMQ_DIST_PORT": "\(distribution)", "ERL_EPMD_PORT": "\(epmdPort)",
            "RABBITMQ_MNESIA_BASE": directory + "/mnesia", "RABBITMQ_LOG_BASE": directory, "RABBITMQ_LOGS": directory + "/rabbit.log",
            "RABBITMQ_CONFIG_FILE": directory + "/rabbitmq.conf", "RABBITMQ_ENABLED_PLUGINS_FILE": directory + "/enabled_plugins",
            "RABBITMQ_PID_FILE": directory + "/rabbit.pid",
            // The script execs the Erlang VM: the PID a stop signals is the node's.
            "RUNNING_UNDER_SYSTEMD": "true",
        ]
        let node = try await ChildProcess(bin + "/rabbitmq-server", [], environment: environment)
        let broker = RabbitMQBroker(node: node, epmd: epmd, port: mqtt, directory: directory, nodeName: name, epmdPort: epmdPort)
        // Started, or failed to (a port taken: its prelaunch "failed_to_start_child"; "BOOT FAILED").
        let started = try await FileText.await(directory + "/rabbit.log", timeout: 180) { log in
            ["Server startup complete", "failed_to_start_child", "BOOT FAILED"].contains { (log ?? "").contains($0) }
        }
        if let started, started.contains("Server startup complete"), LoopbackTCP.accepts(port: mqtt) { return broker }
        let log = broker.log
        if node.isRunning { _ = try? await node.stop(timeout: 60) }
        throw BrokerError(description: "RabbitMQ did not start (MQTT on \(mqtt)): \(node.printedSoFar().suffix(2000)) \(log.suffix(3000))")
    }

    struct BrokerError: Error, CustomStringConvertible {
        let description: String
        /// Erlang's words for a port another process holds.
        var portTaken: Bool { description.contains("already_used") || description.contains("eaddrinuse") }
    }

    /// What the node has logged so far.
    public var log: String {
        (try? String(contentsOfFile: directory + "/rabbit.log", encoding: .utf8)) ?? ""
    }

    /// Stops the node (SIGTERM: a clean shutdown) and its own epmd; a node already ended (killed
    /// by a test) is only waited for.
    public func stop() async throws {
        if node.isRunning { _ = try await node.stop(timeout: 60) }
        if let epmd { _ = try await epmd.stop() }
    }

    /// `rabbitmqctl -n` this node `arguments` (as the node's user: its home's cookie, its epmd):
    /// its exit status and what it printed.
    public func control(_ arguments: [String], timeout: Double = 120) async throws -> (status: Int32, printed: String) {
        try await ChildProcess.run(Self.bin + "/rabbitmqctl", ["-n", nodeName] + arguments,
                                   environment: ["HOME": directory, "ERL_EPMD_PORT": "\(epmdPort)"], timeout: timeout)
    }

    /// Writes Erlang's cookie file into `home` (owner-only, as Erlang requires).
    static func writeCookie(_ cookie: String, home: String) throws {
        let path = home + "/.erlang.cookie"
        try cookie.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path)
    }
}
