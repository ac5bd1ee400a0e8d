/// `daemon.status`'s `services`: the process that runs the web page and the fleet link
/// (`recorderd-services`), which recorderd starts beside itself and starts again when it ends.
public struct ServicesProcessInfo: Sendable, Codable, Equatable {
    /// Its PID while it runs; nil while it waits to be started (again).
    public var pid: Int32?
    /// How many times it has been started (1 while the first still runs).
    public var starts: Int
    /// How the last one ended (`exit 3`, `signal 9`); nil while none has ended.
    public var lastEnd: String?
    /// The fleet link's connection, as the running process last reported it; nil without `mqtt`
    /// or before its first report.
    public var fleet: FleetLinkInfo?
    /// The web page's socket, as the running process last reported it; nil without `http` or
    /// before its first report.
    public var page: WebPageInfo?

    public init(pid: Int32? = nil, starts: Int = 0, lastEnd: String? = nil, fleet: FleetLinkInfo? = nil, page: WebPageInfo? = nil) {
        self.pid = pid
        self.starts = starts
        self.lastEnd = lastEnd
        self.fleet = fleet
        self.page = page
    }

    /// The line `recorderctl status` prints.
    public var summary: String {
        var text = pid.map { "running, pid \($0)" } ?? "not running"
        text += starts == 1 ? ", started once" : ", started \(starts) times"
        if let lastEnd { text += "; the last one ended with \(lastEnd)" }
        return text
    }
}
