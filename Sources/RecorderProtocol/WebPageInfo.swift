/// `daemon.status`'s `services.page`: the web page's listening socket, as the services process
/// last reported it (`recorderctl status`: `page: listening on http://0.0.0.0:8080/`). recorderd
/// answers on its control socket only once the page has reported (or could not be started).
public struct WebPageInfo: Sendable, Codable, Equatable {
    /// Where the page stands.
    public enum State: String, Sendable, Codable, Equatable {
        /// It accepts connections.
        case listening
        /// Its address cannot be bound now (taken, or not yet on any interface): it tries again.
        case cannotListen
    }

    public var state: State
    /// The page's address (`http.listen` as a URL).
    public var address: String
    /// Why it cannot listen (the bind error).
    public var detail: String?

    public init(state: State, address: String, detail: String? = nil) {
        self.state = state
        self.address = address
        self.detail = detail
    }

    /// The line `recorderctl status` prints after `page: `.
    public var summary: String {
        switch state {
        case .listening: "listening on \(address)"
        case .cannotListen: "cannot listen on \(address)" + (detail.map { ": " + $0 } ?? "") + "; trying again"
        }
    }
}
