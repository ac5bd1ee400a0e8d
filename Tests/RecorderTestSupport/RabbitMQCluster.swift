import Foundation
import Testing

/// Three (or `count`) real RabbitMQ nodes with their MQTT plugin joined into one cluster on this
/// machine, as `rabbitmqctl join_cluster` does it: one epmd on a free port, one Erlang cookie,
/// each node its own name, ports, configuration and data directory; every process stopped by its
/// PID.
public struct RabbitMQCluster: Sendable {
    public let nodes: [RabbitMQBroker]
    public let epmd: ChildProcess

    struct ClusterError: Error, CustomStringConvertible { let description: String }

    /// Starts the nodes one after the other, then joins the others to the first (stop_app,
    /// join_cluster, start_app each); returns once the first lists them all as running and every
    /// node's MQTT port accepts.
    public static func start(count: Int = 3) async throws -> RabbitMQCluster {
        let epmdPort = LoopbackTCP.freePort()
        let epmd = try await ChildProcess("/usr/bin/epmd", ["-port", "\(epmdPort)", "-address", "127.0.0.1"])
        let cookie = "RECORDERDTEST" + String(UUID().uuidString.filter(\.isLetter).prefix(16))
        var nodes: [RabbitMQBroker] = []
        do {
            for _ in 0..<count {
                nodes.append(try await RabbitMQBroker.startNode(epmdPort: epmdPort, epmd: nil, cookie: cookie))
            }
            let cluster = RabbitMQCluster(nodes: nodes, epmd: epmd)
            for node in nodes.dropFirst() {
                for step in [["stop_app"], ["join_cluster", nodes[0].nodeName], ["start_app"]] {
                    let (status, printed) = try await node.control(step)
                    guard status == 0 else { throw ClusterError(description: "rabbitmqctl \(step) on \(node.nodeName): \(printed)") }
                }
            }
            let (status, printed) = try await nodes[0].control(["cluster_status", "--formatter", "json"])
            let running = (try? JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])?["running_nodes"] as? [String] ?? []
            guard status == 0, Set(running) == Set(nodes.map(\.nodeName)) else {
                throw ClusterError(description: "the cluster does not list its nodes running: \(printed)")
            }
            // start_app opened each joined node's MQTT listener again.
            for node in nodes where !LoopbackTCP.accepts(port: node.port) {
                throw ClusterError(description: "\(node.nodeName) does not accept MQTT on \(node.port) after joining: \(node.log.suffix(2000))")
            }
            try await cluster.mqttRaftComplete()
            return cluster
        } catch {
            for node in nodes { try? await node.stop() }
            _ = try? await epmd.stop()
            throw error
        }
    }

    /// Waits until every node's MQTT plugin counts every node a member of its Raft cluster of
    /// client ids (`mqtt_node`, Ra): RabbitMQ 3.10's plugin registers each connection's client id
    /// there after its CONNACK and closes the connection when no majority answers, so a node that
    /// dies before the others joined leaves them refusing every client. Each node is asked in turn
    /// (`rabbitmqctl eval`, a second or two each) until all list all, at most `timeout` seconds.
    public func mqttRaftComplete(timeout: Double = 120) async throws {
        let deadline = Deadline(seconds: timeout)
        var last: [String] = [], rounds = 0
        repeat {
            last = []
            rounds += 1
            for node in nodes {
                let (_, printed) = try await node.control(["eval", "ra:members({mqtt_node, node()})."], timeout: 30)
                last.append("\(node.nodeName): \(printed.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            if last.allSatisfy({ answer in answer.contains("{ok,") && nodes.allSatisfy { answer.contains("'\($0.nodeName)'") } }) {
                print("RabbitMQ cluster: every node a member of mqtt_node after \(rounds) round(s) of asking")
                return
            }
        } while !deadline.hasPassed
        throw ClusterError(description: "the MQTT plugin's Raft cluster never held every node: \(last)")
    }

    /// What a failure needs explained: the queues as the first running node lists them (type,
    /// durability, home or leader and members), and each running node's log lines that begin an
    /// error or name a queue's home node (the last 20).
    public func describeQueues() async -> String {
        var text = ""
        if let node = nodes.first(where: { $0.node.isRunning }) {
            let columns = ["name", "type", "durable", "auto_delete", "pid", "leader", "members", "online"]
            let listed = try? await node.control(["list_queues", "--quiet"] + columns, timeout: 60)
            text += "queues (\(columns.joined(separator: " "))) on \(node.nodeName):\n\(listed?.printed ?? "-")\n"
        }
        for node in nodes where node.node.isRunning {
            let lines = node.log.split(separator: "\n").filter { ($0.contains("[error]") && !$0.contains("    ")) || $0.contains("home node") }
            text += "\(node.nodeName) log:\n" + lines.suffix(20).joined(separator: "\n") + "\n"
        }
        return text
    }

    /// Stops every node still running, then the epmd.
    public func stop() async throws {
        for node in nodes { try await node.stop() }
        _ = try await epmd.stop()
    }
}
