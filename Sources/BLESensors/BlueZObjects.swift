import RecorderSystemd

/// What BlueZ's object tree (`org.freedesktop.DBus.ObjectManager.GetManagedObjects` on
/// `org.bluez`'s `/`) says of one adapter and one sensor: the adapter's presence and power, the
/// device's connection, and the paths of the characteristics recorderd reads.
struct BlueZObjects: Equatable {
    /// Adapters BlueZ has (`hci0`…), for the error when the configured one is missing.
    var adapters: [String] = []
    var adapterPresent = false
    var adapterPowered = false
    var devicePresent = false
    var connected = false
    var servicesResolved = false
    /// BlueZ's `Paired`: the link has keys (this connection's or a bond's).
    var paired = false
    /// Services the device advertised or has (128-bit UUIDs, lower case).
    var serviceUUIDs: [String] = []
    /// Characteristic object paths by 16-bit UUID (0x2A37…).
    var characteristics: [UInt16: String] = [:]
    /// BlueZ's battery plugin's reading (org.bluez.Battery1), when it has one.
    var batteryPercentage: Int?
    var name: String?

    /// The objects of `reply` (`a{oa{sa{sv}}}`) for `adapter` and the device at `devicePath`.
    init(reply: [DBusValue], adapter: String, devicePath: String) {
        guard let objects = reply.first?.map else { return }
        let adapterPath = BlueZ.root + "/" + adapter
        for (path, value) in objects {
            guard let interfaces = value.map else { continue }
            if let adapterProperties = interfaces[BlueZ.adapterInterface]?.map {
                adapters.append(String(path.split(separator: "/").last ?? ""))
                if path == adapterPath {
                    adapterPresent = true
                    adapterPowered = adapterProperties["Powered"]?.bool ?? false
                }
            }
            if path == devicePath, let device = interfaces[BlueZ.deviceInterface]?.map {
                devicePresent = true
                connected = device["Connected"]?.bool ?? false
                servicesResolved = device["ServicesResolved"]?.bool ?? false
                paired = device["Paired"]?.bool ?? false
                serviceUUIDs = device["UUIDs"]?.texts?.map { $0.lowercased() } ?? []
                name = device["Name"]?.text ?? device["Alias"]?.text
                batteryPercentage = interfaces[BlueZ.batteryInterface]?.map?["Percentage"]?.integer
            }
            if path.hasPrefix(devicePath + "/"), let characteristic = interfaces[BlueZ.characteristicInterface]?.map,
               let uuid = characteristic["UUID"]?.text, let short = BlueZ.shortUUID(uuid) {
                // Of two characteristics of one UUID (two services), the first path in order.
                if let known = characteristics[short], known < path { continue }
                characteristics[short] = path
            }
        }
        adapters.sort()
    }
}

/// BlueZ's D-Bus names and the Bluetooth SIG numbers recorderd uses.
enum BlueZ {
    static let service = "org.bluez"
    static let root = "/org/bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let batteryInterface = "org.bluez.Battery1"
    static let agentManagerInterface = "org.bluez.AgentManager1"
    static let characteristicInterface = "org.bluez.GattCharacteristic1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    static let heartRateService: UInt16 = 0x180D
    static let heartRateMeasurement: UInt16 = 0x2A37
    static let bodySensorLocation: UInt16 = 0x2A38
    static let batteryLevel: UInt16 = 0x2A19

    /// The device object of `address` on `adapter`: `/org/bluez/hci0/dev_A0_9E_1A_12_34_56`.
    static func devicePath(adapter: String, address: String) -> String {
        root + "/" + adapter + "/dev_" + address.replacing(":", with: "_")
    }

    /// The 128-bit UUID of a 16-bit SIG number (`0000180d-0000-1000-8000-00805f9b34fb`).
    static func uuid(_ short: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        let hex = String((0..<4).map { digits[Int(short >> (12 - 4 * $0)) & 0xF] })
        return "0000" + hex + "-0000-1000-8000-00805f9b34fb"
    }

    /// The 16-bit number of a SIG UUID (base UUID), or nil.
    static func shortUUID(_ uuid: String) -> UInt16? {
        let lower = uuid.lowercased()
        guard lower.count == 36, lower.hasPrefix("0000"), lower.hasSuffix("-0000-1000-8000-00805f9b34fb") else { return nil }
        return UInt16(lower.dropFirst(4).prefix(4), radix: 16)
    }

    /// Body Sensor Location (0x2A38) values, Heart Rate Service 1.0 §3.2.
    static func bodySensorLocationName(_ value: UInt8) -> String {
        switch value {
        case 0: return "other"
        case 1: return "chest"
        case 2: return "wrist"
        case 3: return "finger"
        case 4: return "hand"
        case 5: return "ear lobe"
        case 6: return "foot"
        default: return "reserved (\(value))"
        }
    }
}
