import Foundation

/// Bytes on disk under a directory: what a run takes (`runs.get`, `recorderctl show DIR`).
public enum DirectorySize {
    /// Bytes allocated to the regular files under `directory` (symbolic links not followed;
    /// saturates rather than overflows).
    public static func bytes(of directory: String) -> Int64 {
        var total: Int64 = 0
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return 0 }
        while let name = walker.nextObject() as? String {
            var st = stat()
            guard lstat(directory + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let (sum, overflow) = total.addingReportingOverflow(Int64(st.st_blocks).multipliedReportingOverflow(by: 512).partialValue)
            total = overflow ? .max : sum
        }
        return total
    }
}
