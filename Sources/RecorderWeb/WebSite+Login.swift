import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdWebSocket

/// `/login`: the access token, entered once and kept in a cookie (only when the page listens
/// beyond loopback and a token is configured).
extension WebSite {
    struct LoginForm: Decodable {
        var token: String
        var next: String?
    }

    func registerLogin(on router: Router<Context>) {
        router.get("/login") { request, _ in
            guard access.token != nil else { return Response.redirect(to: "/devices", type: .found) }
            return loginPage(next: Self.safeNext(request.uri.queryParameters["next"].map(String.init)), problem: nil)
        }
        router.post("/login") { request, _ in
            guard let token = access.token else { return Response.redirect(to: "/devices", type: .normal) }
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            guard body.readableBytes <= 4096, let form = try? URLEncodedFormDecoder().decode(LoginForm.self, from: String(buffer: body)) else {
                return loginPage(next: "/devices", problem: "Enter the access token.", status: .badRequest)
            }
            let next = Self.safeNext(form.next)
            guard WebAccess.constantTimeEqual(form.token, token) else {
                logger.warning("web page: wrong access token")
                return loginPage(next: next, problem: "That is not the access token.", status: .unauthorized)
            }
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(Cookie(name: WebAccess.cookieName, value: token, maxAge: 30 * 24 * 3600, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
    }

    /// Where to go after logging in: a path on this site only (never `//host` or a URL).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), next.utf8.count <= 512,
              !next.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value > 0x7E }) else { return "/devices" }
        return next
    }

    func loginPage(next: String, problem: String?, status: HTTPResponse.Status = .ok) -> Response {
        page(title: "Log in", section: "", template: "login", LoginView(next: next, problem: problem), status: status)
    }
}
