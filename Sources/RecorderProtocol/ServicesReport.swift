/// One line the services process (`recorderd-services`) reports to recorderd on its descriptor 3
/// (`ServicesReportPipe`): its fleet link's state or its web page's, whichever changed.
public struct ServicesReport: Sendable, Codable, Equatable {
    public var fleet: FleetLinkInfo?
    public var page: WebPageInfo?

    public init(fleet: FleetLinkInfo? = nil, page: WebPageInfo? = nil) {
        self.fleet = fleet
        self.page = page
    }

    /// The longest report line the daemon takes from the services process.
    public static let maximumBytes = 4096
}
