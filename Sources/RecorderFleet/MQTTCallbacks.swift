import CMosquitto
import FoundationEssentials
import Glibc
import RecorderConfiguration
import RecorderModel
import RecorderRuntime

/// Where libmosquitto's callbacks land (on its network thread): events and messages go into
/// their streams; publish acknowledgements wake their waiters.
final class MQTTCallbacks: Sendable {
    struct Waiters {
        /// Acknowledged ids nobody waited for yet (a PUBACK can beat the waiter), bounded.
        var acknowledged: Set<Int32> = []
        var waiting: [Int32: TimedWait] = [:]
        var finished = false
    }

    /// The protocol spoken, and whether a refusal of MQTT 5 may still turn it to 3.1.1 (`auto`,
    /// until a connection is accepted: what worked is kept).
    struct ProtocolState: Equatable {
        var speaking: MQTTProtocolChoice
        var mayFallBack: Bool
        /// A CONNACK came on the connection now open.
        var answered = false
        /// libmosquitto logged an error since (a TLS handshake refused: no protocol matter).
        var failed = false
        /// The first error libmosquitto logged on the connection now open (its text).
        var failure: String?
        /// `mqtt.protocol` as configured.
        let choice: MQTTProtocolChoice
        /// A connection was accepted once.
        var everAccepted = false

        init(_ choice: MQTTProtocolChoice) {
            self.choice = choice
            speaking = choice == .v311 ? .v311 : .v5
            mayFallBack = choice == .auto
        }

        /// What the end of a connection means.
        enum Ending: Equatable {
            /// Try again with MQTT 3.1.1.
            case fallBack
            /// The broker would not have us, without a CONNACK: a TLS handshake it refused (or we
            /// did), or, with `protocol` "5", a connection closed on its CONNECT.
            case refused(String)
            /// The connection dropped or could not be made.
            case lost
        }

        enum Answer: Equatable {
            case connected
            /// Try again with MQTT 3.1.1.
            case fallBack
            case refused
        }

        /// What a CONNACK's code means here.
        mutating func connack(_ rc: Int32) -> Answer {
            answered = true
            if rc == 0 {
                mayFallBack = false
                everAccepted = true
                return .connected
            }
            guard mayFallBack, speaking == .v5, MQTTClient.refusesProtocolVersion(rc) else { return .refused }
            speaking = .v311
            mayFallBack = false
            return .fallBack
        }

        /// Whether a connection's end means the broker refused MQTT 5 without a word: it was
        /// made (libmosquitto's "connection lost", not a refused or failed connect) and closed
        /// before any CONNACK, while `auto` speaks 5 and has never been accepted — what RabbitMQ's
        /// plugin before 3.13 does ("cannot parse a frame"). Then 3.1.1 is next.
        /// With `protocol` "5", such a close is a refusal that says what to do; a TLS error logged
        /// before any answer is a refusal too, with libmosquitto's words.
        mutating func disconnected(_ rc: Int32) -> Ending {
            defer { (answered, failed, failure) = (false, false, nil) }
            if !answered, failed, let failure, failure.contains("SSL") {
                return .refused("the TLS handshake failed: \(failure)")
            }
            guard !answered, !failed, rc == Int32(MOSQ_ERR_CONN_LOST.rawValue), speaking == .v5 else { return .lost }
            if mayFallBack {
                speaking = .v311
                mayFallBack = false
                return .fallBack
            }
            if choice == .v5, !everAccepted {
                return .refused("the broker closed the connection on MQTT 5's CONNECT without an answer (a broker of MQTT 3.1.1 only "
                    + "does that: set mqtt.protocol to \"auto\" or \"3.1.1\")")
            }
            return .lost
        }
    }

    let events: AsyncStream<MQTTClient.NodeEvent>.Continuation
    /// The node the network thread connects to or tries now (it sets it before each attempt):
    /// each event is handed on with it.
    let node = LockedValue(0)
    let messages: AsyncStream<MQTTClient.Message>.Continuation
    let dropped = LockedValue(0)
    let waiters = LockedValue(Waiters())
    let protocolState: LockedValue<ProtocolState>
    /// Connections the broker accepted so far (the network thread's back-off starts over after one).
    let accepted = LockedValue(0)
    /// The connection that ended turned the protocol to 3.1.1: the network thread tries the same
    /// node again at once (`takeFallBack`).
    let fellBack = LockedValue(false)

    /// Whether the protocol was turned since the last call.
    func takeFallBack() -> Bool {
        fellBack.withLock { f in
            defer { f = false }
            return f
        }
    }

    init(events: AsyncStream<MQTTClient.NodeEvent>.Continuation, messages: AsyncStream<MQTTClient.Message>.Continuation,
         protocolChoice: MQTTProtocolChoice) {
        self.events = events
        self.messages = messages
        protocolState = LockedValue(ProtocolState(protocolChoice))
    }

    /// Hands `event` on with the node it happened on.
    func emit(_ event: MQTTClient.Event) {
        events.yield(MQTTClient.NodeEvent(event: event, node: node.withLock { $0 }))
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> MQTTCallbacks {
        Unmanaged<MQTTCallbacks>.fromOpaque(context!).takeUnretainedValue()
    }

    /// The CONNACK (on libmosquitto's network thread). `auto` refused MQTT 5 by a broker of 3.1.1:
    /// the next attempt (libmosquitto's reconnection, after its delay) speaks 3.1.1.
    func connected(_ rc: Int32, _ mosq: OpaquePointer?) {
        switch protocolState.withLock({ $0.connack(rc) }) {
        case .connected:
            accepted.withLock { $0 += 1 }
            emit(.connected)
        case .fallBack:
            mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            fellBack.withLock { $0 = true }
            emit(.protocolFallback("the broker refused MQTT 5 (\(MQTTClient.describeConnack(rc))): trying MQTT 3.1.1"))
        case .refused:
            emit(.refused(MQTTClient.describeConnack(rc)))
        }
    }

    /// libmosquitto logged at `level` (an error: the connection failed for a reason of its own,
    /// such as TLS).
    func logged(_ level: Int32, _ text: String?) {
        guard level & MOSQ_LOG_ERR != 0 else { return }
        protocolState.withLock { state in
            state.failed = true
            if state.failure == nil, let text { state.failure = String(text.prefix(300)) }
        }
    }

    func disconnected(_ rc: Int32, _ mosq: OpaquePointer? = nil) {
        switch protocolState.withLock({ $0.disconnected(rc) }) {
        case .fallBack:
            if let mosq {
                mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
                fellBack.withLock { $0 = true }
                emit(.protocolFallback("the broker closed the connection to MQTT 5 without an answer (\(MQTTClient.describe(rc))): trying MQTT 3.1.1"))
                return
            }
        case .refused(let why):
            emit(.refused(why))
        case .lost:
            break
        }
        emit(.disconnected(rc == 0 ? "disconnected" : MQTTClient.describe(rc)))
    }

    func received(_ message: mosquitto_message) {
        guard let topic = message.topic else { return }
        let count = Int(max(0, message.payloadlen))
        let payload = count == 0 ? [] : [UInt8](UnsafeRawBufferPointer(start: message.payload, count: count))
        if case .dropped = messages.yield(MQTTClient.Message(topic: String(cString: topic), payload: payload)) {
            dropped.withLock { $0 += 1 }
        }
    }

    func published(_ mid: Int32) {
        let waiter = waiters.withLock { w -> TimedWait? in
            if let c = w.waiting.removeValue(forKey: mid) { return c }
            if w.acknowledged.count >= 4096 { w.acknowledged.removeAll() }
            w.acknowledged.insert(mid)
            return nil
        }
        waiter?.resolve(true)
    }

    func waitPublished(_ mid: Int32, timeout: Double) async -> Bool {
        let wait = TimedWait()
        let early = waiters.withLock { w -> Bool? in
            if w.acknowledged.remove(mid) != nil { return true }
            if w.finished { return false }
            w.waiting[mid] = wait
            return nil
        }
        if let early { return early }
        return await wait.value(timeout: timeout) { [waiters] in
            waiters.withLock { w in w.waiting[mid] === wait ? w.waiting.removeValue(forKey: mid) != nil : false }
        }
    }

    func finish() {
        let pending = waiters.withLock { w in
            w.finished = true
            defer { w.waiting = [:] }
            return Array(w.waiting.values)
        }
        for wait in pending { wait.resolve(false) }
        events.finish()
        messages.finish()
    }
}
