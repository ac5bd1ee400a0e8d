import Foundation
import Testing

/// A real RabbitMQ node with its MQTT plugin (Debian 12's `rabbitmq-server`, 3.10: MQTT 3.1.1
/// only — it closes the connection on a CONNECT of MQTT 5), for one test: its own node name, free
/// loopback ports (MQTT, AMQP, Erlang distribution), configuration, data directory and its own
/// `epmd` on a port of its own; both started and stopped by their PIDs.
public struct RabbitMQBroker: TestBroker {
    public let node: ChildProcess
    public let epmd: ChildProcess
    public let port: Int
    public let directory: String
    public let nodeName: String
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

    /// Starts a node; returns once its log says the server started and its MQTT port accepts.
    public static func start() async throws -> RabbitMQBroker {
        let directory = try Fixtures.temporaryDirectory()
        let mqtt = LoopbackTCP.freePort(), amqp = LoopbackTCP.freePort(), distribution = LoopbackTCP.freePort(), epmdPort = LoopbackTCP.freePort()
        let name = "recorderd-test-\(mqtt)@localhost"
        try """
        listeners.tcp.default = 127.0.0.1:\(amqp)
        mqtt.listeners.tcp.default = 127.0.0.1:\(mqtt)
        mqtt.allow_anonymous = true
        loopback_users = none

        """.write(toFile: directory + "/rabbitmq.conf", atomically: true, encoding: .utf8)
        try "[rabbitmq_mqtt].\n".write(toFile: directory + "/enabled_plugins", atomically: true, encoding: .utf8)
        let epmd = try await ChildProcess("/usr/bin/epmd", ["-port", "\(epmdPort)", "-address", "127.0.0.1"])
        let environment = [
            "HOME": directory, "RABBITMQ_NODENAME": name, "RABBITMQ_DIST_PORT": "\(distribution)", "ERL_EPMD_PORT": "\(epmdPort)",
            "RABBITMQ_MNESIA_BASE": directory + "/mnesia", "RABBITMQ_LOG_BASE": directory, "RABBITMQ_LOGS": directory + "/rabbit.log",
            "RABBITMQ_CONFIG_FILE": directory + "/rabbitmq.conf", "RABBITMQ_ENABLED_PLUGINS_FILE": directory + "/enabled_plugins",
            "RABBITMQ_PID_FILE": directory + "/rabbit.pid",
            // The script execs the Erlang VM: the PID a stop signals is the node's.
            "RUNNING_UNDER_SYSTEMD": "true",
        ]
        let node = try await ChildProcess(bin + "/rabbitmq-server", [], environment: environment)
        let broker = RabbitMQBroker(node: node, epmd: epmd, port: mqtt, directory: directory, nodeName: name)
        let started = try await FileText.await(directory + "/rabbit.log", timeout: 180) { log in
            (log ?? "").contains("Server startup complete")
        }
        if started != nil, LoopbackTCP.accepts(port: mqtt) { return broker }
        let log = broker.log
        try? await broker.stop()
        throw BrokerError(description: "RabbitMQ did not start (MQTT on \(mqtt)): \(node.printedSoFar().suffix(2000)) \(log.suffix(3000))")
    }

    struct BrokerError: Error, CustomStringConvertible { let description: String }

    /// What the node has logged so far.
    public var log: String {
        (try? String(contentsOfFile: directory + "/rabbit.log", encoding: .utf8)) ?? ""
    }

    /// Stops the node (SIGTERM: a clean shutdown) and its epmd.
    public func stop() async throws {
        _ = try await node.stop(timeout: 60)
        _ = try await epmd.stop()
    }
}
