import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// The collector's disk. A complete run is `{root}/{site}/{device}/{task}/{directory}/`, its files
/// exactly as on the Pi; a run arriving is `{root}/.incoming/{site}/{device}/{uuid}/` (its
/// manifest, its files as far as they came, and which byte ranges of each arrived).
///
/// Every step holds the run's lock (`flock`), so several collectors sharing the folder (an MQTT
/// shared subscription hands a run's chunks to any of them) take turns; chunks may come in any
/// order and twice. A file whose bytes are all there is checked against its SHA-256: a mismatch
/// empties it and asks for it again. The run is moved to its place, and acknowledged, only when
/// every file matches.
public struct CollectorStore: Sendable {
    public let root: String
    /// The chunk encodings its `need` answers offer the Pis (`UploadChunk.zstd`; empty: plain
    /// chunks only, as from a collector that predates them).
    public var accepts: [String]

    public init(root: String, accepts: [String] = [UploadChunk.zstd]) {
        self.root = root
        self.accepts = accepts
    }

    /// What the collector keeps of a run on its way (`state.json`).
    struct Arrival: Codable {
        var manifest: RunManifest
        /// Each file's arrived byte ranges, `[start, end)`, merged.
        var ranges: [String: [[Int64]]] = [:]
        var verified: Set<String> = []
        /// Chunk payload bytes received for the run, as they came over the wire (every
        /// collector sharing the folder adds its own).
        var wireBytes: Int64?
    }

    /// The answer to a message, and the run it completed (just now).
    public struct Answer: Sendable {
        public var ack: UploadAck
        public var completed: RunManifest?
        /// With `completed`: the chunk payload bytes that arrived for it.
        public var wireBytes: Int64?
        /// Files that failed their SHA-256 and are asked for again.
        public var healed: [String] = []
    }

    public enum StoreError: Error, CustomStringConvertible {
        case io(String)
        public var description: String {
            switch self { case .io(let s): s }
        }
    }

    func incoming(site: String, device: String, run: UUID) -> String {
        "\(root)/.incoming/\(site)/\(device)/\(run.uuidString)"
    }

    func final(site: String, device: String, manifest: RunManifest) -> String {
        "\(root)/\(site)/\(device)/\(manifest.taskIdentifier)/\(manifest.directory)"
    }

    // MARK: Messages

    /// A manifest: what is held of the run (or that it is complete).
    public func receive(manifest: RunManifest, site: String, device: String) throws -> Answer {
        if let problem = manifest.problem() { return Answer(ack: UploadAck(taskRunUUID: manifest.taskRunUUID, state: .refused, error: problem)) }
        let destination = final(site: site, device: device, manifest: manifest)
        if FileManager.default.fileExists(atPath: destination) { return Answer(ack: UploadAck(taskRunUUID: manifest.taskRunUUID, state: .complete)) }
        let folder = incoming(site: site, device: device, run: manifest.taskRunUUID)
        return try locked(folder) {
            var arrival = try load(folder)
            if arrival?.manifest != manifest {
                // New, or changed on the Pi (its files were read again): start over.
                try? FileManager.default.removeItem(atPath: folder + "/files")
                arrival = Arrival(manifest: manifest)
                // Empty files need no chunk: made now, and counted as arrived.
                for file in manifest.files where file.size == 0 {
                    try create(folder + "/files/" + file.path)
                    arrival!.verified.insert(file.path)
                }
                try save(arrival!, folder)
            }
            return try progress(arrival!, folder: folder, destination: destination)
        }
    }

    /// A chunk: written at its offset; the answer when the run is complete, or when a file failed
    /// its check (nil: more is expected).
    /// `wireBytes`: the payload's size as it arrived (encoded).
    public func receive(chunk: UploadChunk, run: UUID, site: String, device: String, wireBytes: Int = 0) throws -> Answer? {
        let folder = incoming(site: site, device: device, run: run)
        guard FileManager.default.fileExists(atPath: folder + "/state.json") else {
            return Answer(ack: UploadAck(taskRunUUID: run, state: .unknown))
        }
        return try locked(folder) {
            guard var arrival = try load(folder) else { return Answer(ack: UploadAck(taskRunUUID: run, state: .unknown)) }
            let destination = final(site: site, device: device, manifest: arrival.manifest)
            guard let file = arrival.manifest.files.first(where: { $0.path == chunk.header.file }),
                  file.size == chunk.header.size, file.sha256 == chunk.header.sha256 else {
                return nil  // a chunk of an earlier manifest of this run
            }
            guard !arrival.verified.contains(file.path) else { return nil }
            arrival.wireBytes = (arrival.wireBytes ?? 0) + Int64(wireBytes)
            let path = folder + "/files/" + file.path
            try write(chunk.bytes, at: chunk.header.offset, to: path)
            arrival.ranges[file.path] = Self.merge(arrival.ranges[file.path] ?? [], [chunk.header.offset, chunk.header.offset + Int64(chunk.bytes.count)])
            var healed = false
            if Self.contiguous(arrival.ranges[file.path] ?? []) >= file.size {
                if try Self.sha256(of: path) == file.sha256 {
                    arrival.verified.insert(file.path)
                } else {
                    // Corrupted on the way (or a stale byte): empty the file and ask again.
                    try Data().write(to: URL(fileURLWithPath: path))
                    arrival.ranges[file.path] = []
                    healed = true
                }
            }
            try save(arrival, folder)
            if healed || arrival.verified.count == arrival.manifest.files.count {
                var answer = try progress(arrival, folder: folder, destination: destination)
                if healed { answer.healed = [file.path] }
                return answer
            }
            return nil
        }
    }

    /// Complete (the run moved to its place) or what is still needed.
    func progress(_ arrival: Arrival, folder: String, destination: String) throws -> Answer {
        let run = arrival.manifest.taskRunUUID
        guard arrival.verified.count == arrival.manifest.files.count else {
            let have = Dictionary(uniqueKeysWithValues: arrival.manifest.files.map { f in
                (f.path, arrival.verified.contains(f.path) ? f.size : min(f.size, Self.contiguous(arrival.ranges[f.path] ?? [])))
            })
            return Answer(ack: UploadAck(taskRunUUID: run, state: .need, have: have, accepts: accepts.isEmpty ? nil : accepts))
        }
        try finish(folder: folder, destination: destination, manifest: arrival.manifest)
        return Answer(ack: UploadAck(taskRunUUID: run, state: .complete), completed: arrival.manifest, wireBytes: arrival.wireBytes)
    }

    /// Makes every file durable, then moves the run to its place in one rename.
    func finish(folder: String, destination: String, manifest: RunManifest) throws {
        let files = folder + "/files"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        for f in manifest.files { try Self.fsync(files + "/" + f.path) }
        let parent = PathText.parent(of: destination)
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: destination) {
            guard rename(files, destination) == 0 else { throw StoreError.io("rename \(files) → \(destination): \(String(cString: strerror(errno)))") }
            try Self.fsync(parent)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    // MARK: Disk

    func locked<T>(_ folder: String, _ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fd = open(folder + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.io("open \(folder)/.lock: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError.io("flock \(folder)/.lock: \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    func load(_ folder: String) throws -> Arrival? {
        guard let data = FileManager.default.contents(atPath: folder + "/state.json") else { return nil }
        return try? JSONValueDecoder().decode(Arrival.self, from: data)
    }

    func save(_ arrival: Arrival, _ folder: String) throws {
        let data = Data(try JSONTextEncoder().encode(arrival))
        let temporary = folder + "/state.json.new"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { throw StoreError.io("write \(temporary)") }
        guard rename(temporary, folder + "/state.json") == 0 else { throw StoreError.io("rename \(temporary): \(String(cString: strerror(errno)))") }
    }

    func create(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: PathText.parent(of: path), withIntermediateDirectories: true)
        // Made if missing, never truncated; a file that cannot be made is an error (an empty file
        // is counted as arrived once made).
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.io("create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

    func write(_ bytes: [UInt8], at offset: Int64, to path: String) throws {
        try create(path)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw StoreError.io("write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    static func fsync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // A run is acknowledged (and may leave the Pi) only once its bytes are on disk.
        guard Glibc.fsync(fd) == 0 else { throw StoreError.io("fsync \(path): \(String(cString: strerror(errno)))") }
    }

    /// The SHA-256 of a file, read in 1 MiB pieces.
    public static func sha256(of path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw StoreError.io("read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(buffer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hash.hexDigest()
    }

    // MARK: Ranges

    /// `ranges` with `[start, end)` added, sorted and merged.
    static func merge(_ ranges: [[Int64]], _ new: [Int64]) -> [[Int64]] {
        guard new[1] > new[0] else { return ranges }
        var all = (ranges + [new]).sorted { $0[0] < $1[0] }
        var merged: [[Int64]] = [all.removeFirst()]
        for r in all {
            if r[0] <= merged[merged.count - 1][1] {
                merged[merged.count - 1][1] = max(merged[merged.count - 1][1], r[1])
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    /// The bytes held from the start.
    static func contiguous(_ ranges: [[Int64]]) -> Int64 {
        guard let first = ranges.first, first[0] == 0 else { return 0 }
        return first[1]
    }
}
