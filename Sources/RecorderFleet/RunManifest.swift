import FoundationEssentials
import Glibc
import RecorderCompression
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// What a Pi uploads of one ended run (`runs/{uuid}/manifest`): the run, and each of its files
/// with its size and SHA-256. The collector writes the files under `{site}/{device}/{task}/
/// {directory}/`, exactly as on the Pi, and acknowledges the run when every file matches.
public struct RunManifest: Sendable, Codable, Equatable {
    public struct File: Sendable, Codable, Equatable {
        /// The path inside the run directory (`motion.jsonl`; `/`-separated, no `..`).
        public var path: String
        public var size: Int64
        public var sha256: String

        public init(path: String, size: Int64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public var taskRunUUID: UUID
    public var taskIdentifier: String
    /// The run directory's own name (`20261123T185738Z-<uuid>`).
    public var directory: String
    public var status: TaskRunStatus?
    public var files: [File]

    public init(taskRunUUID: UUID, taskIdentifier: String, directory: String, status: TaskRunStatus?, files: [File]) {
        self.taskRunUUID = taskRunUUID
        self.taskIdentifier = taskIdentifier
        self.directory = directory
        self.status = status
        self.files = files
    }

    /// The largest manifest and the most files a run may have (a collector refuses more).
    public static let maximumFiles = 10_000
    public static let maximumFileSize: Int64 = 1 << 40

    /// Why a manifest cannot be written to disk safely (nil: it can): every name a single
    /// relative path of plain components, the task and directory names plain too.
    public func problem() -> String? {
        guard RecorderIdentifier.isValid(taskIdentifier) else { return "taskIdentifier \(taskIdentifier.debugDescription) is not an identifier" }
        guard Self.isPlainName(directory), directory.contains(taskRunUUID.uuidString) else { return "directory \(directory.debugDescription) is not a run directory name" }
        guard files.count <= Self.maximumFiles else { return "\(files.count) files (at most \(Self.maximumFiles))" }
        var seen = Set<String>()
        for f in files {
            let parts = f.path.split(separator: "/", omittingEmptySubsequences: false)
            guard !f.path.isEmpty, f.path.utf8.count <= 1024, parts.allSatisfy({ Self.isPlainName(String($0)) }) else {
                return "file path \(f.path.debugDescription) is not a relative path of plain names"
            }
            guard (0...Self.maximumFileSize).contains(f.size) else { return "\(f.path): size \(f.size) out of range" }
            guard f.sha256.utf8.count == 64, f.sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                return "\(f.path): sha256 is not 64 lower-case hex digits"
            }
            guard seen.insert(f.path).inserted else { return "\(f.path) listed twice" }
        }
        return nil
    }

    /// A file or folder name with no separators, not `.`/`..`, not hidden, printable.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0")
            && !name.unicodeScalars.contains(where: ControlCharacters.isControl)
    }
}

/// The collector's answer about one run (`runs/{uuid}/ack`).
public struct UploadAck: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Every file is on the collector's disk and matches its SHA-256: the run is uploaded.
        case complete
        /// Send the rest: `have` is each file's bytes held from its start.
        case need
        /// The collector does not know the run (no manifest yet): announce it again.
        case unknown
        /// The manifest cannot be accepted (`error` says why); the Pi does not retry it.
        case refused
    }

    public var taskRunUUID: UUID
    public var state: State
    public var have: [String: Int64]?
    public var error: String?
    /// With `need`: the chunk encodings the collector reads besides plain bytes (`"zstd"`); a
    /// collector without it (an older one) gets plain chunks.
    public var accepts: [String]?

    public init(taskRunUUID: UUID, state: State, have: [String: Int64]? = nil, error: String? = nil, accepts: [String]? = nil) {
        self.taskRunUUID = taskRunUUID
        self.state = state
        self.have = have
        self.error = error
        self.accepts = accepts
    }
}

/// One chunk of a file (`runs/{uuid}/chunk`): a JSON header line, then the bytes.
public struct UploadChunk: Sendable, Equatable {
    public struct Header: Sendable, Codable, Equatable {
        public var file: String
        public var offset: Int64
        /// The whole file's size and SHA-256 (the collector checks the file once it is whole).
        public var size: Int64
        public var sha256: String
        /// How the bytes after the header are encoded: nil, plain; `"zstd"`, one zstd frame of
        /// `length` bytes of the file.
        public var encoding: String?
        /// The file bytes the chunk holds, when encoded.
        public var length: Int64?

        public init(file: String, offset: Int64, size: Int64, sha256: String, encoding: String? = nil, length: Int64? = nil) {
            self.file = file
            self.offset = offset
            self.size = size
            self.sha256 = sha256
            self.encoding = encoding
            self.length = length
        }
    }

    /// The one encoding besides plain bytes.
    public static let zstd = "zstd"
    /// The most file bytes one encoded chunk may hold (a collector decodes no more).
    public static let maximumEncodedLength: Int64 = 16 << 20

    public var header: Header
    public var bytes: [UInt8]

    public init(header: Header, bytes: [UInt8]) {
        self.header = header
        self.bytes = bytes
    }

    /// The payload: the header line, then the bytes — plain, or with `zstdLevel` one zstd frame
    /// of them (the header then says so, and how many bytes it holds). Nil when zstd fails.
    public func encoded(zstdLevel: Int32? = nil) -> [UInt8]? {
        var header = header
        var body = bytes
        if let zstdLevel {
            guard let frame = try? Zstd.compress(bytes, level: zstdLevel) else { return nil }
            (header.encoding, header.length, body) = (Self.zstd, Int64(bytes.count), frame)
        } else {
            (header.encoding, header.length) = (nil, nil)
        }
        var out = (try? JSONTextEncoder().encode(header)) ?? []
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: body)
        return out
    }

    /// Decodes a payload (a zstd chunk into its file bytes: `bytes` is always plain); nil when
    /// it is not a chunk whose numbers are in range, its encoding is unknown, or its frame does
    /// not hold exactly `length` bytes.
    public static func decode(_ payload: [UInt8]) -> UploadChunk? {
        guard let newline = payload.prefix(4096).firstIndex(of: UInt8(ascii: "\n")),
              var header = try? JSONValueDecoder().decode(Header.self, from: payload[..<newline]) else { return nil }
        let body = payload[(newline + 1)...]
        let bytes: [UInt8]
        switch header.encoding {
        case nil:
            guard header.length == nil else { return nil }
            bytes = Array(body)
        case Self.zstd?:
            guard let length = header.length, (0...Self.maximumEncodedLength).contains(length),
                  let content = Zstd.decompress(Array(body), expectedSize: Int(length)) else { return nil }
            bytes = content
        default:
            return nil
        }
        guard header.offset >= 0, header.size >= 0, header.size <= RunManifest.maximumFileSize,
              header.offset <= header.size - Int64(bytes.count) else { return nil }
        (header.encoding, header.length) = (nil, nil)
        return UploadChunk(header: header, bytes: bytes)
    }
}
