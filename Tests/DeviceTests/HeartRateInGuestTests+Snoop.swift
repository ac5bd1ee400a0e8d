import Foundation
import Testing

extension HeartRateInGuestTests {
    /// One connection made, as a controller saw it in btmon's capture.
    struct SnoopConnection: Equatable, CustomStringConvertible {
        /// The controller (hciN's N).
        var index: Int
        /// The handle the controller gave the host for it.
        var handle: Int
        var description: String { "hci\(index): handle \(handle)" }
    }

    /// Each successful LE Connection Complete (plain or enhanced) in a btsnoop capture of btmon's
    /// monitor channel (`btmon -w`; datalink 2001: each record's flags are the controller's index
    /// and the packet's kind, 3 for an event). The rig's guard: btvirt 5.66 tells a connection's
    /// peripheral the central's handle and forwards data under the sender's (emulator/btdev.c,
    /// `le_ext_conn_complete`, `send_acl`), so the two agree only while every controller holds one
    /// connection at a time: each gets the first handle, 42.
    static func connections(inSnoop data: Data) -> [SnoopConnection] {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, bytes.starts(with: Array("btsnoop\0".utf8)) else { return [] }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var found: [SnoopConnection] = []
        var offset = 16
        while offset + 24 <= bytes.count {
            let included = word(offset + 4), flags = word(offset + 8)
            let packet = offset + 24
            offset = packet + included
            guard offset <= bytes.count, flags & 0xFFFF == 3, included >= 6 else { continue }
            // LE Meta (0x3E): Connection Complete (0x01) or Enhanced Connection Complete (0x0A), status 0.
            if bytes[packet] == 0x3E, [0x01, 0x0A].contains(bytes[packet + 2]), bytes[packet + 3] == 0 {
                found.append(SnoopConnection(index: flags >> 16, handle: Int(bytes[packet + 4]) | Int(bytes[packet + 5]) << 8))
            }
        }
        return found
    }

    /// The guard reads what btmon writes: a capture with a second connection on hci2 (handle 43,
    /// as btvirt gave one) and an unsuccessful one is read as that connection alone.
    @Test func theCapturesConnectionsAreRead() {
        func record(index: UInt32, kind: UInt32, _ packet: [UInt8]) -> [UInt8] {
            func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
            return bigEndian(UInt32(packet.count)) + bigEndian(UInt32(packet.count)) + bigEndian(index << 16 | kind) + bigEndian(0)
                + [UInt8](repeating: 0, count: 8) + packet
        }
        var capture = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x07, 0xD1]
        capture += record(index: 0, kind: 2, [0x43, 0x20, 0])                      // a command: not an event
        capture += record(index: 2, kind: 3, [0x3E, 31, 0x0A, 0x00, 0x2B, 0x00] + [UInt8](repeating: 0, count: 27))
        capture += record(index: 1, kind: 3, [0x3E, 19, 0x01, 0x3E, 0x00, 0x00] + [UInt8](repeating: 0, count: 15))
        #expect(Self.connections(inSnoop: Data(capture)) == [SnoopConnection(index: 2, handle: 43)])
        #expect(Self.connections(inSnoop: Data("not a capture".utf8)).isEmpty)
    }
}
