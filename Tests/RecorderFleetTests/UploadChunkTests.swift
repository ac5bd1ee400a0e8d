import Foundation
import RecorderCompression
import RecorderFleet
import RecorderRuntime
import RecorderTestSupport
import Testing

/// Upload chunks, plain and zstd-compressed, without a broker: the payload's codec (against
/// the `zstd` program as the independent reader and writer of frames), what a collector refuses,
/// and a whole run through a `CollectorStore` that offers zstd.
@Suite struct UploadChunkTests {
    /// Real motion lines (the mobgap walk's accelerometer, as recorderd writes them).
    static func motionLines(count: Int) throws -> [UInt8] {
        let csv = try String(contentsOfFile: Fixtures.longWalk, encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        var text = ""
        for i in 0..<count {
            let v = rows[i % rows.count]
            text += #"{"uptime":\#(Double(i) / 100),"timestamp":\#(Double(i) / 100),"sensorType":"accelerometer","x":\#(v[1]),"y":\#(v[2]),"z":\#(v[3])}"# + "\n"
        }
        return Array(text.utf8)
    }

    static let header = UploadChunk.Header(file: "motion.jsonl", offset: 0, size: 1 << 20, sha256: String(repeating: "0", count: 64))

    @Test(.ownThread) func aCompressedChunkDecodesToItsBytesAndTheZstdProgramReadsItsFrame() async throws {
        let bytes = try Self.motionLines(count: 3000)
        let chunk = UploadChunk(header: UploadChunk.Header(file: "motion.jsonl", offset: 1000, size: Int64(bytes.count) + 1000, sha256: Self.header.sha256), bytes: bytes)
        let payload = try #require(chunk.encoded(zstdLevel: 1))
        let plain = try #require(chunk.encoded())
        #expect(UploadChunk.decode(payload) == chunk && UploadChunk.decode(plain) == chunk, "decoded: plain bytes, the header as sent")
        let newline = try #require(payload.firstIndex(of: UInt8(ascii: "\n")))
        let headerText = String(decoding: payload[..<newline], as: UTF8.self)
        #expect(headerText.contains(#""encoding":"zstd""#) && headerText.contains(#""length":\#(bytes.count)"#), "\(headerText)")
        print("UPLOAD chunk of \(bytes.count) bytes of motion lines: \(payload.count) compressed (zstd 1), \(plain.count) plain")
        // Accelerometer lines alone at full precision: about 4× (the bar of a quarter is the fused
        // run's, `aRunTravelsCompressedToACollectorThatTakesZstdAndPlainToOneThatDoesNot`).
        #expect(payload.count * 3 <= plain.count)
        // zstd's own program reads the frame, and writes one our decoder reads.
        let folder = try Fixtures.temporaryDirectory()
        try Data(payload[(newline + 1)...]).write(to: URL(fileURLWithPath: folder + "/frame.zst"))
        let (status, _) = try await ChildProcess.run("/usr/bin/zstd", ["-q", "-d", "-f", folder + "/frame.zst", "-o", folder + "/frame"])
        #expect(status == 0 && (try? Data(contentsOf: URL(fileURLWithPath: folder + "/frame"))) == Data(bytes))
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/lines"))
        let (made, _) = try await ChildProcess.run("/usr/bin/zstd", ["-q", "-19", "-f", folder + "/lines", "-o", folder + "/lines.zst"])
        #expect(made == 0)
        var header = chunk.header
        header.encoding = "zstd"
        header.length = Int64(bytes.count)
        let theirs = Array(try JSONEncoder().encode(header)) + [UInt8(ascii: "\n")] + Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/lines.zst")))
        #expect(UploadChunk.decode(theirs)?.bytes == bytes)
    }

    @Test func whatIsNotAChunkIsRefused() throws {
        let bytes = try Self.motionLines(count: 500)
        let frame = try Zstd.compress(bytes, level: 3)
        func payload(_ header: String, _ body: [UInt8]) -> [UInt8] { Array(header.utf8) + [UInt8(ascii: "\n")] + body }
        let base = #""file":"motion.jsonl","offset":0,"size":1048576,"sha256":"\#(Self.header.sha256)""#
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(bytes.count)}", frame))?.bytes == bytes)
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"brotli\",\"length\":\(bytes.count)}", frame)) == nil, "an unknown encoding")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\"}", frame)) == nil, "no length")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(bytes.count - 1)}", frame)) == nil, "more bytes than it says")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(bytes.count + 1)}", frame)) == nil, "fewer bytes than it says")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(UploadChunk.maximumEncodedLength + 1)}", frame)) == nil, "too long")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":-1}", frame)) == nil)
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(bytes.count)}", Array(frame.dropLast(3)))) == nil, "a cut frame")
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":\(bytes.count)}", bytes)) == nil, "not zstd")
        #expect(UploadChunk.decode(payload("{\(base),\"length\":\(bytes.count)}", bytes)) == nil, "a length without an encoding")
        // A frame of 1 GiB of zeros (a few kB): refused without making more than `length` bytes.
        let bomb = try Zstd.compress([UInt8](repeating: 0, count: 64 << 20), level: 19)
        #expect(bomb.count < 1 << 20)
        #expect(UploadChunk.decode(payload("{\(base),\"encoding\":\"zstd\",\"length\":1000}", bomb)) == nil)
        let big = #""file":"motion.jsonl","offset":0,"size":1000,"sha256":"\#(Self.header.sha256)""#
        #expect(UploadChunk.decode(payload("{\(big),\"encoding\":\"zstd\",\"length\":\(bytes.count)}", frame)) == nil, "past the file's end")
    }

    /// A collector that offers zstd says so in its `need`; one that does not, does not (a Pi
    /// sends it plain chunks); compressed chunks make the files byte for byte, and the run's
    /// wire bytes are what came.
    @Test func aStoreOfferingZstdTakesCompressedChunksIntoIdenticalFiles() throws {
        let root = try Fixtures.temporaryDirectory()
        let run = try Fixtures.temporaryDirectory() + "/20261129T010000Z-7C1B8D8E-8E0E-4C7B-9C56-7A3F9E0D2A11"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let lines = try Self.motionLines(count: 20_000)
        try Data(lines).write(to: URL(fileURLWithPath: run + "/motion.jsonl"))
        try Data(#"{"taskIdentifier":"walk","status":"finished"}"#.utf8).write(to: URL(fileURLWithPath: run + "/taskResult.json"))
        let uuid = try #require(UUID(uuidString: "7C1B8D8E-8E0E-4C7B-9C56-7A3F9E0D2A11"))
        let manifest = try RunOutbox.manifest(runDirectory: run, taskRunUUID: uuid, taskIdentifier: "walk", status: .finished)
        let plainStore = CollectorStore(root: try Fixtures.temporaryDirectory(), accepts: [])
        #expect(try plainStore.receive(manifest: manifest, site: "lab", device: "pi-1").ack.accepts == nil)
        let store = CollectorStore(root: root)
        let need = try store.receive(manifest: manifest, site: "lab", device: "pi-1").ack
        #expect(need.state == .need && need.accepts == ["zstd"], "\(need)")
        var answer: CollectorStore.Answer?
        var wire = 0
        for file in manifest.files {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: run + "/" + file.path)))
            var offset = 0
            while offset < bytes.count {
                let piece = Array(bytes[offset..<min(bytes.count, offset + 256 * 1024)])
                let sent = try #require(UploadChunk(header: .init(file: file.path, offset: Int64(offset), size: file.size, sha256: file.sha256), bytes: piece)
                    .encoded(zstdLevel: 1))
                wire += sent.count
                answer = try store.receive(chunk: try #require(UploadChunk.decode(sent)), run: uuid, site: "lab", device: "pi-1", wireBytes: sent.count) ?? answer
                offset += piece.count
            }
        }
        #expect(answer?.ack.state == .complete && answer?.wireBytes == Int64(wire), "\(String(describing: answer))")
        let copy = root + "/lab/pi-1/walk/" + (run as NSString).lastPathComponent
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "/motion.jsonl")) == Data(lines))
        #expect(wire * 3 <= lines.count, "\(wire) bytes on the wire for \(lines.count)")
    }
}
