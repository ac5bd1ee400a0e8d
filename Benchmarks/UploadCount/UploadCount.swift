import Foundation
import RecorderFleet

/// A run's upload without the network, synchronous, for instruction counts
/// (scripts/count-instructions.sh upload): the Pi's side (the manifest: every file's SHA-256; the
/// chunks framed as recorderd sends them) and the collector's (each chunk decoded and written at
/// its offset, every file's SHA-256 checked, the run moved into place), as `RunUploader` and
/// `CollectorStore` do them. valgrind cannot run the daemon itself.
///
///     UploadCount RUN_DIRECTORY COLLECTOR_DIRECTORY
enum UploadCount {
    static let chunkBytes = 256 * 1024

    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: UploadCount RUN_DIRECTORY COLLECTOR_DIRECTORY\n".utf8))
            exit(64)
        }
        let (run, root) = (arguments[1], arguments[2])
        do {
            let uuid = UUID(uuidString: String(run.suffix(36))) ?? UUID()
            let manifest = try RunOutbox.manifest(runDirectory: run, taskRunUUID: uuid, taskIdentifier: "count", status: .finished)
            let store = CollectorStore(root: root)
            _ = try store.receive(manifest: manifest, site: "count", device: "pi")
            var last: CollectorStore.Answer?
            for file in manifest.files {
                guard let handle = FileHandle(forReadingAtPath: run + "/" + file.path) else { throw CocoaError(.fileReadNoPermission) }
                var offset: Int64 = 0
                while offset < file.size {
                    let bytes = [UInt8](try handle.read(upToCount: chunkBytes) ?? Data())
                    let sent = UploadChunk(header: .init(file: file.path, offset: offset, size: file.size, sha256: file.sha256), bytes: bytes).encoded()
                    guard let received = UploadChunk.decode(sent) else { throw CocoaError(.coderReadCorrupt) }
                    last = try store.receive(chunk: received, run: uuid, site: "count", device: "pi") ?? last
                    offset += Int64(bytes.count)
                }
                try handle.close()
            }
            print(manifest.files.reduce(Int64(0)) { $0 + $1.size }, last.map { $0.ack.state.rawValue } ?? "no answer")
        } catch {
            FileHandle.standardError.write(Data("UploadCount: \(error)\n".utf8))
            exit(1)
        }
    }
}
