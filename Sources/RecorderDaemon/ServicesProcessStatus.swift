import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// What `daemon.status` reports of the services process: written by `ServicesProcess`'s supervising
/// thread as it starts and reaps the child, read by the request router (a pthread lock: see
/// `LockedValue`).
public final class ServicesProcessStatus: Sendable {
    private let state = LockedValue<ServicesProcessInfo?>(nil)

    public init() {}

    /// nil until supervision begins (no `http` or `mqtt`: never).
    public var current: ServicesProcessInfo? { state.withLock { $0 } }

    /// Supervision began; nothing started yet.
    func began() { state.withLock { $0 = ServicesProcessInfo() } }

    /// A child was started.
    func started(pid: Int32) {
        state.withLock { info in
            var next = info ?? ServicesProcessInfo()
            next.pid = pid
            next.starts += 1
            next.fleet = nil
            next.page = nil
            info = next
        }
    }

    /// The child ended (`how`: `exit 3`, `signal 9`).
    func ended(_ how: String) {
        state.withLock { info in
            info?.pid = nil
            info?.lastEnd = how
            info?.fleet = nil
            info?.page = nil
        }
    }

    /// The running child reported its fleet link's state or its page's.
    func reported(_ report: ServicesReport) {
        state.withLock { info in
            if let fleet = report.fleet { info?.fleet = fleet }
            if let page = report.page { info?.page = page }
        }
    }
}
