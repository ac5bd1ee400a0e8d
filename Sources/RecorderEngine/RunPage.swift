import RecorderModel

/// One page of the stored runs a `RunQuery` selects, and how many it selects in all.
public struct RunPage: Sendable, Equatable {
    public var runs: [RunSummary]
    public var total: Int
    public var offset: Int

    public init(runs: [RunSummary], total: Int, offset: Int) {
        self.runs = runs
        self.total = total
        self.offset = offset
    }
}
