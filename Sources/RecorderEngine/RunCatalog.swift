import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// The runs of a data directory, read from their directories and manifests: what `runs.list`,
/// `runs.get` and `runs.delete` see, and the data directory's disk use.
///
/// A run is a directory `runs/<task>/<yyyyMMddTHHmmssZ>-<UUID>` holding `taskResult.json`. All
/// of it is file I/O: call it from a blocking queue, never from the cooperative pool. A run is
/// only ever named by its UUID (or a prefix): the directory removed is one found by the scan,
/// never a path from a request.
public struct RunCatalog: Sendable {
    /// The directory of all runs of all tasks.
    public let runsDirectory: String

    public init(runsDirectory: String) {
        self.runsDirectory = runsDirectory
    }

    /// A run found on disk.
    public struct Entry: Sendable, Equatable {
        public var uuid: UUID
        public var directory: String
    }

    /// Every run directory, by the UUID its name ends with.
    public func entries() -> [Entry] {
        let fm = FileManager.default
        var found: [Entry] = []
        for task in ((try? fm.contentsOfDirectory(atPath: runsDirectory)) ?? []).sorted() {
            let taskDirectory = runsDirectory + "/" + task
            for name in ((try? fm.contentsOfDirectory(atPath: taskDirectory)) ?? []).sorted() {
                guard let uuid = RunIndex.uuid(ofDirectory: name) else { continue }
                found.append(Entry(uuid: uuid, directory: taskDirectory + "/" + name))
            }
        }
        return found
    }

    /// The summaries of the runs whose manifest reads, newest first (a directory without a
    /// readable manifest is not a run yet, or no more).
    public func summaries() -> [RunSummary] {
        entries().compactMap { entry in
            guard let result = try? TaskResultStore.read(directory: entry.directory) else { return nil }
            return RunSummary(result, runDirectory: entry.directory, sizeBytes: DirectorySize.bytes(of: entry.directory))
        }.sorted { ($0.startDate, $0.taskRunUUID.uuidString) > ($1.startDate, $1.taskRunUUID.uuidString) }
    }

    /// `runs.list`: the runs passing `query`'s filters, one page of them.
    public func list(_ query: RunQuery) throws(RunCatalogError) -> RunPage {
        let params = query
        let limit = params.limit ?? 100
        guard RunQuery.limitRange.contains(limit) else {
            throw .invalidParameter("limit: expected \(RunQuery.limitRange.lowerBound)…\(RunQuery.limitRange.upperBound), got \(limit)")
        }
        let offset = params.offset ?? 0
        guard offset >= 0 else { throw .invalidParameter("offset: expected 0 or more, got \(offset)") }
        let since = try Self.date(params.since, "since")
        let until = try Self.date(params.until, "until")
        let passing = summaries().filter { run in
            (params.taskIdentifier.map { run.taskIdentifier == $0 } ?? true)
                && (params.status.map { run.status == $0 } ?? true)
                && (since.map { run.startDate >= $0 } ?? true)
                && (until.map { run.startDate < $0 } ?? true)
        }
        let page = offset >= passing.count ? [] : Array(passing[offset..<min(passing.count, offset + limit)])
        return RunPage(runs: page, total: passing.count, offset: offset)
    }

    /// The run `run` names: a UUID, or a prefix of one that only one run has.
    public func resolve(_ run: String) throws(RunCatalogError) -> Entry {
        let wanted = run.lowercased()
        guard !wanted.isEmpty, wanted.utf8.count <= 36, wanted.utf8.allSatisfy({ Self.isUUIDCharacter($0) }) else {
            throw .invalidRun(String(run.prefix(64)))
        }
        let matches = entries().filter { $0.uuid.uuidString.lowercased().hasPrefix(wanted) }
        guard let first = matches.first else { throw .unknownRun(run) }
        guard matches.count == 1 else { throw .ambiguousRun(run, matches: matches.map(\.uuid.uuidString)) }
        return first
    }

    /// `runs.get`: the run's summary and manifest.
    public func details(_ run: String) throws(RunCatalogError) -> StoredRun {
        let entry = try resolve(run)
        let result: TaskResult
        do {
            result = try TaskResultStore.read(directory: entry.directory)
        } catch {
            throw .storage("run \(entry.uuid): its manifest \(entry.directory)/taskResult.json cannot be read: \(error)")
        }
        return StoredRun(summary: RunSummary(result, runDirectory: entry.directory, sizeBytes: DirectorySize.bytes(of: entry.directory)), taskResult: result)
    }

    /// Removes a run's directory and files (the caller has checked it is not recording).
    public func delete(_ entry: Entry) throws(RunCatalogError) {
        do {
            try FileManager.default.removeItem(atPath: entry.directory)
        } catch {
            throw .storage("run \(entry.uuid): \(entry.directory) could not be removed: \(error)")
        }
        TaskResultStore.syncDirectory(PathText.parent(of: entry.directory))
    }

    /// The runs' bytes on disk and the file system's free space and size (nil when the data
    /// directory cannot be measured).
    public func diskUsage() -> DiskUsage? {
        var fs = statvfs()
        guard statvfs(runsDirectory, &fs) == 0 || statvfs(PathText.parent(of: runsDirectory), &fs) == 0 else { return nil }
        let block = Int64(clamping: UInt64(fs.f_frsize))
        let free = Int64(clamping: UInt64(fs.f_bavail)).multipliedReportingOverflow(by: block)
        let total = Int64(clamping: UInt64(fs.f_blocks)).multipliedReportingOverflow(by: block)
        return DiskUsage(runsBytes: DirectorySize.bytes(of: runsDirectory), freeBytes: free.overflow ? .max : free.partialValue,
                         totalBytes: total.overflow ? .max : total.partialValue)
    }

    static func isUUIDCharacter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || c == UInt8(ascii: "-")
    }

    static func date(_ text: String?, _ name: String) throws(RunCatalogError) -> Date? {
        guard let text else { return nil }
        guard let date = ISO8601Timestamp.date(from: text) else {
            throw .invalidParameter("\(name): expected an ISO-8601 date such as 2026-11-23T08:00:00Z, got \(String(text.prefix(64)).debugDescription)")
        }
        return date
    }
}
