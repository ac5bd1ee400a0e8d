import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdWebSocket
import HTTPTypes

/// Applies `WebAccess` to every request (pages, API, WebSocket upgrades) and turns a handler's
/// error into a page that says what went wrong.
struct WebAccessMiddleware: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext
    let site: WebSite

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authorization = request.headers[.authorization]
        let bearer = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let facts = WebAccess.RequestFacts(
            method: request.method, path: request.uri.path, authority: request.head.authority, origin: request.headers[.origin],
            cookieToken: request.cookies[WebAccess.cookieName]?.value, bearerToken: bearer, csrfHeader: request.headers[WebAccess.csrfHeader],
            isWebSocketUpgrade: request.headers[.upgrade]?.lowercased() == "websocket",
            acceptsHTML: request.headers[.accept]?.contains("text/html") ?? false)
        var response: Response
        switch site.access.decide(facts) {
        case .allow:
            do {
                response = try await next(request, context)
            } catch let error as WebError {
                response = site.errorResponse(error, for: request)
            } catch let error as HTTPError {
                response = site.errorResponse(WebError(error.status, error.body ?? error.status.reasonPhrase), for: request)
            } catch {
                site.logger.error("web request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
                response = site.errorResponse(WebError(.internalServerError, "internal error: \(error)"), for: request)
            }
        case .login(let next):
            response = .redirect(to: "/login?next=" + PercentEncoding.escaped(next), type: .found)
        case .refuse(let status, let message):
            response = site.errorResponse(WebError(status, message), for: request)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
