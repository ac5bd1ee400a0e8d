import FoundationEssentials
import Glibc
import RecorderRuntime

/// Writes a PCM WAV file (RIFF, `fmt ` PCM, `data`), S16_LE: exactly the frames appended. The
/// header's sizes are 0 while recording and written on `close` (crash recovery repairs them
/// from the file length: `WAVFileWriter.repairHeader`). Appended samples are gathered in a buffer
/// of `bufferSize` bytes and written when it fills or on `flush` (the recorder flushes at the end
/// of every drain of its ring, so nothing waits in memory between drains); `syncIfDue` calls
/// `fdatasync` at most once per `syncInterval`; `close` flushes and fsyncs. Confined to one
/// serial queue.
public final class WAVFileWriter {
    public let path: String
    let fd: Int32
    public let sampleRate: Int
    public let channels: Int
    /// Frames appended (in the file once flushed; after a failed write, the frames in the file).
    public private(set) var framesWritten = 0
    /// Frames in the file (written by `write(2)`).
    private var framesInFile = 0
    private var pending: [UInt8] = []
    var sync: PeriodicSync
    public private(set) var isClosed = false

    /// Bytes of the header before the samples.
    public static let headerSize = 44
    /// Bytes gathered before a write.
    public static let bufferSize = 64 * 1024

    public init(path: String, sampleRate: Int, channels: Int, syncInterval: Double = 1.0) throws(StorageError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError("create", path: path, errno: errno) }
        self.fd = fd
        sync = PeriodicSync(interval: syncInterval)
        pending.reserveCapacity(Self.bufferSize)
        let header = Self.header(sampleRate: sampleRate, channels: channels, dataBytes: 0)
        if let failure = header.withUnsafeBytes({ POSIXFile.writeAll(fd, $0) }) {
            Glibc.close(fd)
            throw StorageError("write", path: path, errno: failure)
        }
    }

    /// The 44-byte header for `dataBytes` of S16 samples.
    public static func header(sampleRate: Int, channels: Int, dataBytes: Int) -> [UInt8] {
        var h: [UInt8] = []
        h.reserveCapacity(headerSize)
        func ascii(_ s: String) { h.append(contentsOf: s.utf8) }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { h.append(contentsOf: $0) } }
        ascii("RIFF"); u32(dataBytes == 0 ? 0 : 36 + dataBytes); ascii("WAVE")
        ascii("fmt "); u32(16); u16(1); u16(channels); u32(sampleRate); u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
        ascii("data"); u32(dataBytes)
        return h
    }

    /// Appends interleaved samples (whole frames); writes the buffer when it is full.
    public func write(_ samples: [Int16]) throws(StorageError) {
        guard !samples.isEmpty else { return }
        samples.withUnsafeBytes { raw in
            #if _endian(big)
            for sample in samples { withUnsafeBytes(of: sample.littleEndian) { pending.append(contentsOf: $0) } }
            #else
            pending.append(contentsOf: raw)
            #endif
        }
        framesWritten += samples.count / max(1, channels)
        if pending.count >= Self.bufferSize { try flush() }
    }

    /// Appends `frames` frames of silence (lost audio, so that the file's timeline stays the wall
    /// clock's). A long stretch extends the file without writing its zeros (a sparse hole).
    public func writeSilence(frames: Int) throws(StorageError) {
        guard frames > 0 else { return }
        let bytes = frames * channels * 2
        if pending.count + bytes <= Self.bufferSize {
            pending.append(contentsOf: repeatElement(0, count: bytes))
            framesWritten += frames
            return
        }
        try flush()
        let length = Self.headerSize + (framesInFile + frames) * channels * 2
        guard ftruncate(fd, off_t(length)) == 0 else { throw StorageError("extend", path: path, errno: errno) }
        guard lseek(fd, 0, SEEK_END) >= 0 else { throw StorageError("seek", path: path, errno: errno) }
        framesWritten += frames
        framesInFile = framesWritten
        sync.wrote()
    }

    /// Writes the buffered samples. On failure the file is cut back to its last whole write (the
    /// buffered frames are lost and `framesWritten` says what the file holds).
    public func flush() throws(StorageError) {
        guard !pending.isEmpty else { return }
        let failure = pending.withUnsafeBytes { POSIXFile.writeAll(fd, $0) }
        defer { pending.removeAll(keepingCapacity: true) }
        if let failure {
            let good = Self.headerSize + framesInFile * channels * 2
            _ = ftruncate(fd, off_t(good))
            _ = lseek(fd, off_t(good), SEEK_SET)
            framesWritten = framesInFile
            throw StorageError("write", path: path, errno: failure)
        }
        framesInFile = framesWritten
        sync.wrote()
    }

    /// Makes written audio durable if the last sync is older than the interval.
    public func syncIfDue(now: Double) {
        sync.syncIfDue(fd, now: now)
    }

    /// Writes what is buffered and the header's sizes, fsyncs and closes.
    public func close() throws(StorageError) {
        guard !isClosed else { return }
        isClosed = true
        defer { Glibc.close(fd) }
        // A failed last write still leaves a valid file: the header covers what it holds.
        var lastWrite: StorageError?
        do { try flush() } catch { lastWrite = error }
        let header = Self.header(sampleRate: sampleRate, channels: channels, dataBytes: framesWritten * channels * 2)
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw StorageError("write header", path: path, errno: errno) }
        guard fsync(fd) == 0 else { throw StorageError("fsync", path: path, errno: errno) }
        if let lastWrite { throw lastWrite }
    }

    /// Repairs the sizes of a WAV left by a crash (0 while recording) from the file's length,
    /// cutting a torn last frame; returns the frames it holds, or nil when it is no recorderd WAV.
    @discardableResult
    public static func repairHeader(path: String) -> (frames: Int, sampleRate: Int, channels: Int)? {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var header = [UInt8](repeating: 0, count: headerSize)
        guard pread(fd, &header, headerSize, 0) == headerSize,
              header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8),
              header[36..<40].elementsEqual("data".utf8) else { return nil }
        func u16(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let channels = max(1, u16(22))
        let sampleRate = u32(24)
        var s = stat()
        guard fstat(fd, &s) == 0 else { return nil }
        let frameBytes = channels * 2
        let frames = max(0, Int(s.st_size) - headerSize) / frameBytes
        let length = headerSize + frames * frameBytes
        if Int(s.st_size) != length { _ = ftruncate(fd, off_t(length)) }
        let fixed = Self.header(sampleRate: sampleRate, channels: channels, dataBytes: frames * frameBytes)
        guard fixed.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == headerSize, fsync(fd) == 0 else { return nil }
        return (frames, sampleRate, channels)
    }
}
