import Glibc

/// Bytes on disk under a directory: what a run takes (`runs.get`, `recorderctl show DIR`).
public enum DirectorySize {
    /// Bytes allocated to the regular files under `directory` (symbolic links not followed;
    /// saturates rather than overflows).
    public static func bytes(of directory: String) -> Int64 {
        var total: Int64 = 0
        add(directory, to: &total)
        return total
    }

    /// Adds the regular files under `directory`, its subdirectories (not symbolic links to
    /// directories) included.
    private static func add(_ directory: String, to total: inout Int64) {
        for name in DirectoryEntries.names(of: directory) ?? [] {
            let path = directory + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                let (sum, overflow) = total.addingReportingOverflow(Int64(st.st_blocks).multipliedReportingOverflow(by: 512).partialValue)
                total = overflow ? .max : sum
            case S_IFDIR:
                add(path, to: &total)
            default:
                break
            }
        }
    }
}
