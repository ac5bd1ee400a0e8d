import RecorderConfiguration
import RecorderModel
import Synchronization

/// The descriptors recorderd may open for its clients' work: its open-file limit less what it
/// needs whatever the clients do (`DaemonLimits.descriptorsBase` and the devices' share; the web
/// page runs in a process of its own, and its control connections are clients here).
/// Connections, task runs and recorders take theirs before they open anything and give them back
/// once closed, so a client that asks for more gets a clear `-32011` and the process never runs
/// out.
///
/// Running out is not an error recorderd could report: while work waits on its global queues,
/// libdispatch's worker monitor opens `/proc/<tid>/stat` once a second and kills the process
/// (SIGILL, "workq: registered worker exited prematurely") when that open fails
/// (swift-corelibs-libdispatch, src/event/workqueue.c). Swift concurrency's pool is such a queue.
public final class DescriptorBudget: Sendable {
    private let capacity = Atomic<Int>(.max / 2)
    private let used = Atomic<Int>(0)

    /// A budget of `capacity` descriptors (by default as good as unlimited, until `setOpenFileLimit`).
    public init(capacity: Int = .max / 2) {
        self.capacity.store(capacity, ordering: .relaxed)
    }

    /// Sizes the budget for the process's open-file limit with `devices` configured (at start and
    /// when the configuration is reloaded; what is taken stays taken).
    public func setOpenFileLimit(_ limit: Int, devices: Int) {
        capacity.store(Self.capacity(openFileLimit: limit, devices: devices), ordering: .releasing)
    }

    /// What clients may use under an open-file limit of `limit` with `devices` configured.
    public static func capacity(openFileLimit limit: Int, devices: Int) -> Int {
        max(0, min(limit, .max / 2) - DaemonLimits.descriptorsReserved(devices: devices))
    }

    /// The budget's size.
    public var limit: Int { capacity.load(ordering: .acquiring) }

    /// Descriptors left (negative when `takeOpened` overdrew it).
    public var available: Int { limit - used.load(ordering: .acquiring) }

    /// Takes `count` descriptors if that many are left; false (nothing taken) otherwise.
    public func take(_ count: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + count <= limit else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + count,
                                                             ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Counts a descriptor that is already open (an accepted connection), even past the budget;
    /// returns whether any are left for the next.
    @discardableResult
    public func takeOpened() -> Bool {
        used.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue < limit
    }

    /// Gives back `count` descriptors that were closed.
    public func give(_ count: Int) {
        used.wrappingSubtract(count, ordering: .acquiringAndReleasing)
    }
}
