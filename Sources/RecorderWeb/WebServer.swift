import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import RecorderConfiguration
import RecorderModel
import RecorderProtocol
import ServiceLifecycle
import RecorderRuntime

/// The Pi's own web page (`http` in the configuration): devices with live plots, task runs walked
/// screen by screen, the run history with plots and exports. Every page is served through the
/// control socket's own calls (it is a client of it, as recorderctl is); exports and plots read
/// the run directories the daemon names, as `recorderctl export` and `plot` do.
///
/// A service of the services process's group. The address may not be available yet (a network
/// address at boot) or taken: the server logs why and tries again every `retryInterval` seconds
/// while the daemon goes on recording. Each change is told to `report` (recorderd answers on its
/// control socket once the page has said that it listens or why it cannot).
public struct WebServer: Service {
    let site: WebSite
    let host: String
    let port: Int
    let retryInterval: Double
    /// What a request must keep to (its head's time and size, its body's size).
    let limits: RequestFraming.Limits
    /// Connections one remote address may hold at once (a browser with a few live plots and a
    /// task screen open needs about ten).
    let connectionsPerAddress: Int
    /// Told when the page listens and when it cannot (recorderd's report pipe).
    let report: @Sendable (WebPageInfo) -> Void
    let logger: Logger

    /// `baseDirectory` (absolute: the configuration's folder) resolves a relative task folder.
    /// `connectionLimit`: the daemon's `limits.connections`; the page's WebSockets (each a control
    /// connection) take at most a quarter of them.
    public init(configuration: HTTPConfiguration, socketPath: String, dataDirectory: String, baseDirectory: String,
                connectionLimit: Int = DaemonLimits().connections, retryInterval: Double = 5,
                report: @escaping @Sendable (WebPageInfo) -> Void = { _ in }, logger: Logger) {
        let tasks = configuration.taskDirectory.hasPrefix("/") ? configuration.taskDirectory : baseDirectory + "/" + configuration.taskDirectory
        site = WebSite(socketPath: socketPath, dataDirectory: dataDirectory, taskDirectory: PathText.standardized(tasks),
                       access: WebAccess(token: configuration.token, csrfToken: WebAccess.randomToken()),
                       socketLimit: max(1, connectionLimit / 4), logger: logger)
        host = configuration.host
        port = configuration.port
        self.retryInterval = retryInterval
        limits = RequestFraming.Limits()
        connectionsPerAddress = 16
        self.report = report
        self.logger = logger
    }

    public func run() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: WebAccessMiddleware(site: site))
        site.register(on: router)
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        // HTTP/1 with WebSocket upgrades, behind the guards: head deadline and sizes, and a cap on
        // each address's connections (a slow or greedy client cannot lock the page).
        let webSocketResponder = router.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(http1: .init(idleTimeout: .seconds(120)),
                                                                      ws: .init(maxFrameSize: 1 << 16, validateUTF8: true))
        let limits = self.limits
        let perAddress = ConnectionsPerAddress(limit: connectionsPerAddress)
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                                limits: limits, perAddress: perAddress)
        }
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let app = Application(
                router: router,
                server: server,
                // At most `webConnections` at once; more wait in the backlog (each holds a descriptor
                // the daemon counts on: see DescriptorBudget).
                configuration: .init(address: .hostname(host, port: port), serverName: nil,
                                     availableConnectionsDelegate: MaximumAvailableConnections(DaemonLimits.webConnections, logger: logger)),
                onServerRunning: { [logger, report] _ in
                    logger.notice("web page listening", metadata: ["address": "http://\(address)/"])
                    report(WebPageInfo(state: .listening, address: "http://\(address)/"))
                },
                logger: logger)
            do {
                try await app.run()
                return
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                logger.error("web page cannot listen; trying again", metadata: ["address": "\(address)", "error": "\(error)", "retry": "\(retryInterval) s"])
                report(WebPageInfo(state: .cannotListen, address: "http://\(address)/", detail: "\(error)"))
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(retryInterval)) }
            }
        }
    }
}
