import FoundationEssentials
import Glibc
import Logging
import RecorderClient
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import ServiceLifecycle

/// The Pi's link to its fleet (`mqtt` in the configuration): a `Service` beside the control
/// server that connects to the broker with a Last Will, publishes the retained status and the
/// events, uploads ended runs, publishes the `live` devices' records, and, when `remoteControl` is
/// on, carries out JSON-RPC requests from `cmd`.
///
/// Like the web page it is a client of the control socket: what it publishes is what
/// `daemon.status` answers, and a remote request is the socket's request. Nothing it meets (a
/// broker away for days, refused credentials, a malformed command) stops recorderd or a
/// recording: it logs and tries again.
public struct FleetAgent: Service {
    let configuration: MQTTConfiguration
    let topics: FleetTopics
    let deviceID: String
    let socketPath: String
    let dataDirectory: String
    let baseDirectory: String
    /// Seconds between looks at the daemon's state.
    let pollInterval: Double
    /// Told each change of the link's state (the services process passes it to recorderd for
    /// `daemon.status`).
    let report: @Sendable (FleetLinkInfo) -> Void
    let logger: Logger

    /// Remote requests carried out at once; beyond, a request is answered `limitReached`.
    static let concurrentRequests = 8

    /// The QoS of the Pi's subscriptions (commands, the collectors' answers, status requests): 0.
    /// The link's session is clean (a new one on every connection), so what QoS 1 would add —
    /// redelivery of what was unacknowledged — ends with the connection anyway, and TCP already
    /// delivers within one; what was lost meanwhile is asked again (the uploader's manifest, the
    /// sender's request timeout). On RabbitMQ (3.10's MQTT plugin) a QoS 1 subscription of a clean
    /// session is a durable classic queue on the node the Pi reached: once that node died and the
    /// others had dropped it from their live queues, each of the Pi's reconnections was refused
    /// ("home node … of durable queue … is down") until the node came back — quorum queues are for
    /// kept sessions only. A QoS 0 subscription's queue is transient, so it goes with its node.
    static let subscriptionQoS: Int32 = 0

    public init(configuration: MQTTConfiguration, socketPath: String, dataDirectory: String, baseDirectory: String,
                hostName: String = ProcessInfo.processInfo.hostName, pollInterval: Double = 1,
                report: @escaping @Sendable (FleetLinkInfo) -> Void = { _ in }, logger: Logger) {
        self.configuration = configuration
        deviceID = configuration.deviceID(hostName: hostName)
        topics = FleetTopics(prefix: configuration.topicPrefix, site: configuration.site, device: deviceID)
        self.socketPath = socketPath
        self.dataDirectory = dataDirectory
        self.baseDirectory = baseDirectory
        self.pollInterval = pollInterval
        self.report = report
        self.logger = logger
    }

    public func run() async throws {
        let client: MQTTClient
        do {
            client = try MQTTClient(options: try options())
        } catch {
            // The configuration was checked when it was read; what fails here (a password file
            // removed since) leaves recorderd recording without the fleet link.
            logger.error("fleet link off: cannot set up the MQTT client", metadata: ["error": "\(error)"])
            return
        }
        let control = ControlLink(socketPath: socketPath)
        let rules = LockedRules(FleetStatusRules(site: configuration.site, device: deviceID, statusInterval: configuration.statusInterval))
        let (commands, commandInput) = AsyncStream.makeStream(of: MQTTClient.Message.self, bufferingPolicy: .bufferingOldest(64))
        let wake = WakeSignal()
        let acks = AckInbox()
        let links = Links(client: client, control: control, rules: rules, wake: wake)
        let isConnected: @Sendable () -> Bool = { rules.withLock { $0.isConnected } }
        client.start()
        logger.notice("fleet link starting", metadata: ["broker": "\(configuration.nodes.map(\.url).joined(separator: " "))", "topics": "\(topics.base)/#",
                                                       "remoteControl": "\(configuration.remoteControl)", "upload": "\(configuration.upload)"])
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followConnection(links) }
            group.addTask { await self.watchDaemon(links) }
            group.addTask { await self.dispatch(client.messages, commands: commandInput, acks: acks, links: links) }
            group.addTask { await self.serveCommands(commands, client: client, control: control) }
            if configuration.upload {
                var uploader = RunUploader(client: client, control: control, outbox: RunOutbox(dataDirectory: dataDirectory), topics: topics, acks: acks,
                                           isConnected: isConnected, logger: logger)
                uploader.bytesPerSecond = configuration.uploadBandwidth
                uploader.deleteAfterUpload = configuration.deleteAfterUpload
                uploader.keepFreeBytes = configuration.keepFreeBytes
                group.addTask {
                    await uploader.run(wake: wake) { pending in rules.withLock { $0.uploadsPending = pending } }
                }
            }
            if !configuration.live.isEmpty {
                let live = LivePublisher(streams: configuration.live, topics: topics, socketPath: socketPath, client: client,
                                         isConnected: isConnected, logger: logger)
                group.addTask { await live.run() }
            }
            // recorderd stopping: the offline status (the Will is for a silent end), then away.
            try? await gracefulShutdown()
            await self.publishOffline(client)
            client.stop()
            await control.close()
            // The uploader may be waiting for an answer or a wake-up: end it too.
            group.cancelAll()
        }
    }

    /// The client's options from the configuration (the password read now, its first line).
    func options() throws -> MQTTClient.Options {
        var o = MQTTClient.Options(clientID: "recorderd-\(configuration.site)-\(deviceID)", host: configuration.host, port: configuration.port)
        o.otherNodes = configuration.nodes.dropFirst().map { MQTTClient.Node(host: $0.host, port: $0.port) }
        o.keepalive = configuration.keepalive
        o.protocolChoice = configuration.protocolChoice
        o.useTLS = configuration.usesTLS
        o.caFile = configuration.tls?.ca.map(resolve)
        o.certificateFile = configuration.tls?.certificate.map(resolve)
        o.keyFile = configuration.tls?.key.map(resolve)
        o.username = configuration.username
        if let file = configuration.passwordFile {
            let text = try String(contentsOfFile: resolve(file), encoding: .utf8)
            o.password = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
        let will = FleetStatus(state: .offline, site: configuration.site, device: deviceID, reason: "connection lost")
        o.will = MQTTClient.Will(topic: topics.status, payload: Self.encode(will), qos: 1, retain: true)
        return o
    }

    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : baseDirectory + "/" + path
    }

    // MARK: The connection

    /// What the loops share.
    struct Links: Sendable {
        let client: MQTTClient
        let control: ControlLink
        let rules: LockedRules
        /// Wakes the uploader (a run ended).
        let wake: WakeSignal
    }

    func followConnection(_ links: Links) async {
        let (client, rules) = (links.client, links.rules)
        // A broker away for long: a line when the link drops, then one every 10 minutes. A broker
        // that refuses us (credentials, authorisation, protocol): what it answered, a line a
        // minute at most — a configuration to mend, not a network to wait for — and not the
        // disconnection that follows each refusal.
        var lastDown: (reason: String, at: ContinuousClock.Instant)?
        var lastRefusal: (answer: String, at: ContinuousClock.Instant)?
        var refusedSinceConnected = false
        // The node an event happened on (of a cluster's, in turn).
        var eventNode = 0
        func node() -> String {
            let nodes = configuration.nodes
            return nodes[min(max(0, eventNode), nodes.count - 1)].url
        }
        var linkState = FleetLinkInfo(state: .connecting, broker: node(), protocolVersion: client.protocolInUse.rawValue,
                                      since: Self.timestamp())
        report(linkState)
        func change(_ state: FleetLinkInfo.State, _ detail: String?) {
            let broker = node()
            let same = linkState.state == state && linkState.detail == detail && linkState.broker == broker
            let next = FleetLinkInfo(state: state, broker: broker, protocolVersion: client.protocolInUse.rawValue, detail: detail,
                                     since: same ? linkState.since : Self.timestamp())
            guard next != linkState else { return }
            linkState = next
            report(next)
        }
        for await occurrence in client.events {
            let now = ContinuousClock.now
            eventNode = occurrence.node
            switch occurrence.event {
            case .connected:
                refusedSinceConnected = false
                change(.connected, nil)
                logger.notice("fleet link connected", metadata: ["broker": "\(node())", "protocol": "MQTT \(client.protocolInUse.rawValue)"])
                do {
                    try client.subscribe(topics.command, qos: Self.subscriptionQoS)
                    try client.subscribe(topics.acknowledgements, qos: Self.subscriptionQoS)
                    try client.subscribe(FleetTopics.statusRequest(prefix: configuration.topicPrefix), qos: Self.subscriptionQoS)
                } catch {
                    logger.error("fleet link cannot subscribe to its commands", metadata: ["error": "\(error)"])
                }
                perform(rules.withLock { $0.connected(now: SystemClock.monotonicUptime(), time: Self.timestamp()) }, links)
                links.wake.signal()
            case .protocolFallback(let why):
                logger.notice("fleet link: \(why)", metadata: ["broker": "\(node())"])
                change(.connecting, why)
            case .refused(let answer):
                rules.withLock { $0.disconnected() }
                refusedSinceConnected = true
                change(.refused, answer)
                if !Task.isShuttingDownGracefully, lastRefusal?.answer != answer || now - lastRefusal!.at > .seconds(60) {
                    logger.error("fleet link refused by the broker; retrying", metadata: ["broker": "\(node())", "answer": "\(answer)"])
                    lastRefusal = (answer, now)
                }
            case .disconnected(let reason):
                let wasConnected = rules.withLock { r in
                    defer { r.disconnected() }
                    return r.isConnected
                }
                if Task.isShuttingDownGracefully || (refusedSinceConnected && !wasConnected) {
                    // recorderd stopping (the link closed on purpose), or the close after a refusal.
                    break
                }
                change(.down, reason)
                if wasConnected || lastDown?.reason != reason || now - lastDown!.at > .seconds(600) {
                    logger.warning("fleet link down; reconnecting", metadata: ["broker": "\(node())", "reason": "\(reason)"])
                    lastDown = (reason, now)
                }
            }
        }
    }

    /// Looks at the daemon every `pollInterval` and publishes what the rules say.
    func watchDaemon(_ links: Links) async {
        let (control, rules) = (links.control, links.rules)
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let disk = rules.withLock { $0.wantsDisk(now: SystemClock.monotonicUptime()) }
            do {
                let status = try await control.with { client throws(RecorderClientError) in try await client.status(disk: disk) }
                perform(rules.withLock { $0.observed(status, now: SystemClock.monotonicUptime(), time: Self.timestamp()) }, links)
            } catch {
                // recorderd is starting or stopping: the next look tries again.
                logger.debug("fleet link cannot read the daemon's status", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(pollInterval))
        }
    }

    func perform(_ actions: [FleetStatusRules.Action], _ links: Links) {
        let client = links.client
        for action in actions {
            if case .publishEvent(let event) = action, event.event == .taskRunEnded { links.wake.signal() }
            do {
                switch action {
                case .publishStatus(let status):
                    try client.publish(topic: topics.status, payload: Self.encode(status), qos: 1, retain: true)
                case .publishEvent(let event):
                    try client.publish(topic: topics.events, payload: Self.encode(event), qos: 1)
                    logger.info("fleet event", metadata: ["event": "\(event.event.rawValue)"])
                }
            } catch {
                // Not connected: the status is published again on connecting.
                logger.debug("fleet link cannot publish", metadata: ["error": "\(error)"])
            }
        }
    }

    func publishOffline(_ client: MQTTClient) async {
        let offline = FleetStatus(state: .offline, site: configuration.site, device: deviceID, time: Self.timestamp(), reason: "stopped")
        guard let mid = try? client.publish(topic: topics.status, payload: Self.encode(offline), qos: 1, retain: true) else { return }
        if await client.waitPublished(mid, timeout: 2) {
            logger.notice("fleet link: offline published")
        } else {
            logger.warning("fleet link: the broker did not acknowledge the offline status within 2 s (the Will follows)")
        }
    }

    // MARK: Remote control

    /// Hands each received message to its reader: commands, the collectors' answers, and fleet
    /// views' status requests (answered here: a publication).
    func dispatch(_ messages: AsyncStream<MQTTClient.Message>, commands: AsyncStream<MQTTClient.Message>.Continuation, acks: AckInbox,
                  links: Links) async {
        let statusRequest = FleetTopics.statusRequest(prefix: configuration.topicPrefix)
        for await message in messages {
            if message.topic == statusRequest {
                perform(links.rules.withLock { $0.statusRequested(now: SystemClock.monotonicUptime(), time: Self.timestamp()) }, links)
            } else if message.topic == topics.command {
                if case .dropped = commands.yield(message) { logger.warning("fleet link: command dropped (64 waiting)") }
            } else if message.topic.hasPrefix(topics.base + "/runs/"), message.topic.hasSuffix("/ack") {
                guard let ack = try? JSONValueDecoder().decode(UploadAck.self, from: message.payload) else { continue }
                acks.deliver(ack)
            }
        }
        commands.finish()
    }

    func serveCommands(_ commands: AsyncStream<MQTTClient.Message>, client: MQTTClient, control: ControlLink) async {
        let inFlight = LockedValue(0)
        var ignored = 0
        var lastIgnoredLog: ContinuousClock.Instant?
        await withDiscardingTaskGroup { group in
            for await message in commands {
                guard configuration.remoteControl else {
                    ignored += 1
                    let now = ContinuousClock.now
                    if lastIgnoredLog == nil || now - lastIgnoredLog! > .seconds(60) {
                        logger.warning("fleet link: command ignored (mqtt.remoteControl is off)",
                                       metadata: ["topic": "\(message.topic)", "bytes": "\(message.payload.count)", "ignoredSoFar": "\(ignored)"])
                        lastIgnoredLog = now
                    }
                    continue
                }
                switch RemoteControl.decide(message.payload) {
                case .reply(let response):
                    logger.info("fleet link: command refused", metadata: ["error": "\(response.error?.message ?? "")"])
                    publishReply(response, client)
                case .forward(let id, let method, let params):
                    let admitted = inFlight.withLock { n in
                        guard n < Self.concurrentRequests else { return false }
                        n += 1
                        return true
                    }
                    guard admitted else {
                        if let id { publishReply(JSONRPCResponse(id: id, error: RPCError(.limitReached, "limit reached: \(Self.concurrentRequests) remote requests at once")), client) }
                        continue
                    }
                    logger.info("fleet link: command", metadata: ["method": "\(method)"])
                    group.addTask {
                        defer { inFlight.withLock { $0 -= 1 } }
                        let response: JSONRPCResponse
                        do {
                            let message = try await control.with { c throws(RecorderClientError) in try await c.send(method: method, params: params) }
                            response = RemoteControl.reply(to: id ?? .null, message)
                        } catch {
                            response = JSONRPCResponse(id: id ?? .null, error: RPCError(.internalError, "recorderd's control socket: \(error)"))
                        }
                        if id != nil { publishReply(response, client) }
                    }
                }
            }
        }
    }

    func publishReply(_ response: JSONRPCResponse, _ client: MQTTClient) {
        do {
            try client.publish(topic: topics.reply, payload: RemoteControl.encode(response), qos: 1)
        } catch {
            logger.warning("fleet link cannot publish a reply", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Helpers

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        (try? JSONTextEncoder().encode(value)) ?? []
    }

    static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

/// The rules, shared by the connection's and the daemon's loops.
typealias LockedRules = LockedValue<FleetStatusRules>
