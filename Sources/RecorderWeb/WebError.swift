import HTTPTypes

/// A request the web page refuses or cannot serve: the status and the message the page shows.
struct WebError: Error, CustomStringConvertible {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { "\(status.code) \(message)" }

    /// The daemon is not reachable (the control socket refused the connection).
    static func daemonUnavailable(_ why: String) -> WebError {
        WebError(.serviceUnavailable, "recorderd's control socket is not answering (\(why)); the page works again once it is")
    }
}
