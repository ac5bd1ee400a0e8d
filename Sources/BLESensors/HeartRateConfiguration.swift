import RecorderConfiguration
import RecorderModel

/// A `heartRate` device: a Bluetooth LE heart-rate sensor reached through BlueZ,
/// `{"name": "hr0", "kind": "heartRate", "address": "A0:9E:1A:12:34:56", "adapter": "hci0"}`.
public struct HeartRateConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    /// The sensor's Bluetooth address, upper case (`A0:9E:1A:12:34:56`).
    public var address: String
    /// The BlueZ adapter to reach it through (default `hci0`).
    public var adapter: String

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, address, adapter }

    public init(name: String, address: String, adapter: String = "hci0") {
        self.name = name
        self.address = address
        self.adapter = adapter
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        let address = try c.decode(String.self, forKey: .address)
        guard let normalized = Self.normalizedAddress(address) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: c,
                                                   debugDescription: "expected a Bluetooth address of six hexadecimal pairs (A0:9E:1A:12:34:56), got \(address.debugDescription)")
        }
        self.address = normalized
        let adapter = try c.decodeIfPresent(String.self, forKey: .adapter) ?? "hci0"
        guard Self.isAdapterName(adapter) else {
            throw DecodingError.dataCorruptedError(forKey: .adapter, in: c,
                                                   debugDescription: "expected an adapter name such as hci0, got \(adapter.debugDescription)")
        }
        self.adapter = adapter
    }

    /// `address` as six upper-case hexadecimal pairs separated by colons, or nil when it is not one.
    public static func normalizedAddress(_ address: String) -> String? {
        let pairs = address.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 6, pairs.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isHexDigit } }) else { return nil }
        return pairs.map { $0.uppercased() }.joined(separator: ":")
    }

    /// `hci` and a number (BlueZ's adapter names; they become D-Bus object paths).
    public static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.count <= 8 && name.dropFirst(3).allSatisfy(\.isASCII) && name.dropFirst(3).allSatisfy(\.isNumber)
    }
}
