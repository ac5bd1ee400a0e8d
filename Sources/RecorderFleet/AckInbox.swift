import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// The collectors' answers for the run being uploaded: the latest one is kept until taken, and a
/// waiter is woken by the next (or by its timeout).
final class AckInbox: Sendable {
    struct State {
        var latest: [UUID: UploadAck] = [:]
        var waiter: (run: UUID, wait: TimedWait, ack: LockedValue<UploadAck?>)?
    }

    private let state = LockedValue(State())

    func deliver(_ ack: UploadAck) {
        let woken = state.withLock { s -> (TimedWait, LockedValue<UploadAck?>)? in
            if let w = s.waiter, w.run == ack.taskRunUUID {
                s.waiter = nil
                return (w.wait, w.ack)
            }
            // Only the run in hand matters; keep a bounded few others (a late answer is dropped).
            if s.latest.count > 64 { s.latest.removeAll() }
            s.latest[ack.taskRunUUID] = ack
            return nil
        }
        if let (wait, slot) = woken {
            slot.withLock { $0 = ack }
            wait.resolve(true)
        }
    }

    /// Forgets what came for `run` so far.
    func clear(_ run: UUID) {
        state.withLock { _ = $0.latest.removeValue(forKey: run) }
    }

    /// The next answer for `run` (one already here at once), or nil after `timeout` seconds.
    func next(_ run: UUID, timeout: Double) async -> UploadAck? {
        let wait = TimedWait()
        let slot = LockedValue<UploadAck?>(nil)
        let ready = state.withLock { s -> UploadAck? in
            if let ack = s.latest.removeValue(forKey: run) { return ack }
            s.waiter = (run, wait, slot)
            return nil
        }
        if let ready { return ready }
        let arrived = await wait.value(timeout: timeout) { [state] in
            state.withLock { s in
                guard s.waiter?.wait === wait else { return false }
                s.waiter = nil
                return true
            }
        }
        return arrived ? slot.withLock { $0 } : nil
    }
}
