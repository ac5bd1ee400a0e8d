/// The data directory's file system, in `daemon.status`.
public struct DiskUsage: Sendable, Codable, Equatable {
    /// Bytes of the runs' files.
    public var runsBytes: Int64
    /// Bytes free for recorderd (what an unprivileged writer may use) and the file system's size.
    public var freeBytes: Int64
    public var totalBytes: Int64

    public init(runsBytes: Int64, freeBytes: Int64, totalBytes: Int64) {
        self.runsBytes = runsBytes
        self.freeBytes = freeBytes
        self.totalBytes = totalBytes
    }
}
