import FoundationEssentials
import Glibc
import RecorderRuntime

/// The rules a connection to the web page is held to before its requests reach the HTTP decoder,
/// as a pure state machine (tested without I/O; `RequestGuardHandler` carries out its actions):
/// a request's head must be complete within `headTimeout` of its first byte (else 408) and at
/// most `maximumHead` bytes long (else 431); a body is at most `maximumBody` bytes (else 413) and
/// has a `Content-Length` (chunked bodies: 501). A WebSocket upgrade's head passes the connection
/// on for good. Without these, clients that each send an unfinished 100 KB request line held
/// every connection the page has, and no visitor got in.
struct RequestFraming: Sendable {
    struct Limits: Sendable, Equatable {
        /// Bytes of a request's line and headers.
        var maximumHead = 16 * 1024
        /// Bytes of a request's body (a login form; no page takes an upload).
        var maximumBody = 64 * 1024
        /// Seconds from a head's first byte to its end.
        var headTimeout = 10.0
    }

    /// What becomes of a head's deadline.
    enum Deadline: Sendable, Equatable {
        case keep
        /// A head began: (re)start its deadline (`deadlinePassed` when it passes).
        case start
        /// The head ended in time.
        case cancel
    }

    /// What the handler does.
    enum Action: Sendable, Equatable {
        /// Pass the bytes on to the HTTP decoder.
        case forward(Deadline)
        /// Answer with `status` and close; nothing more is passed on.
        case refuse(status: Int, reason: String)
    }

    enum Phase: Sendable, Equatable {
        /// Between requests, or in a head: `received` bytes of it so far, its text kept.
        case head(received: Int)
        /// In a body: bytes still to come.
        case body(remaining: Int)
        /// Upgraded (WebSocket): no more rules.
        case passing
        /// Refused: nothing more.
        case closed
    }

    let limits: Limits
    private(set) var phase = Phase.head(received: 0)
    /// The head's bytes so far (at most `maximumHead`), to find its end and read its headers.
    private var head: [UInt8] = []

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes arrived: what to do with them.
    mutating func received(_ bytes: some Collection<UInt8>) -> Action {
        let armed = isInHead
        var ended = false
        var rest = bytes[...]
        while !rest.isEmpty {
            switch phase {
            case .passing:
                return .forward(.keep)
            case .closed:
                return .refuse(status: 0, reason: "closed")
            case .body(let remaining):
                let taken = min(remaining, rest.count)
                rest = rest.dropFirst(taken)
                phase = remaining - taken == 0 ? .head(received: 0) : .body(remaining: remaining - taken)
            case .head(let received):
                if received == 0 {
                    // Blank lines before a request line are allowed (RFC 9112 §2.2).
                    if let first = rest.first, first == 0x0D || first == 0x0A {
                        rest = rest.dropFirst()
                        continue
                    }
                    head.removeAll(keepingCapacity: true)
                }
                guard let end = Self.headEnd(in: head, adding: rest) else {
                    head.append(contentsOf: rest)
                    rest = rest.dropFirst(rest.count)
                    guard head.count <= limits.maximumHead else { return refuse(431, "request header fields too large") }
                    phase = .head(received: head.count)
                    continue
                }
                // `end` bytes of `rest` complete the head.
                head.append(contentsOf: rest.prefix(end))
                rest = rest.dropFirst(end)
                guard head.count <= limits.maximumHead else { return refuse(431, "request header fields too large") }
                ended = true
                let fields = Self.fields(head)
                if fields.upgrade {
                    phase = .passing
                    return .forward(armed ? .cancel : .keep)
                }
                if fields.chunked { return refuse(501, "chunked request bodies are not accepted") }
                guard let length = fields.contentLength else { return refuse(400, "malformed Content-Length") }
                guard length <= limits.maximumBody else { return refuse(413, "request body too large") }
                phase = length > 0 ? .body(remaining: length) : .head(received: 0)
            }
        }
        if isInHead { return .forward(armed && !ended ? .keep : .start) }
        return .forward(armed ? .cancel : .keep)
    }

    /// True within a head that has begun.
    var isInHead: Bool {
        if case .head(let received) = phase { return received > 0 }
        return false
    }

    /// The deadline of a head passed: refused when the head is still unfinished.
    mutating func deadlinePassed() -> Action? {
        guard case .head(let received) = phase, received > 0 else { return nil }
        return refuse(408, "request header not received in time")
    }

    private mutating func refuse(_ status: Int, _ reason: String) -> Action {
        phase = .closed
        head = []
        return .refuse(status: status, reason: reason)
    }

    /// How many bytes of `more` complete a head whose start is `head` (through its blank line:
    /// CRLF CRLF, or LF LF as lenient peers send), or nil when it is still open.
    static func headEnd(in head: [UInt8], adding more: some Collection<UInt8>) -> Int? {
        // The last three bytes of the head so far and the new ones, scanned together.
        var window = Array(head.suffix(3))
        let overlap = window.count
        window.append(contentsOf: more)
        var i = 0
        while i < window.count {
            if window[i] == 0x0A {
                if i + 1 < window.count, window[i + 1] == 0x0A, i + 1 >= overlap { return i + 2 - overlap }
                if i + 2 < window.count, window[i + 1] == 0x0D, window[i + 2] == 0x0A, i + 2 >= overlap { return i + 3 - overlap }
            }
            i += 1
        }
        return nil
    }

    /// What the framing needs of a head: its body's length, whether it is chunked or an upgrade.
    static func fields(_ head: [UInt8]) -> (contentLength: Int?, chunked: Bool, upgrade: Bool) {
        let text = String(decoding: head, as: UTF8.self)
        var contentLength: Int? = 0
        var lengths = 0
        var chunked = false, upgradeHeader = false, connectionUpgrade = false
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace().lowercased()
            switch name {
            case "content-length":
                lengths += 1
                contentLength = value.utf8.count <= 12 && !value.isEmpty && value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? Int(value) : nil
            case "transfer-encoding": chunked = true
            case "upgrade": upgradeHeader = value.contains("websocket")
            case "connection": connectionUpgrade = value.split(separator: ",").contains { $0.trimmingWhitespace() == "upgrade" }
            default: break
            }
        }
        if lengths > 1 { contentLength = nil }
        return (contentLength, chunked, upgradeHeader && connectionUpgrade)
    }
}
