import FoundationEssentials
import Glibc
import RecorderModel

/// The retained message on `{prefix}/{site}/{device}/status`: whether the Pi is online, and what
/// it is doing. The broker keeps the last one; the Last Will replaces it with `offline` when the
/// Pi goes silent.
public struct FleetStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable { case online, offline }

    public var state: State
    public var site: String
    public var device: String
    /// When it was published (ISO 8601; absent in the Will, which the broker publishes later).
    public var time: String?
    /// Why it is offline: `stopped` (recorderd stopped), or `connection lost` (the Will).
    public var reason: String?
    public var version: String?
    public var uptimeSeconds: Double?
    public var devices: [Device]?
    public var disk: DiskUsage?
    public var taskRuns: [ActiveRun]?
    /// Ended runs not yet acknowledged by a collector.
    public var uploadsPending: Int?
    /// The Pi's wall clock: how well synchronised, as last asked.
    public var clock: ClockSynchronisation?

    /// A configured sensor device, as `daemon.status` lists it.
    public struct Device: Sendable, Codable, Equatable {
        public var name: String
        public var kind: String
        public var state: DeviceState
        public var error: String?

        public init(name: String, kind: String, state: DeviceState, error: String? = nil) {
            self.name = name
            self.kind = kind
            self.state = state
            self.error = error
        }
    }

    /// A task run recording now.
    public struct ActiveRun: Sendable, Codable, Equatable {
        public var taskIdentifier: String
        public var taskRunUUID: UUID
        public var currentStepPath: String?
        public var recording: [String]
        public var failed: [String]?

        public init(taskIdentifier: String, taskRunUUID: UUID, currentStepPath: String?, recording: [String], failed: [String]? = nil) {
            self.taskIdentifier = taskIdentifier
            self.taskRunUUID = taskRunUUID
            self.currentStepPath = currentStepPath
            self.recording = recording
            self.failed = failed
        }
    }

    public init(state: State, site: String, device: String, time: String? = nil, reason: String? = nil, version: String? = nil,
                uptimeSeconds: Double? = nil, devices: [Device]? = nil, disk: DiskUsage? = nil, clock: ClockSynchronisation? = nil,
                taskRuns: [ActiveRun]? = nil) {
        self.clock = clock
        self.state = state
        self.site = site
        self.device = device
        self.time = time
        self.reason = reason
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.devices = devices
        self.disk = disk
        self.taskRuns = taskRuns
    }

    /// The online status of a `daemon.status` answer.
    public init(site: String, device: String, time: String, daemon: DaemonStatus) {
        self.init(state: .online, site: site, device: device, time: time, version: daemon.version, uptimeSeconds: daemon.uptimeSeconds,
                  devices: daemon.devices.map { Device(name: $0.name, kind: $0.kind, state: $0.state, error: $0.error) },
                  disk: daemon.disk, clock: daemon.clock,
                  taskRuns: daemon.taskRuns.map {
                      ActiveRun(taskIdentifier: $0.taskIdentifier, taskRunUUID: $0.taskRunUUID, currentStepPath: $0.currentStepPath,
                              recording: $0.recording, failed: $0.failed)
                  })
    }
}

/// A message on `{prefix}/{site}/{device}/events` (QoS 1, not retained).
public struct FleetEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// recorderd connected to the broker (after starting, or after the link was down).
        case online
        case taskRunStarted
        /// A run is no longer recording: `status` says how it ended (finished, cancelled,
        /// interrupted, abandoned).
        case taskRunEnded
        /// A device became unavailable, or its error changed.
        case deviceFault
        /// A device that was unavailable is available again.
        case deviceRecovered
    }

    public var event: Kind
    public var time: String
    public var taskIdentifier: String?
    public var taskRunUUID: UUID?
    public var device: String?
    public var error: String?
    /// `taskRunEnded`: how it ended (finished, cancelled, interrupted, abandoned).
    public var status: TaskRunStatus?

    public init(event: Kind, time: String, taskIdentifier: String? = nil, taskRunUUID: UUID? = nil, device: String? = nil, error: String? = nil,
                status: TaskRunStatus? = nil) {
        self.status = status
        self.event = event
        self.time = time
        self.taskIdentifier = taskIdentifier
        self.taskRunUUID = taskRunUUID
        self.device = device
        self.error = error
    }
}
