import CZlib

/// Raw deflate (RFC 1951: no zlib or gzip wrapper) through zlib, as a zip archive's `deflate`
/// entries hold it: pieces in, compressed pieces out, memory bounded by zlib's window.
public final class RawDeflater {
    /// zlib refused (its return code and message).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8]

    /// A stream at `level` (0–9; zlib's default is 6).
    public init(level: Int32 = 6) throws(Failure) {
        guard (0...9).contains(level) else { throw Failure(description: "deflate: level \(level) is not 0–9") }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = [UInt8](repeating: 0, count: 1 << 16)
        let code = recorderd_deflate_init_raw(stream, level)
        guard code == Z_OK else {
            stream.deallocate()
            throw Failure(description: "deflate: zlib could not start (\(code))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input`; with `finish`, also ends the stream. Returns the compressed bytes made
    /// so far (zlib may hold some back until more input or the end).
    public func deflate(_ input: UnsafeRawBufferPointer, finish: Bool) throws(Failure) -> [UInt8] {
        var made: [UInt8] = []
        let capacity = output.count
        let base = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.next_in = base
        stream.pointee.avail_in = uInt(input.count)
        var code: Int32 = Z_OK
        repeat {
            code = output.withUnsafeMutableBytes { out in
                stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(capacity)
                return CZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
            }
            guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                throw Failure(description: "deflate: zlib failed (\(code))")
            }
            made.append(contentsOf: output[0..<(capacity - Int(stream.pointee.avail_out))])
        } while stream.pointee.avail_out == 0 || (finish && code != Z_STREAM_END)
        stream.pointee.next_in = nil
        return made
    }
}
