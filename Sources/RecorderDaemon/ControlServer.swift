import Foundation
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import RecorderEngine
import RecorderModel
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
    let logger: Logger
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let connections = Mutex<[ObjectIdentifier: ControlConnection]>([:])
    private let ready = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(socketPath: String, socketMode: UInt16, listenSocket: Int32? = nil, router: RequestRouter, logger: Logger) {
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.listenSocket = listenSocket
        self.router = router
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Binds the socket (replacing a stale socket file) and sets its mode; with socket
    /// activation, takes the passed socket as it is (systemd owns its path and mode).
    public func bind() async throws {
        if listenSocket == nil {
            let directory = (socketPath as NSString).deletingLastPathComponent
            if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        }
        let router = self.router
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = ControlConnection(channel: channel, router: router, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: ControlConnection.maximumLineLength))
                    try channel.pipeline.syncOperations.addHandler(ControlChannelHandler(connection: connection))
                    self?.track(connection, channel: channel)
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
        let waiters = ready.withLock { r -> [CheckedContinuation<Void, Never>] in defer { r = nil }; return r ?? [] }
        for w in waiters { w.resume() }
    }

    func track(_ connection: ControlConnection, channel: any Channel) {
        let key = ObjectIdentifier(connection)
        connections.withLock { $0[key] = connection }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.connections.withLock { _ = $0.removeValue(forKey: key) }
        }
        Task { await connection.serve() }
    }

    /// Returns once the socket is listening.
    public func waitUntilListening() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = ready.withLock { r -> Bool in
                guard r != nil else { return true }
                r!.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    public func run() async throws {
        if serverChannel.withLock({ $0 }) == nil { try await bind() }
        try? await gracefulShutdown()
        await close()
    }

    /// Stops accepting, closes every connection, removes the socket file.
    public func close() async {
        if let channel = serverChannel.withLock({ c -> (any Channel)? in defer { c = nil }; return c }) {
            try? await channel.close()
            if listenSocket == nil { unlink(socketPath) }
        }
        for connection in connections.withLock({ Array($0.values) }) { connection.close() }
        try? await group.shutdownGracefully()
    }
}
