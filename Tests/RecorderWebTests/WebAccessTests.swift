import Foundation
import HTTPTypes
import RecorderModel
@testable import RecorderWeb
import Testing

/// The web page's access rules, without I/O: what `WebAccess.decide` answers for each request.
@Suite("Web access rules")
struct WebAccessTests {
    let locked = WebAccess(token: "the-right-token-123", csrfToken: "c" + String(repeating: "0", count: 63))
    let open = WebAccess(token: nil, csrfToken: "c" + String(repeating: "0", count: 63))

    func facts(_ method: HTTPRequest.Method = .get, _ path: String = "/devices", origin: String? = nil, cookie: String? = nil, bearer: String? = nil,
               csrf: String? = nil, webSocket: Bool = false, html: Bool = true) -> WebAccess.RequestFacts {
        WebAccess.RequestFacts(method: method, path: path, authority: "pi.local:8080", origin: origin, cookieToken: cookie, bearerToken: bearer,
                               csrfHeader: csrf, isWebSocketUpgrade: webSocket, acceptsHTML: html)
    }

    @Test func withATokenNothingPassesWithoutIt() {
        #expect(locked.decide(facts()) == .login(next: "/devices"))
        #expect(locked.decide(facts(cookie: "the-right-token-12")) == .login(next: "/devices"))
        #expect(locked.decide(facts(cookie: "the-right-token-1234")) == .login(next: "/devices"))
        #expect(locked.decide(facts(cookie: "the-right-token-123")) == .allow)
        #expect(locked.decide(facts(bearer: "the-right-token-123", html: false)) == .allow)
        if case .refuse(let status, _) = locked.decide(facts(.get, "/api/status", html: false)) { #expect(status == .unauthorized) } else { Issue.record("not refused") }
        if case .refuse(let status, _) = locked.decide(facts(.get, "/ws/live/imu0", origin: "http://pi.local:8080", webSocket: true)) {
            #expect(status == .unauthorized)
        } else { Issue.record("not refused") }
        // The login form itself needs no token.
        #expect(locked.decide(facts(.get, "/login")) == .allow)
        #expect(locked.decide(facts(.post, "/login", origin: "http://pi.local:8080")) == .allow)
    }

    @Test func crossSiteRequestsAreRefused() {
        let token = "c" + String(repeating: "0", count: 63)
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "http://pi.local:8080", csrf: token)) == .allow)
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "https://pi.local:8080", csrf: token)) == .allow)
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "http://evil.example", csrf: token)) == .refuse(.forbidden, "cross-site request refused"))
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "http://pi.local:8081", csrf: token)) == .refuse(.forbidden, "cross-site request refused"))
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "null", csrf: token)) == .refuse(.forbidden, "cross-site request refused"))
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "http://pi.local:8080")) == .refuse(.forbidden, "missing or wrong CSRF token (reload the page)"))
        #expect(open.decide(facts(.post, "/api/tasks/x/sessions", origin: "http://pi.local:8080", csrf: token + "0")) == .refuse(.forbidden, "missing or wrong CSRF token (reload the page)"))
        #expect(open.decide(facts(.get, "/ws/live/imu0", origin: "http://evil.example", webSocket: true)) == .refuse(.forbidden, "cross-site WebSocket refused"))
        #expect(open.decide(facts(.get, "/ws/live/imu0", origin: "http://pi.local:8080", webSocket: true)) == .allow)
        #expect(open.decide(facts(.post, "/login", origin: "http://evil.example")) == .refuse(.forbidden, "cross-site request refused"))
        #expect(open.decide(facts(.put, "/api/runs/x/cancel", origin: "http://pi.local:8080", csrf: token)) == .refuse(.methodNotAllowed, "only GET and POST are served"))
        #expect(open.decide(facts(.delete, "/runs/x")) == .refuse(.methodNotAllowed, "only GET and POST are served"))
    }

    @Test func afterLoginOnlyPathsOfThisSite() {
        #expect(WebSite.safeNext("/runs/abc") == "/runs/abc")
        #expect(WebSite.safeNext("//evil.example/x") == "/devices")
        #expect(WebSite.safeNext("https://evil.example") == "/devices")
        #expect(WebSite.safeNext("/\\evil.example") == "/devices")
        #expect(WebSite.safeNext("/a b") == "/devices")
        #expect(WebSite.safeNext(nil) == "/devices")
    }

    @Test func runAndTaskNamesCannotBePaths() {
        #expect(RunFiles.isRunID("58f2ce26-3bfb-42ca-8e20-b4e1f92fcafa") && RunFiles.isRunID("58F2CE26"))
        for bad in ["", "..", "../etc", "58f2ce26/..", "g", String(repeating: "f", count: 37), "%2e%2e"] { #expect(!RunFiles.isRunID(bad), "\(bad)") }
        #expect(WebSite.isTaskName("gait-balance") && WebSite.isTaskName("voice_2.v1"))
        for bad in ["", ".hidden", "..", "a/b", "a\\b", "a b", String(repeating: "a", count: 101), "é"] { #expect(!WebSite.isTaskName(bad), "\(bad)") }
        #expect(WebAccess.constantTimeEqual("abc", "abc") && !WebAccess.constantTimeEqual("abc", "abd") && !WebAccess.constantTimeEqual("abc", "abcd"))
    }

    @Test func livePointsAreCompactJSON() throws {
        var motion = RecorderModel.Record()
        motion.uptime = 12.5
        motion.sensorType = "accelerometer"
        (motion.x, motion.y, motion.z) = (0.1, -0.2, 0.98)
        var gap = RecorderModel.Record()
        gap.uptime = 13
        gap.event = "gap"
        var location = RecorderModel.Record()
        location.uptime = 14
        location.sensorType = "location"
        location.speed = .nan
        location.horizontalAccuracy = 3
        var beat = RecorderModel.Record()
        beat.uptime = 15
        beat.sensorType = "heartRate"
        beat.heartRate = 72
        var noContact = beat
        noContact.uptime = 16
        (noContact.heartRate, noContact.contact) = (0, false)
        let text = LivePoints.encode([motion, gap, location, beat, noContact])
        #expect(text == #"{"type":"data","points":[["accelerometer",12.5,0.1,-0.2,0.98],["gap",13],["location",14,null,3],"#
            + #"["heartRate",15,72],["heartRate",16,null]]}"#)
        #expect(["-0.0000004", "0.0000005", "77185.101523762", "-1.5", "1e15", "0.000123"].map { LivePoints.number(Double($0)!) }
                == ["0", "0.000001", "77185.101524", "-1.5", "1000000000000000.0", "0.000123"])
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        #expect(HTML.escape("<a href=\"x\">'&'</a>\u{1B}") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\u{FFFD}")
    }
}
