import Glibc

/// What is at a path, by `stat(2)` (symbolic links followed), and the path with its links
/// resolved: Foundation's `FileManager.fileExists(atPath:isDirectory:)` and `NSString`'s
/// `resolvingSymlinksInPath`, without Foundation.
public enum FileStatus {
    /// Whether something is at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory (or a link to one).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` is a regular file (or a link to one).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The absolute path `path` names, its existing part's symbolic links resolved (`realpath`)
    /// and the rest (what does not exist yet) kept as text; `.` and `..` taken out.
    public static func resolvingSymlinks(_ path: String) -> String {
        let absolute = PathText.standardized(path.hasPrefix("/") ? path : currentDirectory() + "/" + path)
        var existing = absolute
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.reversed().joined(separator: "/")
            }
            guard existing != "/" else { return absolute }
            rest.append(PathText.lastComponent(of: existing))
            existing = PathText.parent(of: existing)
        }
    }

    /// The working directory (`getcwd`), or `/` when it cannot be read.
    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}
