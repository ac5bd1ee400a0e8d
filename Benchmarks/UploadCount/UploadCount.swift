import Foundation
import RecorderFleet

/// A run's upload without the network, synchronous, for instruction counts
/// (scripts/count-instructions.sh upload): the Pi's side (the manifest: every file's SHA-256; the
/// chunks framed as recorderd sends them) and the collector's (each chunk decoded and written at
/// its offset, every file's SHA-256 checked, the run moved into place), as `RunUploader` and
/// `CollectorStore` do them. valgrind cannot run the daemon itself. LEVEL: the chunks' zstd level
/// (0, the default: plain); SIDE `pi`: the Pi's side only (the manifest, each chunk read and
/// encoded), `both` (the default) with the collector's. Prints the files' bytes, the chunks'
/// payload bytes and the collector's answer.
///
///     UploadCount RUN_DIRECTORY COLLECTOR_DIRECTORY [LEVEL [pi|both]]
enum UploadCount {
    static let chunkBytes = 256 * 1024

    static func main() {
        let arguments = CommandLine.arguments
        guard (3...5).contains(arguments.count), let levelNumber = Int32(arguments.count > 3 ? arguments[3] : "0"), (0...19).contains(levelNumber),
              arguments.count < 5 || ["pi", "both"].contains(arguments[4]) else {
            FileHandle.standardError.write(Data("usage: UploadCount RUN_DIRECTORY COLLECTOR_DIRECTORY [LEVEL (0: plain, 1-19: zstd) [pi|both]]\n".utf8))
            exit(64)
        }
        let (run, root) = (arguments[1], arguments[2])
        let level: Int32? = levelNumber == 0 ? nil : levelNumber
        let collecting = arguments.count < 5 || arguments[4] == "both"
        var wire = 0
        do {
            let uuid = UUID(uuidString: String(run.suffix(36))) ?? UUID()
            let manifest = try RunOutbox.manifest(runDirectory: run, taskRunUUID: uuid, taskIdentifier: "count", status: .finished)
            let store = CollectorStore(root: root)
            if collecting { _ = try store.receive(manifest: manifest, site: "count", device: "pi") }
            var last: CollectorStore.Answer?
            for file in manifest.files {
                guard let handle = FileHandle(forReadingAtPath: run + "/" + file.path) else { throw CocoaError(.fileReadNoPermission) }
                var offset: Int64 = 0
                while offset < file.size {
                    let bytes = [UInt8](try handle.read(upToCount: chunkBytes) ?? Data())
                    let chunk = UploadChunk(header: .init(file: file.path, offset: offset, size: file.size, sha256: file.sha256), bytes: bytes)
                    guard let sent = chunk.encoded(zstdLevel: level) else { throw CocoaError(.coderReadCorrupt) }
                    wire += sent.count
                    if collecting {
                        guard let received = UploadChunk.decode(sent) else { throw CocoaError(.coderReadCorrupt) }
                        last = try store.receive(chunk: received, run: uuid, site: "count", device: "pi", wireBytes: sent.count) ?? last
                    }
                    offset += Int64(bytes.count)
                }
                try handle.close()
            }
            print(manifest.files.reduce(Int64(0)) { $0 + $1.size }, wire, last.map { $0.ack.state.rawValue } ?? "no answer")
        } catch {
            FileHandle.standardError.write(Data("UploadCount: \(error)\n".utf8))
            exit(1)
        }
    }
}
