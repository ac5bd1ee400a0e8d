import FoundationEssentials
import Glibc
import RecorderCompression
import RecorderRuntime

/// Writes an MCAP file (https://mcap.dev/spec): the Header, Schema and Channel records, the
/// messages in zstd-compressed Chunks of about 1 MiB each followed by their Message Index
/// records, Data End with the data section's CRC-32, and a Summary section — Schemas,
/// Channels, Statistics, Chunk Indexes — with its Summary Offsets and a Footer with the
/// summary's CRC-32. Memory holds one chunk.
final class MCAPWriter {
    static let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
    /// Uncompressed bytes of messages after which a chunk is written, by default.
    static let defaultChunkSize = 1 << 20
    /// Uncompressed bytes of messages after which a chunk is written.
    let chunkSize: Int

    enum Opcode: UInt8 {
        case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06, messageIndex = 0x07
        case chunkIndex = 0x08, statistics = 0x0B, summaryOffset = 0x0E, dataEnd = 0x0F
    }

    private let file: OutputFile
    private var offset: UInt64 = 0
    private var dataCRC = CRC32()
    private var summaryCRC = CRC32()
    private enum Section { case data, summary }
    private var section = Section.data

    private var schemas: [[UInt8]] = []
    private var channels: [[UInt8]] = []
    private var chunkIndexes: [[UInt8]] = []
    private var channelCounts: [UInt16: UInt64] = [:]
    private var sequences: [UInt16: UInt32] = [:]
    private var messageCount: UInt64 = 0
    private var startTime: UInt64?
    private var endTime: UInt64 = 0

    private var chunk: [UInt8] = []
    private var chunkStart: UInt64 = .max
    private var chunkEnd: UInt64 = 0
    private var chunkIndex: [UInt16: [(time: UInt64, offset: UInt64)]] = [:]

    init(path: String, library: String, chunkSize: Int) throws(ExportError) {
        precondition(chunkSize > 0)
        self.chunkSize = chunkSize
        file = try OutputFile(path: path)
        try emit(Self.magic)
        try emit(MCAPBuffer.record(Opcode.header.rawValue) {
            $0.string("")
            $0.string(library)
        })
        chunk.reserveCapacity(chunkSize + 4096)
    }

    /// Adds a schema (written at once, and again in the summary); returns its id (from 1).
    func addSchema(name: String, encoding: String, data: [UInt8]) throws(ExportError) -> UInt16 {
        let id = UInt16(schemas.count + 1)
        let record = MCAPBuffer.record(Opcode.schema.rawValue) {
            $0.u16(id)
            $0.string(name)
            $0.string(encoding)
            $0.bytes32(data)
        }
        schemas.append(record)
        try emit(record)
        return id
    }

    /// Adds a channel; returns its id (from 0).
    func addChannel(schema: UInt16, topic: String, messageEncoding: String, metadata: [String: String] = [:]) throws(ExportError) -> UInt16 {
        let id = UInt16(channels.count)
        let record = MCAPBuffer.record(Opcode.channel.rawValue) {
            $0.u16(id)
            $0.u16(schema)
            $0.string(topic)
            $0.string(messageEncoding)
            $0.stringMap(metadata)
        }
        channels.append(record)
        channelCounts[id] = 0
        try emit(record)
        return id
    }

    /// A message on `channel` at `logTime` (ns since the epoch).
    func addMessage(channel: UInt16, logTime: UInt64, data: some Collection<UInt8>) throws(ExportError) {
        let sequence = sequences[channel, default: 0]
        sequences[channel] = sequence &+ 1
        chunkIndex[channel, default: []].append((logTime, UInt64(chunk.count)))
        var header = MCAPBuffer()
        header.u8(Opcode.message.rawValue)
        header.u64(UInt64(2 + 4 + 8 + 8 + data.count))
        header.u16(channel)
        header.u32(sequence)
        header.u64(logTime)
        header.u64(logTime)
        chunk.append(contentsOf: header.bytes)
        chunk.append(contentsOf: data)
        chunkStart = min(chunkStart, logTime)
        chunkEnd = max(chunkEnd, logTime)
        startTime = min(startTime ?? logTime, logTime)
        endTime = max(endTime, logTime)
        messageCount += 1
        channelCounts[channel, default: 0] += 1
        if chunk.count >= chunkSize { try writeChunk() }
    }

    /// Compresses and writes the chunk, then its message indexes.
    private func writeChunk() throws(ExportError) {
        guard !chunk.isEmpty else { return }
        let compressed: [UInt8]
        do {
            compressed = try Zstd.compress(chunk, level: 3)
        } catch {
            throw .output("\(file.path): \(error)")
        }
        let chunkOffset = offset
        let record = MCAPBuffer.record(Opcode.chunk.rawValue) {
            $0.u64(chunkStart)
            $0.u64(chunkEnd)
            $0.u64(UInt64(chunk.count))
            $0.u32(CRC32.of(chunk))
            $0.string("zstd")
            $0.u64(UInt64(compressed.count))
            $0.bytes.append(contentsOf: compressed)
        }
        try emit(record)
        var indexOffsets: [UInt16: UInt64] = [:]
        let indexStart = offset
        for (channel, entries) in chunkIndex.sorted(by: { $0.key < $1.key }) {
            indexOffsets[channel] = offset
            try emit(MCAPBuffer.record(Opcode.messageIndex.rawValue) {
                $0.u16(channel)
                var inner = MCAPBuffer()
                for e in entries {
                    inner.u64(e.time)
                    inner.u64(e.offset)
                }
                $0.bytes32(inner.bytes)
            })
        }
        let (start, end, uncompressed, compressedSize) = (chunkStart, chunkEnd, UInt64(chunk.count), UInt64(compressed.count))
        let indexLength = offset - indexStart
        chunkIndexes.append(MCAPBuffer.record(Opcode.chunkIndex.rawValue) {
            $0.u64(start)
            $0.u64(end)
            $0.u64(chunkOffset)
            $0.u64(UInt64(record.count))
            $0.u16u64Map(indexOffsets)
            $0.u64(indexLength)
            $0.string("zstd")
            $0.u64(compressedSize)
            $0.u64(uncompressed)
        })
        chunk.removeAll(keepingCapacity: true)
        chunkIndex.removeAll(keepingCapacity: true)
        chunkStart = .max
        chunkEnd = 0
    }

    /// Writes the last chunk, Data End, the summary, the footer and the closing magic; fsyncs.
    func finish() throws(ExportError) {
        try writeChunk()
        let crc = dataCRC.value
        try emit(MCAPBuffer.record(Opcode.dataEnd.rawValue) { $0.u32(crc) })
        section = .summary
        let summaryStart = offset
        var offsets: [(UInt8, UInt64, UInt64)] = []
        func group(_ opcode: Opcode, _ records: [[UInt8]]) throws(ExportError) {
            guard !records.isEmpty else { return }
            let start = offset
            for r in records { try emit(r) }
            offsets.append((opcode.rawValue, start, offset - start))
        }
        try group(.schema, schemas)
        try group(.channel, channels)
        let statistics = MCAPBuffer.record(Opcode.statistics.rawValue) { [self] in
            $0.u64(messageCount)
            $0.u16(UInt16(schemas.count))
            $0.u32(UInt32(channels.count))
            $0.u32(0)
            $0.u32(0)
            $0.u32(UInt32(chunkIndexes.count))
            $0.u64(startTime ?? 0)
            $0.u64(startTime == nil ? 0 : endTime)
            $0.u16u64Map(channelCounts)
        }
        try group(.statistics, [statistics])
        try group(.chunkIndex, chunkIndexes)
        let summaryOffsetStart = offset
        for (opcode, start, length) in offsets {
            try emit(MCAPBuffer.record(Opcode.summaryOffset.rawValue) {
                $0.u8(opcode)
                $0.u64(start)
                $0.u64(length)
            })
        }
        // The footer: its summary CRC covers the summary up to and including summary_offset_start.
        var footer = MCAPBuffer()
        footer.u8(Opcode.footer.rawValue)
        footer.u64(8 + 8 + 4)
        footer.u64(summaryStart)
        footer.u64(summaryOffsetStart)
        try emit(footer.bytes)
        try emit(MCAPBuffer().bytesOf { $0.u32(summaryCRC.value) })
        section = .data
        try emit(Self.magic)
        try file.close()
    }

    private func emit(_ bytes: [UInt8]) throws(ExportError) {
        switch section {
        case .data: dataCRC.update(bytes)
        case .summary: summaryCRC.update(bytes)
        }
        offset += UInt64(bytes.count)
        try file.append(bytes)
    }
}

extension MCAPBuffer {
    /// The bytes `body` writes into a new buffer.
    func bytesOf(_ body: (inout MCAPBuffer) -> Void) -> [UInt8] {
        var b = MCAPBuffer()
        body(&b)
        return b.bytes
    }
}
