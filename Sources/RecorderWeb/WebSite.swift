import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdWebSocket
import Logging
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// What the web page's handlers share: where the daemon and the files are, the access rules, the
/// task sessions walking tasks.
struct WebSite: Sendable {
    typealias Context = BasicWebSocketRequestContext

    let socketPath: String
    let dataDirectory: String
    let taskDirectory: String
    let access: WebAccess
    let sessions: TaskSessions
    /// WebSockets open at once (each holds a control connection).
    let sockets: SocketBudget
    let logger: Logger

    init(socketPath: String, dataDirectory: String, taskDirectory: String, access: WebAccess, socketLimit: Int, logger: Logger) {
        self.socketPath = socketPath
        self.dataDirectory = dataDirectory
        self.taskDirectory = taskDirectory
        self.access = access
        self.sessions = TaskSessions()
        self.sockets = SocketBudget(limit: socketLimit)
        self.logger = logger
    }

    func register(on router: Router<Context>) {
        router.get("/") { _, _ in Response.redirect(to: "/devices", type: .found) }
        router.get("/static/app.css") { _, _ in Self.asset(WebTemplates.css, type: "text/css; charset=utf-8") }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        router.get("/static/app.js") { _, _ in Self.asset(WebTemplates.script, type: "text/javascript; charset=utf-8") }
        registerLogin(on: router)
        registerDevices(on: router)
        registerTasks(on: router)
        registerRuns(on: router)
    }

    /// Runs a WebSocket's handler holding one of the page's places, or tells the browser none is free.
    func withSocketPlace(_ outbound: WebSocketOutboundWriter, _ body: () async -> Void) async {
        await sockets.withPlace(body) {
            let message = "too many live views and task screens are open (\(sockets.limit)): close one"
            try? await outbound.writeTextMessage(WebMessage.error(message))
            try? await outbound.close(.policyViolation, reason: nil)
        }
    }

    /// A connection to the daemon's control socket for one request (closed by the caller).
    func connect() async throws(WebError) -> RecorderClient {
        do {
            return try await RecorderClient.connect(socketPath: socketPath)
        } catch {
            throw .daemonUnavailable("\(error)")
        }
    }

    /// A control connection for a WebSocket's handler (closed by the caller); nil when the daemon
    /// cannot be reached, which the browser is then told before the socket closes.
    func connect(for outbound: WebSocketOutboundWriter) async -> RecorderClient? {
        do {
            return try await connect()
        } catch {
            try? await outbound.writeTextMessage(WebMessage.error(error.message))
            try? await outbound.close(.normalClosure, reason: nil)
            return nil
        }
    }

    /// Calls the daemon over a connection of its own; a refusal becomes the page's message.
    func withDaemon<T: Sendable>(_ body: (RecorderClient) async throws(RecorderClientError) -> T) async throws(WebError) -> T {
        let client = try await connect()
        defer { client.close() }
        do {
            return try await body(client)
        } catch {
            switch error {
            case .rpc(let e) where [RPCErrorCode.unknownRun, .unknownDevice, .unknownTaskRun].map(\.rawValue).contains(e.code):
                throw WebError(.notFound, e.message)
            case .rpc(let e) where e.code == RPCErrorCode.deviceUnavailable.rawValue: throw WebError(.serviceUnavailable, e.message)
            case .rpc(let e) where e.code == RPCErrorCode.invalidParams.rawValue: throw WebError(.badRequest, e.message)
            case .rpc(let e): throw WebError(.conflict, e.message)
            case .connectionFailed, .connectionClosed: throw .daemonUnavailable("\(error)")
            case .invalidResponse: throw WebError(.badGateway, "recorderd answered something this page cannot read: \(error)")
            }
        }
    }

    /// An HTML page: `view` shown by the template `template`, inside the layout.
    func page<View>(title: String, section: String, template: String, _ view: View, status: HTTPResponse.Status = .ok) -> Response {
        let html = WebTemplates.render(template, WebPage(title: title, section: section, csrf: access.csrfToken, page: view))
        return Self.response(html, type: "text/html; charset=utf-8", status: status)
    }

    /// The answer to a refused or failed request: a page for a browser, JSON for the API.
    func errorResponse(_ error: WebError, for request: Request) -> Response {
        if request.uri.path.hasPrefix("/api/") || request.headers[.upgrade] != nil || !(request.headers[.accept]?.contains("text/html") ?? false) {
            let body = (try? JSONTextEncoder().encode(["error": error.message])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return Self.response(body, type: "application/json", status: error.status)
        }
        return page(title: "Error \(error.status.code)", section: "", template: "error", ErrorView(error), status: error.status)
    }

    static func response(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let bytes = try JSONTextEncoder().encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func asset(_ text: String, type: String) -> Response {
        var response = response(text, type: type)
        response.headers[.cacheControl] = "max-age=300"
        return response
    }
}
