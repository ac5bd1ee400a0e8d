import Foundation
import Testing

/// A real mosquitto broker on a free loopback port, for one test: started with its own
/// configuration file, stopped by its PID.
public struct MosquittoBroker: TestBroker {
    public let process: ChildProcess
    public let port: Int
    public let directory: String
    /// What mosquitto_sub and mosquitto_pub need to connect (TLS files).
    public var clientArguments: [String] = []

    /// Whether the broker tests run: always under CI (which installs mosquitto; missing, they
    /// fail), elsewhere when mosquitto and its clients are installed (else a printed reason).
    public static func testsEnabled(_ name: String) -> Bool {
        if Privileges.isCI { return true }
        let tools = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_pub", "/usr/bin/openssl"]
        guard tools.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP \(name): needs Debian's mosquitto, mosquitto-clients and openssl (scripts/setup.sh); runs under CI")
            return false
        }
        return true
    }

    /// Starts a broker; `listener` lines replace the plain one (TLS); returns once it runs (its
    /// log says so) and accepts.
    public static func start(port chosen: Int? = nil, extraConfiguration: String = "") async throws -> MosquittoBroker {
        let directory = try Fixtures.temporaryDirectory()
        let port = chosen ?? LoopbackTCP.freePort()
        let configuration = extraConfiguration.isEmpty ? """
        listener \(port) 127.0.0.1
        allow_anonymous true

        """ : extraConfiguration.replacingOccurrences(of: "$PORT", with: "\(port)")
        // Run as root (CI), mosquitto would switch to its own user, which cannot read the test's files.
        // Its log goes to a file: into the pipe, nobody reading, a busy broker would stop once the
        // pipe is full.
        try (configuration + "user root\npersistence false\nlog_dest file \(directory)/mosquitto.log\nlog_type all\n")
            .write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let process = try await ChildProcess("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"])
        // Its log says it runs once every listener is open (mosquitto flushes each line).
        let running = try await FileText.await(directory + "/mosquitto.log", timeout: 60) { log in
            (log ?? "").split(separator: "\n").contains { $0.contains("mosquitto version") && $0.hasSuffix(" running") }
        }
        if running != nil, LoopbackTCP.accepts(port: port) { return MosquittoBroker(process: process, port: port, directory: directory) }
        _ = try? await process.stop(signal: SIGKILL)
        throw BrokerError(description: "mosquitto did not start on \(port): \(process.printed) \((try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "")")
    }

    struct BrokerError: Error, CustomStringConvertible { let description: String }

    /// What the broker has logged so far.
    public var log: String {
        (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? ""
    }

    /// SIGTERM, and its exit. mosquitto 2.0 logs "running" and only then sets the flag its
    /// SIGTERM handler clears: a SIGTERM between the two is lost (seen in CI: a broker stopped
    /// just after it started ran on). So a broker still running 5 s after the first is sent a
    /// second, which its main loop does see.
    @discardableResult
    public func stop() async throws -> Int32 {
        if process.isRunning { kill(process.pid, SIGTERM) }
        if let status = await process.exitStatus(within: 5) { return status }
        return try await process.stop()
    }

}

/// Lines printed by a subscriber (`topic payload`), split into topic and payload.
public func mqttMessages(_ printed: String) -> [(topic: String, payload: String)] {
    printed.split(separator: "\n").compactMap { line -> (topic: String, payload: String)? in
        // mosquitto_sub -d's own lines (`readySubscriber` waits on its SUBACK).
        if line.hasPrefix("Client ") || line.hasPrefix("Subscribed (mid") { return nil }
        let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

/// An MQTT broker a test runs (mosquitto, RabbitMQ): where it listens, and mosquitto's own clients
/// as the independent peers (MQTT 3.1.1 by default, which every broker speaks).
public protocol TestBroker: Sendable {
    var port: Int { get }
    /// What mosquitto_sub and mosquitto_pub need to connect (TLS files).
    var clientArguments: [String] { get }
}

extension TestBroker {
    /// `mosquitto_sub` on `topic`, printing `topic payload` per message until stopped or `count`
    /// messages (`-C`); it stops itself after `timeout` s.
    public func subscriber(_ topic: String, count: Int? = nil, timeout: Int = 60, arguments: [String] = []) async throws -> ChildProcess {
        var a = ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-v", "-q", "1", "-W", "\(timeout)"]
        if let count { a += ["-C", "\(count)"] }
        // Line-buffered (its output is a pipe): `-d`'s lines, such as the SUBACK a test waits for,
        // come as they happen, not when it exits.
        return try await ChildProcess("/usr/bin/stdbuf", ["-oL", "/usr/bin/mosquitto_sub"] + a + clientArguments + arguments)
    }

    /// Publishes one message with `mosquitto_pub` (QoS 1) and waits for it to be sent.
    public func publish(_ topic: String, _ payload: String, arguments: [String] = []) async throws {
        try await publish(topic, ["-m", payload] + arguments)
    }

    /// Publishes a file's bytes as one message.
    public func publish(_ topic: String, file: String) async throws {
        try await publish(topic, ["-f", file])
    }

    func publish(_ topic: String, _ arguments: [String]) async throws {
        let p = try await ChildProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "1"] + clientArguments + arguments)
        let status = try await p.wait(timeout: 20)
        #expect(status == 0, "mosquitto_pub: \(p.printed)")
    }
}
