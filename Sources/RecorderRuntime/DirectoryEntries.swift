import Glibc

/// The names in a folder (`opendir`/`readdir`), without `.` and `..`, in the order the file
/// system gives them: what the client side walks without Foundation's `FileManager.enumerator`.
public enum DirectoryEntries {
    /// The names in the folder at `path`; nil when it cannot be opened (`errno` says why).
    public static func names(of path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
