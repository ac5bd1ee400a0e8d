import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// Reads and writes `taskResult.json` atomically: temporary file, fsync, rename, fsync of the
/// directory. A reader sees the old or the new manifest, never a mix.
public enum TaskResultStore {
    public static let fileName = "taskResult.json"

    /// Writes `result` into `directory`.
    public static func write(_ result: TaskResult, directory: String) throws(StorageError) {
        // The manifest's one codec (JSONTextEncoder, read back by JSONValueDecoder), pretty:
        // Foundation's indentation, for a fraction of its CPU; this runs on every step boundary.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        do {
            try JSONTextEncoder(prettyPrinted: true).encode(result, into: &bytes)
        } catch {
            throw StorageError("encode", path: directory, errno: EINVAL)
        }
        bytes.append(UInt8(ascii: "\n"))
        try writeAtomically(Data(bytes), path: directory + "/" + fileName)
    }

    /// Reads the manifest in `directory`.
    public static func read(directory: String) throws -> TaskResult {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + fileName))
        return try JSONValueDecoder().decode(TaskResult.self, from: data)
    }

    /// Replaces `path` with `data` atomically and durably.
    public static func writeAtomically(_ data: Data, path: String) throws(StorageError) {
        let directory = PathText.parent(of: path)
        let temporary = directory + "/." + PathText.lastComponent(of: path) + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError("create", path: temporary, errno: errno) }
        let failure = data.withUnsafeBytes { POSIXFile.writeAll(fd, $0) } ?? (fsync(fd) == 0 ? nil : errno)
        close(fd)
        if let failure {
            unlink(temporary)
            throw StorageError("write", path: temporary, errno: failure)
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw StorageError("rename", path: path, errno: e)
        }
        syncDirectory(directory)
    }

    /// Fsyncs a directory so that a rename or a new file in it survives power loss.
    public static func syncDirectory(_ directory: String) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }
}
