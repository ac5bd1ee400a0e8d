import CMosquitto
import FoundationEssentials
import Glibc
import RecorderConfiguration
import RecorderRuntime
import RecorderModel
import Dispatch

/// A connection to an MQTT broker through libmosquitto (Eclipse Mosquitto's own client library,
/// Debian's `libmosquitto-dev`: the same project as the broker the tests run, MQTT 3.1.1 and 5,
/// TLS, Last Will, automatic reconnection).
///
/// The connection runs on a network thread of its own (`mosquitto_loop` in a loop of ours, which
/// reconnects after any end — to the broker's next node when it has several — with libmosquitto's
/// back-off): nothing here blocks the cooperative pool. Its callbacks arrive on that thread and
/// are handed on through `events` (connection changes) and `messages` (received publications,
/// bounded).
public final class MQTTClient: Sendable {
    /// What the connection did.
    public enum Event: Sendable, Equatable {
        case connected
        /// The broker refused the connection (bad credentials, not authorised, the protocol); retried.
        case refused(String)
        /// The broker refused MQTT 5 and `auto` goes on with 3.1.1 (what it said, what comes next).
        case protocolFallback(String)
        /// The connection dropped (or could not be made); libmosquitto reconnects.
        case disconnected(String)
    }

    /// An event and the node it happened on: the index in `Options.nodes` of the node connected
    /// to or tried when it happened (by the time a reader sees a disconnection, the network
    /// thread may be trying the next node already).
    public struct NodeEvent: Sendable, Equatable {
        public var event: Event
        public var node: Int
    }

    /// A received publication.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
    }

    /// A Last Will: what the broker publishes when the client goes without a word.
    public struct Will: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int32
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = true) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    /// How to reach the broker.
    public struct Options: Sendable {
        public var clientID: String
        public var host: String
        public var port: Int
        public var keepalive: Int = 30
        public var useTLS = false
        /// PEM files; with TLS and no CA, the system's CAs are trusted.
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        public var username: String?
        public var password: String?
        public var will: Will?
        /// Received publications held for the reader; beyond, new ones are dropped and counted.
        public var messageBuffer = 256
        /// The protocol: MQTT 5, 3.1.1, or 5 falling back to 3.1.1 when the broker refuses 5.
        public var protocolChoice = MQTTProtocolChoice.auto
        /// The broker's other nodes (a cluster, or a standby), tried in turn after `host` and
        /// `port` (`MQTTNodeRotation`).
        public var otherNodes: [Node] = []

        public init(clientID: String, host: String, port: Int) {
            self.clientID = clientID
            self.host = host
            self.port = port
        }

        /// Every node, `host` and `port` first.
        public var nodes: [Node] { [Node(host: host, port: port)] + otherNodes }
    }

    /// A node of the broker.
    public struct Node: Sendable, Equatable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The connection's events, in order, each with its node.
    public let events: AsyncStream<NodeEvent>
    /// Received publications, in order (at most `Options.messageBuffer` waiting).
    public let messages: AsyncStream<Message>
    let handle: MQTTHandle
    var callbacks: MQTTCallbacks { handle.callbacks }

    private static let libraryInitialised: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Prepares a client (nothing is sent until `start`).
    public init(options: Options) throws(MQTTClientError) {
        _ = Self.libraryInitialised
        let (events, eventContinuation) = AsyncStream.makeStream(of: NodeEvent.self)
        let (messages, messageContinuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingOldest(options.messageBuffer))
        self.events = events
        self.messages = messages
        let callbacks = MQTTCallbacks(events: eventContinuation, messages: messageContinuation, protocolChoice: options.protocolChoice)
        guard let mosq = mosquitto_new(options.clientID, true, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            throw .library("mosquitto_new", "out of memory or an invalid client id")
        }
        handle = MQTTHandle(mosq, callbacks: callbacks)
        try configure(options)
    }

    private func configure(_ options: Options) throws(MQTTClientError) {
        let mosq = handle.pointer
        // Calls come from other threads than the network thread: libmosquitto locks for them.
        try check(mosquitto_threaded_set(mosq, true), "threaded")
        let version = options.protocolChoice == .v311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5
        try check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes {
                mosquitto_will_set(mosq, will.topic, Int32($0.count), $0.baseAddress, will.qos, will.retain)
            }
            try check(rc, "will")
        }
        if let username = options.username {
            try check(mosquitto_username_pw_set(mosq, username, options.password), "username")
        }
        if options.useTLS {
            if options.caFile == nil { try check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "system CAs") }
            try check(mosquitto_tls_set(mosq, options.caFile, options.caFile == nil ? "/etc/ssl/certs" : nil, options.certificateFile,
                                        options.keyFile, nil), "TLS files")
        }
        mosquitto_connect_callback_set(mosq) { mosq, context, rc in
            MQTTCallbacks.from(context).connected(rc, mosq)
        }
        mosquitto_disconnect_callback_set(mosq) { mosq, context, rc in
            MQTTCallbacks.from(context).disconnected(rc, mosq)
        }
        mosquitto_log_callback_set(mosq) { _, context, level, text in
            MQTTCallbacks.from(context).logged(level, text.map { String(cString: $0) })
        }
        mosquitto_message_callback_set(mosq) { _, context, message in
            guard let message else { return }
            MQTTCallbacks.from(context).received(message.pointee)
        }
        mosquitto_publish_callback_set(mosq) { _, context, mid in
            MQTTCallbacks.from(context).published(mid)
        }
        handle.keepalive = Int32(options.keepalive)
        handle.nodes = options.nodes
    }

    /// How long `stop`'s DISCONNECT may take to be written before the connection is dropped.
    static let disconnectSeconds = 2.0

    /// FD_SETSIZE: the descriptors select() (inside `mosquitto_loop`) can wait on are below it.
    static let selectLimit: Int32 = 1024

    /// Starts the connection, made (and remade after any end) on the network thread: a node's
    /// connection (its name lookup and connect), run by `mosquitto_loop` until it ends or cannot
    /// be made — dropped, refused, a protocol or TLS error — then the next node, or a wait
    /// (`MQTTNodeRotation`: 1, 4, 9, 16, 25 then 30 s once every node failed in a row).
    public func start() {
        let handle = self.handle
        handle.started.withLock { $0 = true }
        ThreadName.start("mqtt") {
            defer { handle.ended.signal() }
            var rotation = MQTTNodeRotation(count: handle.nodes.count)
            var node = 0
            while !handle.stopping.withLock({ $0 }) {
                handle.callbacks.node.withLock { $0 = node }
                let acceptedBefore = handle.callbacks.accepted.withLock { $0 }
                let began = SystemClock.monotonicUptime()
                let target = handle.nodes[node]
                let rc = mosquitto_connect_async(handle.pointer, target.host, Int32(target.port), handle.keepalive)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    // Until the connection ends (libmosquitto calls the disconnect callback); a
                    // publication from another thread wakes the wait. After `stop`, until its
                    // DISCONNECT is written and the connection closed (this loop writes what other
                    // threads queue), at most 2 s: left before, the socket closed without it and
                    // the broker published the Will ("connection lost") over the "stopped" status
                    // (one run of the fleet suite).
                    var looped = MOSQ_ERR_SUCCESS.rawValue
                    var stopDeadline: Double?
                    while true {
                        if handle.stopping.withLock({ $0 }) {
                            let now = SystemClock.monotonicUptime()
                            let deadline = stopDeadline ?? now + Self.disconnectSeconds
                            stopDeadline = deadline
                            if now >= deadline { break }
                        }
                        looped = mosquitto_loop(handle.pointer, stopDeadline == nil ? 1000 : 100, 1)
                        if looped != MOSQ_ERR_SUCCESS.rawValue { break }
                    }
                    // mosquitto_loop waits with select(), which cannot take a descriptor numbered
                    // 1024 or more: with that many files open the connection can never be made
                    // (found when a test beside it held a thousand files). Said, not left silent.
                    let socket = mosquitto_socket(handle.pointer)
                    if looped == MOSQ_ERR_INVAL.rawValue, socket >= Self.selectLimit {
                        handle.callbacks.emit(.disconnected("the connection's descriptor (\(socket)) is beyond what libmosquitto's select() "
                            + "takes (\(Self.selectLimit)): this process has too many files open"))
                    }
                } else {
                    handle.callbacks.disconnected(rc)
                }
                if handle.stopping.withLock({ $0 }) { break }
                // The broker refused MQTT 5 and `auto` turned to 3.1.1: this node again, at once.
                if handle.callbacks.takeFallBack() { continue }
                let next = rotation.ended(wasAccepted: handle.callbacks.accepted.withLock { $0 } > acceptedBefore,
                                          lasted: SystemClock.monotonicUptime() - began)
                node = next.node
                // Woken early: stopping.
                if next.delay > 0, handle.wake.wait(timeout: .now() + .milliseconds(Int(next.delay * 1000))) == .success { break }
            }
        }
    }

    /// How many connections the broker accepted so far: a message published on one is not
    /// acknowledged on the next (a new session, perhaps on another node).
    public var connectionsAccepted: Int { callbacks.accepted.withLock { $0 } }

    /// Publishes; returns the message id (QoS 1 and 2: `waitPublished` tells when the broker has
    /// it). Fails when not connected.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32 = 0, retain: Bool = false) throws(MQTTClientError) -> Int32 {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes {
            mosquitto_publish(handle.pointer, &mid, topic, Int32($0.count), $0.baseAddress, qos, retain)
        }
        try check(rc, "publish")
        return mid
    }

    /// Subscribes (again after each reconnection: call it on `.connected`).
    public func subscribe(_ pattern: String, qos: Int32 = 1) throws(MQTTClientError) {
        try check(mosquitto_subscribe(handle.pointer, nil, pattern, qos), "subscribe")
    }

    /// Waits until the broker has acknowledged message `mid` (QoS 1), or `timeout` seconds.
    public func waitPublished(_ mid: Int32, timeout: Double) async -> Bool {
        await callbacks.waitPublished(mid, timeout: timeout)
    }

    /// Disconnects (the broker does not publish the Will) and waits for the network thread to end
    /// (at most a second, or the rest of libmosquitto's own wait before a reconnection).
    public func stop() {
        let first = handle.stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        if first {
            mosquitto_disconnect(handle.pointer)
            handle.wake.signal()
            if handle.started.withLock({ $0 }) { handle.ended.wait() }
            handle.stopped.signal()
        } else if handle.started.withLock({ $0 }) {
            // Another caller stops it: returns once it has.
            handle.stopped.wait()
            handle.stopped.signal()
        }
        callbacks.finish()
    }

    /// The protocol spoken (or tried next): `.v5` or `.v311`, never `.auto`.
    public var protocolInUse: MQTTProtocolChoice { callbacks.protocolState.withLock { $0.speaking } }

    /// Received publications dropped because the reader was behind.
    public var droppedMessages: Int { callbacks.dropped.withLock { $0 } }

    private func check(_ rc: Int32, _ what: String) throws(MQTTClientError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            if rc == MOSQ_ERR_NO_CONN.rawValue { throw .notConnected }
            throw .library(what, Self.describe(rc))
        }
    }

    /// libmosquitto's text for a result code (`MOSQ_ERR_ERRNO`: the system's).
    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }

    /// libmosquitto's text for a CONNACK code: MQTT 3.1.1's return codes (1–5) or MQTT 5's reason
    /// codes (128 and up), with the number.
    static func describeConnack(_ rc: Int32) -> String {
        let text = String(cString: rc >= 128 ? mosquitto_reason_string(rc) : mosquitto_connack_string(rc))
        return "\(text) (CONNACK \(rc))"
    }

    /// A CONNACK refusing the protocol version: 3.1.1's return code 1 or MQTT 5's reason 0x84
    /// (libmosquitto gives 0x84 too for a 3.1.1 broker's short CONNACK to a CONNECT of MQTT 5).
    static func refusesProtocolVersion(_ rc: Int32) -> Bool {
        rc == 1 || rc == 0x84
    }
}

/// The `struct mosquitto *`, destroyed with the client, and the callbacks' target, which lives
/// as long (its pointer is libmosquitto's `obj`). `@unchecked Sendable`: libmosquitto's calls
/// used here are thread-safe once its network thread runs (`mosquitto_loop_start` makes the
/// handle threaded); the connection parameters are set once, before `start`.
final class MQTTHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let callbacks: MQTTCallbacks
    var nodes: [MQTTClient.Node] = []
    var keepalive: Int32 = 30
    /// The network thread was started; `stop` was called.
    let started = LockedValue(false)
    let stopping = LockedValue(false)
    /// Wakes the network thread from its wait before reconnecting (`stop`).
    let wake = DispatchSemaphore(value: 0)
    /// The network thread ended; `stop` finished (signalled again for each later caller).
    let ended = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)

    init(_ pointer: OpaquePointer, callbacks: MQTTCallbacks) {
        self.pointer = pointer
        self.callbacks = callbacks
    }

    deinit {
        // The network thread holds the handle: it has ended by now.
        mosquitto_destroy(pointer)
    }
}
