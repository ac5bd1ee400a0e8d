import FoundationEssentials
import Glibc
import RecorderModel
import RecorderProtocol

/// When the fleet link publishes the Pi's status and events, from successive `daemon.status`
/// answers: no I/O, tested alone.
///
/// The status is published on connecting, at once when something a fleet view shows changes (a
/// device's state or error, the runs and their steps), and every `statusInterval` otherwise
/// (uptime and disk space move all the time). Events are the differences between two answers:
/// runs started and ended, devices failing and recovering.
struct FleetStatusRules {
    enum Action: Equatable {
        case publishStatus(FleetStatus)
        case publishEvent(FleetEvent)
    }

    let site: String
    let device: String
    let statusInterval: Double
    private(set) var isConnected = false
    /// Ended runs not yet acknowledged by a collector (the uploader says).
    var uploadsPending: Int?
    private var previous: DaemonStatus?
    private var published: (status: FleetStatus, at: Double)?
    /// When a status request was last answered.
    private var requestAnswered: Double?
    /// At most one answer to status requests a second, however often a view asks.
    static let requestAnswerInterval = 1.0

    init(site: String, device: String, statusInterval: Double) {
        self.site = site
        self.device = device
        self.statusInterval = statusInterval
    }

    /// Whether the next look should measure the disk (a walk over the runs' files): only when the
    /// interval's status is due.
    func wantsDisk(now: Double) -> Bool {
        guard let published else { return true }
        return now - published.at >= statusInterval
    }

    /// The broker accepted the connection: the status again (the link was down; the Will may have
    /// replaced it) and an `online` event.
    mutating func connected(now: Double, time: String) -> [Action] {
        isConnected = true
        var actions = [Action.publishEvent(FleetEvent(event: .online, time: time))]
        if let previous {
            var status = FleetStatus(site: site, device: device, time: time, daemon: previous)
            status.uploadsPending = uploadsPending
            published = (status, now)
            actions.append(.publishStatus(status))
        }
        return actions
    }

    mutating func disconnected() {
        isConnected = false
    }

    /// A fleet view asked for the status (`FleetTopics.statusRequest`): published again, at most
    /// once a second; nothing before the daemon's first answer or while disconnected.
    mutating func statusRequested(now: Double, time: String) -> [Action] {
        guard isConnected, let previous else { return [] }
        if let requestAnswered, now - requestAnswered < Self.requestAnswerInterval { return [] }
        requestAnswered = now
        var status = FleetStatus(site: site, device: device, time: time, daemon: previous)
        status.uploadsPending = uploadsPending
        published = (status, now)
        return [.publishStatus(status)]
    }

    /// A new answer of the daemon.
    mutating func observed(_ daemon: DaemonStatus, now: Double, time: String) -> [Action] {
        var actions: [Action] = []
        if let previous {
            actions += Self.events(from: previous, to: daemon, time: time)
        }
        var current = daemon
        // An answer without the disk keeps the last one measured.
        if current.disk == nil { current.disk = previous?.disk }
        previous = current
        guard isConnected else { return actions }
        var status = FleetStatus(site: site, device: device, time: time, daemon: current)
        status.uploadsPending = uploadsPending
        if let published, !Self.differs(published.status, status), now - published.at < statusInterval { return actions }
        published = (status, now)
        actions.append(.publishStatus(status))
        return actions
    }

    /// Whether what a fleet view shows differs (not the time, uptime, disk, or the clock's offset:
    /// whether it is synchronised does).
    static func differs(_ a: FleetStatus, _ b: FleetStatus) -> Bool {
        a.devices != b.devices || a.taskRuns != b.taskRuns || a.version != b.version || a.uploadsPending != b.uploadsPending
            || a.clock?.synchronised != b.clock?.synchronised || a.clock?.source != b.clock?.source
    }

    static func events(from old: DaemonStatus, to new: DaemonStatus, time: String) -> [Action] {
        var actions: [Action] = []
        let oldRuns = Set(old.taskRuns.map(\.taskRunUUID))
        let newRuns = Set(new.taskRuns.map(\.taskRunUUID))
        for run in new.taskRuns where !oldRuns.contains(run.taskRunUUID) {
            actions.append(.publishEvent(FleetEvent(event: .taskRunStarted, time: time, taskIdentifier: run.taskIdentifier, taskRunUUID: run.taskRunUUID)))
        }
        // Runs that ended since the last look, with how: also those that started after it (a run
        // shorter than the look's interval gets both events).
        let endedBefore = Set((old.recentlyEnded ?? []).map(\.taskRunUUID))
        var endedNow = Set<UUID>()
        for run in new.recentlyEnded ?? [] where !endedBefore.contains(run.taskRunUUID) {
            endedNow.insert(run.taskRunUUID)
            if !oldRuns.contains(run.taskRunUUID) {
                actions.append(.publishEvent(FleetEvent(event: .taskRunStarted, time: time, taskIdentifier: run.taskIdentifier, taskRunUUID: run.taskRunUUID)))
            }
            actions.append(.publishEvent(FleetEvent(event: .taskRunEnded, time: run.ended, taskIdentifier: run.taskIdentifier, taskRunUUID: run.taskRunUUID,
                                                    status: run.status)))
        }
        // A recorderd without the list (or more ended in one look than it keeps): ended, how unknown.
        for run in old.taskRuns where !newRuns.contains(run.taskRunUUID) && !endedNow.contains(run.taskRunUUID) {
            actions.append(.publishEvent(FleetEvent(event: .taskRunEnded, time: time, taskIdentifier: run.taskIdentifier, taskRunUUID: run.taskRunUUID)))
        }
        let oldDevices = Dictionary(old.devices.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for d in new.devices {
            let before = oldDevices[d.name]
            let wasFaulty = before?.state == .unavailable
            if d.state == .unavailable, !wasFaulty || before?.error != d.error {
                actions.append(.publishEvent(FleetEvent(event: .deviceFault, time: time, device: d.name, error: d.error)))
            } else if d.state != .unavailable, wasFaulty {
                actions.append(.publishEvent(FleetEvent(event: .deviceRecovered, time: time, device: d.name)))
            }
        }
        return actions
    }
}
