import RecorderModel

/// Wakes one waiter, now or the next time it waits (a signal given while nobody waits is kept).
final class WakeSignal: Sendable {
    private let state = LockedValue<(pending: Bool, waiter: PublishWait?)>((false, nil))

    func signal() {
        let waiter = state.withLock { s -> PublishWait? in
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
        let wait = PublishWait()
        let ready = state.withLock { s -> Bool in
            if s.pending {
                s.pending = false
                return true
            }
            s.waiter = wait
            return false
        }
        if ready { return true }
        let timer = Task {
            do { try await Task.sleep(for: .seconds(timeout)) } catch { return }
            let mine = state.withLock { s -> Bool in
                guard s.waiter === wait else { return false }
                s.waiter = nil
                return true
            }
            if mine { wait.resolve(false) }
        }
        let signalled = await withTaskCancellationHandler { await wait.value() } onCancel: { wait.resolve(false) }
        timer.cancel()
        return signalled
    }
}
