import FoundationEssentials
import Glibc
import RecorderRuntime

/// The directory an export writes into: new (or empty), and never inside the run it exports.
enum OutputDirectory {
    static func create(_ path: String, outside runDirectory: String) throws(ExportError) {
        try refuseInside(path, runDirectory: runDirectory)
        if FileStatus.exists(path) {
            guard FileStatus.isDirectory(path), ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["?"]).isEmpty else {
                throw .output("\(path) exists: choose a new path (an export never writes over files)")
            }
            return
        }
        guard mkdir(path, 0o755) == 0 else { throw .output("cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    /// An error when `path` is the run directory or inside it.
    static func refuseInside(_ path: String, runDirectory: String) throws(ExportError) {
        let absolute = resolved(path)
        let run = resolved(runDirectory)
        if absolute == run || absolute.hasPrefix(run + "/") {
            throw .output("\(path) is inside the run directory \(runDirectory): an export never changes the run's files")
        }
    }

    /// `path` absolute, with symbolic links of its existing part resolved.
    static func resolved(_ path: String) -> String {
        FileStatus.resolvingSymlinks(path)
    }
}
