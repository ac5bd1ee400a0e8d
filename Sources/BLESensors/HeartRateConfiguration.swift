import RecorderConfiguration
import RecorderModel

/// A `heartRate` device: a Bluetooth LE heart-rate sensor reached through BlueZ,
/// `{"name": "hr0", "kind": "heartRate", "address": "A0:9E:1A:12:34:56", "adapter": "hci0"}`,
/// with `"passkey": 123456` for a sensor that asks for one when it pairs.
public struct HeartRateConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    /// The sensor's Bluetooth address, upper case (`A0:9E:1A:12:34:56`).
    public var address: String
    /// The BlueZ adapter to reach it through (default `hci0`).
    public var adapter: String
    /// The passkey (0…999999) the sensor asks for when it pairs with a passkey; nil for the usual
    /// strap, which pairs without one ("just works") or not at all.
    public var passkey: UInt32?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, address, adapter, passkey }

    /// The largest passkey: Bluetooth's passkeys are six decimal digits.
    public static let largestPasskey: UInt32 = 999_999

    public init(name: String, address: String, adapter: String = "hci0", passkey: UInt32? = nil) {
        self.name = name
        self.address = address
        self.adapter = adapter
        self.passkey = passkey
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
        if let passkey = try c.decodeIfPresent(Int.self, forKey: .passkey) {
            guard (0...Int(Self.largestPasskey)).contains(passkey) else {
                throw DecodingError.dataCorruptedError(forKey: .passkey, in: c,
                                                       debugDescription: "expected a passkey of at most six digits (0…999999), got \(passkey)")
            }
            self.passkey = UInt32(passkey)
        }
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
