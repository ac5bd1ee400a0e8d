import FoundationEssentials
import Glibc
import HTTPTypes
import RecorderRuntime

/// Who may use the web page, as rules on a request's method, path and headers (no I/O): the
/// token (when the server listens beyond loopback), the origin checks of state-changing requests
/// and WebSocket upgrades, the CSRF token of POSTs. `WebAccessMiddleware` applies its answer.
struct WebAccess: Sendable {
    /// The token every request must carry (cookie or `Authorization: Bearer`); nil: none needed.
    let token: String?
    /// The value pages embed and POSTs send back in `X-CSRF-Token`.
    let csrfToken: String

    static let cookieName = "recorderd_token"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// What to do with a request.
    enum Action: Equatable {
        case allow
        /// No or a wrong token: a page goes to the login form, anything else is refused.
        case login(next: String)
        case refuse(HTTPResponse.Status, String)
    }

    /// A request as the rules see it.
    struct RequestFacts {
        var method: HTTPRequest.Method
        var path: String
        var authority: String?
        var origin: String?
        var cookieToken: String?
        var bearerToken: String?
        var csrfHeader: String?
        var isWebSocketUpgrade: Bool
        var acceptsHTML: Bool
    }

    func decide(_ r: RequestFacts) -> Action {
        guard [.get, .head, .post].contains(r.method) else { return .refuse(.methodNotAllowed, "only GET and POST are served") }
        // The style sheet, script and icon carry no data (the login form uses them).
        if r.method == .get, r.path.hasPrefix("/static/") || r.path == "/favicon.ico" { return .allow }
        // The login form itself: no token yet; a cross-site post of it is still refused.
        if r.path == "/login" {
            if r.method == .post, !sameOrigin(r) { return .refuse(.forbidden, "cross-site request refused") }
            return .allow
        }
        if let token {
            let given = r.bearerToken ?? r.cookieToken
            guard let given, Self.constantTimeEqual(given, token) else {
                if r.method == .get, r.acceptsHTML, !r.isWebSocketUpgrade, !r.path.hasPrefix("/api/") { return .login(next: r.path) }
                return .refuse(.unauthorized, "a valid access token is required (log in at /login)")
            }
        }
        if r.isWebSocketUpgrade, !sameOrigin(r) { return .refuse(.forbidden, "cross-site WebSocket refused") }
        if r.method == .post {
            guard sameOrigin(r) else { return .refuse(.forbidden, "cross-site request refused") }
            guard let csrf = r.csrfHeader, Self.constantTimeEqual(csrf, csrfToken) else {
                return .refuse(.forbidden, "missing or wrong CSRF token (reload the page)")
            }
        }
        return .allow
    }

    /// The Origin header names this server (`scheme://<Host>`). A browser sends Origin with every
    /// POST and WebSocket it makes across sites; a request without one is not a browser's
    /// cross-site request (curl, a script holding the token), and a POST still needs the CSRF token.
    func sameOrigin(_ r: RequestFacts) -> Bool {
        guard let origin = r.origin else { return true }
        guard let authority = r.authority, let url = URL(string: origin), let host = url.host else { return false }
        let port = url.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return (bracketed + port).lowercased() == authority.lowercased()
    }

    /// Compares without an early exit, so the time taken does not tell how much of a guess was right.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }

    /// A random 32-byte hex token (the CSRF token, one per server start).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in CFormat.string("%02x", UInt32(UInt8.random(in: 0...255, using: &generator))) }.joined()
    }
}
