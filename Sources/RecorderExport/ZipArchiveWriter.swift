import FoundationEssentials
import Glibc
import RecorderCompression
import RecorderRuntime

/// A zip archive written once, entry after entry, as PKWARE's APPNOTE (6.3) lays it out: each
/// entry's local header, its data deflated (RFC 1951, through zlib) and the header's CRC-32 and
/// sizes written back once known; then the central directory and its end record. Names are UTF-8
/// (flag bit 11), times the modification's in DOS fields (UTC) and, exactly, in the extended
/// timestamp field (0x5455) that Info-ZIP reads. The sage export's archive and the page's CSV
/// download; read back in the tests by Python's `zipfile`, `unzip -t` and `zipinfo`.
///
/// No ZIP64: an entry, or the archive before its directory, of 4 GiB or more, or more than
/// 65,534 entries, is refused with an error (the archive is then incomplete: the caller removes it).
public final class ZipArchiveWriter {
    /// An entry as the central directory repeats it.
    private struct Written {
        var name: [UInt8]
        var modified: Int64
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var offset: Int
        var directory: Bool
    }

    let path: String
    private let file: OutputFile
    private var written: [Written] = []
    private var names: Set<String> = []
    static let limit = Int(UInt32.max)

    /// A new archive at `path` (created exclusively: never over an existing file).
    init(creating path: String) throws(ExportError) {
        self.path = path
        file = try OutputFile(path: path)
    }

    /// Adds `bytes` as the file `name` (a relative path, `/` between its parts).
    func add(name: String, bytes: [UInt8], modified: Int64) throws(ExportError) {
        try add(name: name, modified: modified, directory: false) { (consume) throws(ExportError) in
            try bytes.withUnsafeBytes { all in Result { () throws(ExportError) in try consume(all) } }.get()
        }
    }

    /// Adds the file at `source` as `name`, read in 64 KiB pieces (memory stays flat).
    func add(name: String, contentsOf source: String, modified: Int64) throws(ExportError) {
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .badFile("\(source): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        try add(name: name, modified: modified, directory: false) { (consume) throws(ExportError) in
            while true {
                let n = piece.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .badFile("\(source): \(String(cString: strerror(errno)))")
                }
                if n == 0 { return }
                try piece.withUnsafeBytes { all in Result { () throws(ExportError) in try consume(UnsafeRawBufferPointer(rebasing: all[0..<n])) } }.get()
            }
        }
    }

    /// Adds the folder `name` (an entry of its own, `name/`, so that an empty one is kept).
    func addDirectory(name: String, modified: Int64) throws(ExportError) {
        try add(name: name.hasSuffix("/") ? name : name + "/", modified: modified, directory: true) { (_) throws(ExportError) in }
    }

    /// Adds the folder at `source` and everything under it, as `name/…`, in name order.
    func addTree(name: String, contentsOf source: String, modified: Int64) throws(ExportError) {
        try addDirectory(name: name, modified: modified)
        for child in try Self.children(of: source) {
            var status = stat()
            guard lstat(source + "/" + child, &status) == 0 else { throw .badFile("\(source)/\(child): \(String(cString: strerror(errno)))") }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: try addTree(name: name + "/" + child, contentsOf: source + "/" + child, modified: modified)
            case S_IFREG: try add(name: name + "/" + child, contentsOf: source + "/" + child, modified: modified)
            default: throw .badFile("\(source)/\(child): neither a file nor a folder (not archived)")
            }
        }
    }

    /// The folder at `folder` zipped into a new archive at `output`, its entries under `name/`
    /// (their times the folder's); a failure leaves no archive behind.
    public static func zip(folder: String, as name: String, to output: String) throws(ExportError) {
        var status = stat()
        guard stat(folder, &status) == 0 else { throw .badFile("\(folder): \(String(cString: strerror(errno)))") }
        let archive = try ZipArchiveWriter(creating: output)
        var completed = false
        defer { if !completed { unlink(output) } }
        try archive.addTree(name: name, contentsOf: folder, modified: Int64(status.st_mtim.tv_sec))
        try archive.finish()
        completed = true
    }

    /// Writes the central directory and its end record; fsyncs and closes the file.
    func finish() throws(ExportError) {
        let start = file.position
        for entry in written {
            var h = ZipBytes()
            h.u32(0x0201_4B50)
            h.u16(3 << 8 | 20)  // made by: Unix, APPNOTE 2.0
            h.u16(20)
            h.u16(1 << 11)  // UTF-8 names
            h.u16(entry.directory ? 0 : 8)
            h.dosTime(entry.modified)
            h.u32(entry.crc)
            h.u32(UInt32(entry.compressedSize))
            h.u32(UInt32(entry.size))
            h.u16(UInt16(entry.name.count))
            h.u16(9)  // the extended timestamp: its header and flags + mtime
            h.u16(0)  // comment
            h.u16(0)  // disk
            h.u16(0)  // internal attributes
            h.u32(entry.directory ? UInt32(0o040755) << 16 | 0x10 : UInt32(0o100644) << 16)
            h.u32(UInt32(entry.offset))
            h.bytes(entry.name)
            h.extendedTimestamp(entry.modified)
            try file.append(h.bytes)
        }
        let size = file.position - start
        guard file.position < Self.limit else { throw .output("\(path): the archive reached 4 GiB (ZIP64 is not written)") }
        var end = ZipBytes()
        end.u32(0x0605_4B50)
        end.u16(0)
        end.u16(0)
        end.u16(UInt16(written.count))
        end.u16(UInt16(written.count))
        end.u32(UInt32(size))
        end.u32(UInt32(start))
        end.u16(0)
        try file.append(end.bytes)
        try file.close()
    }

    /// One entry: its local header, the data `produce` hands to its `consume` (deflated, the
    /// CRC over it), the header's CRC and sizes written back.
    private func add(name: String, modified: Int64, directory: Bool,
                     produce: ((UnsafeRawBufferPointer) throws(ExportError) -> Void) throws(ExportError) -> Void) throws(ExportError) {
        try Self.check(name)
        guard names.insert(name).inserted else { throw .output("\(path): \(name) is in the archive already") }
        guard written.count < 65_534 else { throw .output("\(path): more than 65,534 entries (ZIP64 is not written)") }
        let offset = file.position
        guard offset < Self.limit else { throw .output("\(path): the archive reached 4 GiB (ZIP64 is not written)") }
        let encodedName = Array(name.utf8)
        var header = ZipBytes()
        header.u32(0x0403_4B50)
        header.u16(20)
        header.u16(1 << 11)
        header.u16(directory ? 0 : 8)
        header.dosTime(modified)
        header.u32(0)  // CRC-32, compressed and uncompressed size: written back below
        header.u32(0)
        header.u32(0)
        header.u16(UInt16(encodedName.count))
        header.u16(9)
        header.bytes(encodedName)
        header.extendedTimestamp(modified)
        try file.append(header.bytes)

        var entry = Written(name: encodedName, modified: modified, crc: 0, compressedSize: 0, size: 0, offset: offset, directory: directory)
        if !directory {
            var crc = CRC32()
            let deflater: RawDeflater
            do { deflater = try RawDeflater() } catch { throw .output("\(path): \(error)") }
            var size = 0
            var compressed = 0
            try produce { (piece) throws(ExportError) in
                crc.update(piece)
                size += piece.count
                let made: [UInt8]
                do { made = try deflater.deflate(piece, finish: false) } catch { throw .output("\(path): \(name): \(error)") }
                compressed += made.count
                try file.append(made)
            }
            let last: [UInt8]
            do { last = try deflater.deflate(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) } catch { throw .output("\(path): \(name): \(error)") }
            compressed += last.count
            try file.append(last)
            guard size < Self.limit, compressed < Self.limit else { throw .output("\(path): \(name) is 4 GiB or more (ZIP64 is not written)") }
            entry.crc = crc.value
            entry.size = size
            entry.compressedSize = compressed
            var sizes = ZipBytes()
            sizes.u32(entry.crc)
            sizes.u32(UInt32(compressed))
            sizes.u32(UInt32(size))
            try file.overwrite(at: offset + 14, with: sizes.bytes)
        }
        written.append(entry)
    }

    /// A name an unzip puts inside its folder: relative, no empty, `.` or `..` part, no
    /// backslash or control character, at most 65,535 bytes.
    static func check(_ name: String) throws(ExportError) {
        let parts = (name.hasSuffix("/") ? String(name.dropLast()) : name).split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 65_535, !name.hasPrefix("/"),
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
              !name.unicodeScalars.contains(where: { $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F })
        else { throw .output("\(name.debugDescription) cannot be a name in a zip archive (a relative path without . or .. parts)") }
    }

    /// The names in the folder at `path`, sorted, without `.` and `..`.
    static func children(of path: String) throws(ExportError) -> [String] {
        guard let names = DirectoryEntries.names(of: path) else { throw .badFile("\(path): \(String(cString: strerror(errno)))") }
        return names.sorted()
    }
}
