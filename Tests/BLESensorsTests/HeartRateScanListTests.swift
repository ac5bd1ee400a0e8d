@testable import BLESensors
import RecorderSystemd
import Testing

/// What `recorderctl ble scan` lists from BlueZ's objects: the adapter's devices advertising the
/// Heart Rate Service with a signal heard, strongest first, HCI's 127 as unavailable.
@Suite("The heart-rate scan's list")
struct HeartRateScanListTests {
    static func device(_ address: String, rssi: Int16?, uuids: [UInt16], name: String? = nil, adapter: String = "hci0") -> DBusDictionaryEntry {
        var properties: [String: DBusValue] = ["Address": .string(address), "AddressType": .string("random"),
                                               "UUIDs": .strings(uuids.map(BlueZ.uuid)), "Connected": .boolean(false)]
        if let rssi { properties["RSSI"] = .int16(rssi) }
        if let name { properties["Name"] = .string(name) }
        return DBusDictionaryEntry(key: .objectPath(BlueZ.devicePath(adapter: adapter, address: address)),
                                   value: .dictionary(key: "s", value: "a{sv}", [DBusDictionaryEntry(key: .string(BlueZ.deviceInterface),
                                                                                                      value: .propertyMap(properties))]))
    }

    @Test func heartRateDevicesHeardOnTheAdapterStrongestFirst() {
        let reply: [DBusValue] = [.dictionary(key: "o", value: "a{sa{sv}}", [
            Self.device("A0:00:00:00:00:01", rssi: -80, uuids: [0x180D, 0x180F], name: "Polar H10 1"),
            Self.device("A0:00:00:00:00:02", rssi: -50, uuids: [0x180D], name: "TICKR"),
            Self.device("A0:00:00:00:00:03", rssi: 127, uuids: [0x180D]),
            Self.device("A0:00:00:00:00:04", rssi: -40, uuids: [0x180F], name: "a battery"),
            Self.device("A0:00:00:00:00:05", rssi: nil, uuids: [0x180D], name: "not heard in this scan"),
            Self.device("A0:00:00:00:00:06", rssi: -30, uuids: [0x180D], name: "other adapter", adapter: "hci1"),
        ])]
        let found = HeartRateScanner.devices(in: reply, adapter: "hci0")
        #expect(found.map(\.id) == ["A0:00:00:00:00:02", "A0:00:00:00:00:01", "A0:00:00:00:00:03"])
        #expect(found.map { $0.details?["rssi"] } == ["-50", "-80", "unavailable"])
        #expect(found[0].name == "TICKR" && found[0].kind == "heartRate" && found[0].source == "hci0" && found[0].details?["addressType"] == "random")
    }
}
