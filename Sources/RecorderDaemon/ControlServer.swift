import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import ServiceLifecycle
import Synchronization

/// The control socket: JSON-RPC 2.0, one object per line, on a SOCK_STREAM Unix socket.
/// Runs as a `Service`: on graceful shutdown it stops accepting and closes its connections.
public final class ControlServer: Service, Sendable {
    let socketPath: String
    let socketMode: UInt16
    /// A listening socket passed by systemd (socket activation); nil: bind `socketPath`.
    let listenSocket: Int32?
    let router: RequestRouter
    let group: MultiThreadedEventLoopGroup
    /// Control connections open at once; one more is answered with `-32011` and closed.
    let maximumConnections: Int
    /// How long a request line may take (`limits.lineTimeout`).
    let lineTimeout: TimeAmount
    /// Unfinished request bytes of all connections together.
    let budget = InputBudget()
    /// The descriptors connections may hold (shared with task runs).
    let descriptors: DescriptorBudget
    /// Other threads' hand-offs to `group`'s loop; closed before the loop shuts down.
    let gate = EventLoopGate()
    let logger: Logger
    private let serverChannel = LockedValue<(any Channel)?>(nil)
    private let connections = LockedValue<[ObjectIdentifier: ControlConnection]>([:])
    /// Admitted connections, from the event loop to `serveConnections`, whose task group answers
    /// each in a child task. Bridge (event loop → tasks): NIO's child-channel initializer cannot
    /// await; the stream is unbounded but holds at most `maximumConnections` (admission counts them).
    private let accepted: AsyncStream<ControlConnection>
    private let acceptedContinuation: AsyncStream<ControlConnection>.Continuation
    /// Whether `serveConnections` has begun: the stream has one consumer.
    private let serving = Atomic<Bool>(false)
    private let listening = OneShotEvent()
    /// When an accept failure was last logged (CLOCK_MONOTONIC seconds): once a minute at most.
    private let lastAcceptFailureLog = LockedValue<Double>(-.infinity)

    init(socketPath: String, socketMode: UInt16, listenSocket: Int32? = nil, maximumConnections: Int = DaemonLimits().connections,
         lineTimeout: Double = DaemonLimits().lineTimeout, descriptors: DescriptorBudget = DescriptorBudget(), router: RequestRouter, logger: Logger) {
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.listenSocket = listenSocket
        self.maximumConnections = maximumConnections
        self.lineTimeout = .nanoseconds(Int64(Int(saturating: (lineTimeout * 1e9).rounded())))
        self.descriptors = descriptors
        self.router = router
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        (accepted, acceptedContinuation) = AsyncStream.makeStream(of: ControlConnection.self, bufferingPolicy: .unbounded)
    }

    /// Connections open now.
    public var connectionCount: Int { connections.withLock { $0.count } }

    /// Binds the socket (replacing a stale socket file) and sets its mode; with socket
    /// activation, takes the passed socket as it is (systemd owns its path and mode).
    public func bind() async throws {
        if listenSocket == nil {
            let directory = PathText.parent(of: socketPath)
            if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        }
        let router = self.router
        let logger = self.logger
        let budget = self.budget
        let gate = self.gate
        let acceptedContinuation = self.acceptedContinuation
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.maxMessagesPerRead, value: 1)
            .serverChannelInitializer { [weak self, descriptors] channel in
                // Every connection counts against the descriptor budget; while it is spent (or an
                // accept fails: EMFILE, ENFILE) accepting pauses; the pending connections are
                // taken once descriptors are free again.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPauseHandler(descriptors: descriptors) { error in self?.acceptFailed(error) })
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { return }
                    let connection = ControlConnection(channel: channel, router: router, gate: gate, logger: logger)
                    guard self.admit(connection, channel: channel) else {
                        try channel.pipeline.syncOperations.addHandler(RefusedConnectionHandler(
                            error: RPCError(.limitReached, "too many connections: recorderd serves at most \(self.maximumConnections) at once")))
                        return
                    }
                    try channel.pipeline.syncOperations.addHandler(ControlChannelHandler(connection: connection, budget: budget,
                                                                                           lineTimeout: self.lineTimeout, logger: logger))
                    acceptedContinuation.yield(connection)
                }
            }
        let channel: any Channel
        if let listenSocket {
            channel = try await bootstrap.withBoundSocket(listenSocket).get()
            logger.info("control socket passed by systemd", metadata: ["fd": "\(listenSocket)"])
        } else {
            channel = try await bootstrap.bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true).get()
            chmod(socketPath, mode_t(socketMode))
            logger.info("control socket listening", metadata: ["socket": "\(socketPath)"])
        }
        serverChannel.withLock { $0 = channel }
        listening.signal()
    }

    /// Counts a new connection in; false when the limit is reached (it is then refused).
    func admit(_ connection: ControlConnection, channel: any Channel) -> Bool {
        let key = ObjectIdentifier(connection)
        let admitted = connections.withLock { c -> Bool in
            guard c.count < maximumConnections else { return false }
            c[key] = connection
            return true
        }
        guard admitted else {
            logger.warning("control connection refused: limit reached", metadata: ["limit": "\(maximumConnections)"])
            return false
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.connections.withLock { _ = $0.removeValue(forKey: key) }
        }
        return true
    }

    /// An accept failed (descriptors exhausted): logged once a minute at most.
    func acceptFailed(_ error: IOError) {
        let now = SystemClock.monotonicUptime()
        let log = lastAcceptFailureLog.withLock { last -> Bool in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if log { logger.error("cannot accept control connections; pausing accepts", metadata: ["error": "\(error)"]) }
    }

    /// Returns once the socket is listening.
    public func waitUntilListening() async {
        await listening.wait()
    }

    /// Answers every admitted connection, each in a child task of one discarding task group,
    /// until `close()`; returns once the last connection's requests are answered.
    /// Called once: `prepare` (embedding) or `run` (the service group), not both.
    public func serveConnections() async {
        precondition(!serving.exchange(true, ordering: .relaxed), "ControlServer.serveConnections: already serving (prepare and run both called?)")
        await withDiscardingTaskGroup { group in
            for await connection in accepted {
                group.addTask { await connection.serve() }
            }
        }
    }

    /// Binds (unless `bind()` did), serves connections as child tasks until graceful shutdown,
    /// then closes and returns once every connection's task has ended.
    public func run() async throws {
        if serverChannel.withLock({ $0 }) == nil { try await bind() }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.serveConnections() }
            try? await gracefulShutdown()
            await close()
        }
    }

    /// Stops accepting, closes every connection, removes the socket file.
    public func close() async {
        if let channel = serverChannel.withLock({ c -> (any Channel)? in defer { c = nil }; return c }) {
            try? await channel.close()
            if listenSocket == nil { unlink(socketPath) }
        }
        // No connection is admitted after this (the server channel is closed): `serveConnections`
        // ends once the connections' tasks do, which closing their channels ends.
        acceptedContinuation.finish()
        for connection in connections.withLock({ Array($0.values) }) { connection.close() }
        // A request still being answered, a step on a run's queue, a live stream's delivery:
        // none may reach the loop once it is gone.
        gate.close()
        try? await group.shutdownGracefully()
    }
}
