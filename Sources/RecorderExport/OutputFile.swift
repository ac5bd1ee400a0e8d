import FoundationEssentials
import Glibc

/// A new file written through a 1 MiB buffer: created exclusively (never over an existing
/// file), fsynced when closed, every failure an `ExportError.output` naming the path.
final class OutputFile {
    let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws(ExportError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .output("\(path): \(String(cString: strerror(errno)))") }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func append(_ text: String) throws(ExportError) {
        position += text.utf8.count
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func append(_ bytes: some Sequence<UInt8>) throws(ExportError) {
        let before = buffer.count
        buffer.append(contentsOf: bytes)
        position += buffer.count - before
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends a large block without copying it into the buffer (a whole document).
    func append(_ bytes: [UInt8]) throws(ExportError) {
        position += bytes.count
        guard bytes.count >= 1 << 20 else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
            return
        }
        try flush()
        try writeAll(bytes)
    }

    /// The bytes appended so far (written or still buffered): the offset of the next.
    private(set) var position = 0

    /// Writes `bytes` over what was appended at `offset` (a header whose sizes are known only
    /// after its data); the file's length and `position` stay.
    func overwrite(at offset: Int, with bytes: [UInt8]) throws(ExportError) {
        precondition(offset >= 0 && offset + bytes.count <= position, "overwrite past what was appended")
        try flush()
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .output("\(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    func flush() throws(ExportError) {
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to the file, retrying short writes and EINTR.
    private func writeAll(_ bytes: [UInt8]) throws(ExportError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .output("\(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Flushes, fsyncs and closes.
    func close() throws(ExportError) {
        try flush()
        guard fsync(fd) == 0 else { throw .output("\(path): \(String(cString: strerror(errno)))") }
        let descriptor = fd
        fd = -1
        guard Glibc.close(descriptor) == 0 else { throw .output("\(path): \(String(cString: strerror(errno)))") }
    }

    /// Writes `bytes` to a new file at `path`, durably; a failure leaves no file behind.
    static func create(_ path: String, holding bytes: [UInt8]) throws(ExportError) {
        let file = try OutputFile(path: path)
        var completed = false
        defer { if !completed { unlink(path) } }
        try file.append(bytes)
        try file.close()
        completed = true
    }
}
