import RecorderModel
import RecorderRuntime

/// Wakes one waiter, now or the next time it waits (a signal given while nobody waits is kept).
final class WakeSignal: Sendable {
    private let state = LockedValue<(pending: Bool, waiter: TimedWait?)>((false, nil))

    func signal() {
        let waiter = state.withLock { s -> TimedWait? in
            guard let w = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resolve(true)
    }

    /// Returns when signalled (true) or after `timeout` seconds (false).
    func wait(timeout: Double) async -> Bool {
        let wait = TimedWait()
        let ready = state.withLock { s -> Bool in
            if s.pending {
                s.pending = false
                return true
            }
            s.waiter = wait
            return false
        }
        if ready { return true }
        return await wait.value(timeout: timeout) { [state] in
            state.withLock { s in
                guard s.waiter === wait else { return false }
                s.waiter = nil
                return true
            }
        }
    }
}
