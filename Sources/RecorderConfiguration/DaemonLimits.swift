import RecorderJSON

/// What recorderd lets its clients use at once (`limits` in `recorderd.json`). Reaching a limit is
/// a clear error (`-32011`), never a crash or a stall. The open-file limit recorderd needs
/// follows from them (`descriptorsNeeded`); the systemd unit's `LimitNOFILE` covers the defaults
/// with room to spare.
public struct DaemonLimits: Sendable, Equatable, Codable {
    /// Control connections open at once; one more is answered with `-32011` and closed.
    public var connections: Int = 64
    /// Task runs recording at once; one more `task.start` is `-32011`.
    public var taskRuns: Int = 16
    /// Async actions (recorders) in one task run; more is `-32011`.
    public var recordersPerRun: Int = 16
    /// Seconds a request line may take from its first byte to its newline; longer is `-32009` and
    /// the connection is closed (a slow link may need more).
    public var lineTimeout: Double = 10

    /// Allowed values of each limit.
    public static let connectionsRange = 1...4096
    public static let taskRunsRange = 1...256
    public static let recordersPerRunRange = 1...256
    public static let lineTimeoutRange = NumberRange(atLeast: 1, atMost: 3600, "seconds")

    /// Live subscriptions one connection may hold; one more is `-32011`.
    public static let subscriptionsPerConnection = 16
    /// Bytes of unfinished request lines all connections may hold together; a connection whose
    /// line would exceed it gets `-32009` and is closed.
    public static let inputBudget = 16 << 20
    /// Bytes of replies and notifications a connection may have waiting for the client to read.
    /// Above the socket's high-water mark recorderd stops reading the connection's requests; past
    /// this the connection is closed.
    public static let maximumPendingOutput = 4 << 20
    /// Seconds a connection may stay unable to take replies (the client reads nothing) before it
    /// is closed.
    public static let unwritableTimeout = 60.0
    /// Descriptors a device may hold (a libiio context and buffers, a gpsd socket, a PCM and its
    /// poll descriptors, wake pipes).
    public static let descriptorsPerDevice = 8
    /// Descriptors a recorder holds: its JSON-lines file, a WAV, and one being opened.
    public static let descriptorsPerRecorder = 3
    /// Descriptors a task run holds besides its recorders (manifest writes, the space reserve).
    public static let descriptorsPerRun = 2
    /// Everything else: standard streams, the event loop, journald, the listening socket, libraries.
    public static let descriptorsBase = 64
    /// HTTP connections the web page (`http`) holds at once; more wait in its listening socket's
    /// backlog until one closes.
    public static let webConnections = 32
    /// Descriptors the web page may hold, in `recorderd-services`: per HTTP connection the
    /// connection, its control connection's end, and a file it makes or sends.
    public static let webPageDescriptors = webConnections * 3
    /// Open files `recorderd-services` needs: its own (as recorderd's) and the web page's. It
    /// inherits recorderd's limit (the unit's `LimitNOFILE`). The page's control connections are
    /// client connections to recorderd, counted there like any other.
    public static let servicesDescriptorsNeeded = descriptorsBase + webPageDescriptors

    public init(connections: Int = 64, taskRuns: Int = 16, recordersPerRun: Int = 16, lineTimeout: Double = 10) {
        self.connections = connections
        self.taskRuns = taskRuns
        self.recordersPerRun = recordersPerRun
        self.lineTimeout = lineTimeout
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case connections, taskRuns, recordersPerRun, lineTimeout }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connections = try c.decodeIfPresent(Int.self, forKey: .connections, in: Self.connectionsRange, "a number of connections") ?? connections
        taskRuns = try c.decodeIfPresent(Int.self, forKey: .taskRuns, in: Self.taskRunsRange, "a number of task runs") ?? taskRuns
        recordersPerRun = try c.decodeIfPresent(Int.self, forKey: .recordersPerRun, in: Self.recordersPerRunRange, "a number of recorders")
            ?? recordersPerRun
        lineTimeout = try c.decodeIfPresent(Double.self, forKey: .lineTimeout, in: Self.lineTimeoutRange) ?? lineTimeout
    }

    /// Open files recorderd needs whatever its clients do: its own and the devices'. (The web page
    /// runs in `recorderd-services`: see `servicesDescriptorsNeeded`.)
    public static func descriptorsReserved(devices: Int) -> Int {
        descriptorsBase + min(max(devices, 0), 100_000) * descriptorsPerDevice
    }

    /// Open files recorderd needs at these limits with `devices` configured.
    public func descriptorsNeeded(devices: Int) -> Int {
        Self.descriptorsReserved(devices: devices) + connections
            + taskRuns * (Self.descriptorsPerRun + recordersPerRun * Self.descriptorsPerRecorder)
    }
}
