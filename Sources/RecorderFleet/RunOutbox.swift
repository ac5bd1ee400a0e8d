import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// The Pi's upload queue on disk (`{dataDirectory}/fleet/outbox/`): a small file per ended run
/// saying whether it is still to upload, acknowledged by a collector, or refused. The runs' own
/// files are the data; this only records how far each got, written atomically (a new file
/// fsynced, renamed over the old, the folder fsynced), so it survives `kill -9` and power loss.
public struct RunOutbox: Sendable {
    public enum State: String, Sendable, Codable { case pending, acknowledged, refused }

    public struct Entry: Sendable, Codable, Equatable {
        public var taskRunUUID: UUID
        public var taskIdentifier: String
        public var runDirectory: String
        public var state: State
        public var queued: Date
        public var acknowledged: Date?
        public var error: String?
    }

    public let directory: String

    public init(dataDirectory: String) {
        directory = dataDirectory + "/fleet/outbox"
    }

    func path(_ run: UUID) -> String { "\(directory)/\(run.uuidString).json" }

    public func entry(_ run: UUID) -> Entry? {
        guard let data = FileManager.default.contents(atPath: path(run)) else { return nil }
        return try? JSONValueDecoder().decode(Entry.self, from: data)
    }

    /// Every entry (an unreadable file is skipped: it is written again when its run is seen).
    public func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { UUID(uuidString: String($0.dropLast(5))) }.compactMap { entry($0) }
    }

    public func save(_ entry: Entry) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let data = try JSONTextEncoder().encode(entry)
        let temporary = path(entry.taskRunUUID) + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw CollectorStore.StoreError.io("create \(temporary): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0, rename(temporary, path(entry.taskRunUUID)) == 0 else {
            unlink(temporary)
            throw CollectorStore.StoreError.io("write \(path(entry.taskRunUUID)): \(String(cString: strerror(errno)))")
        }
        try CollectorStore.fsync(directory)
    }

    /// Removes the entry of a run that is gone (deleted on the Pi).
    public func remove(_ run: UUID) {
        unlink(path(run))
    }

    /// The manifest of a run directory: every regular file (hidden ones aside: the space
    /// reserve), with its size and SHA-256, read now.
    public static func manifest(runDirectory: String, taskRunUUID: UUID, taskIdentifier: String, status: TaskRunStatus?) throws -> RunManifest {
        var files: [RunManifest.File] = []
        func walk(_ relative: String) throws {
            let folder = relative.isEmpty ? runDirectory : runDirectory + "/" + relative
            guard let names = DirectoryEntries.names(of: folder) else { throw CollectorStore.StoreError.io("cannot read \(folder)") }
            for name in names where !name.hasPrefix(".") {
                let path = relative.isEmpty ? name : relative + "/" + name
                let full = runDirectory + "/" + path
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG: files.append(RunManifest.File(path: path, size: Int64(info.st_size), sha256: try CollectorStore.sha256(of: full)))
                case S_IFDIR: try walk(path)
                default: continue
                }
            }
        }
        try walk("")
        files.sort { $0.path < $1.path }
        return RunManifest(taskRunUUID: taskRunUUID, taskIdentifier: taskIdentifier, directory: PathText.lastComponent(of: runDirectory),
                           status: status, files: files)
    }
}
