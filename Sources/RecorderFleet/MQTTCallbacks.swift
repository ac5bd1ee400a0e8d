import CMosquitto
import Foundation
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

    let events: AsyncStream<MQTTClient.Event>.Continuation
    let messages: AsyncStream<MQTTClient.Message>.Continuation
    let dropped = LockedValue(0)
    let waiters = LockedValue(Waiters())

    init(events: AsyncStream<MQTTClient.Event>.Continuation, messages: AsyncStream<MQTTClient.Message>.Continuation) {
        self.events = events
        self.messages = messages
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> MQTTCallbacks {
        Unmanaged<MQTTCallbacks>.fromOpaque(context!).takeUnretainedValue()
    }

    func connected(_ rc: Int32) {
        events.yield(rc == 0 ? .connected : .refused(MQTTClient.describeConnack(rc)))
    }

    func disconnected(_ rc: Int32) {
        events.yield(.disconnected(rc == 0 ? "disconnected" : MQTTClient.describe(rc)))
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
