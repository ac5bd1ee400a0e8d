import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderSystemd

/// `devices.scan` for heart-rate sensors: an LE discovery through BlueZ filtered on the Heart
/// Rate Service, for a number of seconds, on the calling (blocking) thread with a bus connection
/// of its own. Lists what BlueZ heard during the scan (devices with an RSSI), strongest first.
enum HeartRateScanner {
    static func scan(seconds: Double, adapter: String) -> Result<[HardwareDevice], DeviceScanFailure> {
        let adapterPath = BlueZ.root + "/" + adapter
        do throws(DBusError) {
            let bus = try DBusConnection.system(description: "recorderd-scan")
            func call(_ member: String, _ arguments: [DBusValue] = [], path: String = adapterPath, interface: String = BlueZ.adapterInterface)
                throws(DBusError) -> [DBusValue] {
                try bus.call(destination: BlueZ.service, path: path, interface: interface, member: member, arguments, timeout: 10)
            }
            let objects = BlueZObjects(reply: try call("GetManagedObjects", path: "/", interface: BlueZ.objectManager), adapter: adapter, devicePath: "")
            guard objects.adapterPresent else {
                let known = objects.adapters.isEmpty ? "BlueZ has no adapter" : "BlueZ has " + objects.adapters.joined(separator: ", ")
                return .failure(DeviceScanFailure("no Bluetooth adapter \(adapter) (\(known))"))
            }
            guard objects.adapterPowered else {
                return .failure(DeviceScanFailure("Bluetooth adapter \(adapter) is powered off (bluetoothctl power on)"))
            }
            _ = try call("SetDiscoveryFilter", [.propertyMap(["Transport": .string("le"), "UUIDs": .strings([BlueZ.uuid(BlueZ.heartRateService)])])])
            do throws(DBusError) {
                _ = try call("StartDiscovery")
            } catch where error.name == "org.bluez.Error.InProgress" {
                // Another client's scan: ours joins it.
            }
            // Signals keep coming while we wait; none is needed (the objects are read at the end).
            let deadline = SystemClock.monotonicUptime() + seconds
            while SystemClock.monotonicUptime() < deadline {
                try bus.process()
                _ = try bus.wait(timeout: min(1, max(0, deadline - SystemClock.monotonicUptime())), wake: -1)
            }
            // RSSI is BlueZ's only while it discovers: read before stopping.
            let found = try call("GetManagedObjects", path: "/", interface: BlueZ.objectManager)
            _ = try? call("StopDiscovery")
            return .success(devices(in: found, adapter: adapter))
        } catch {
            if error.isServiceUnknown { return .failure(DeviceScanFailure("BlueZ (bluetoothd) is not running")) }
            return .failure(DeviceScanFailure("scanning on \(adapter): \(error)"))
        }
    }

    /// The devices under `adapter` advertising the Heart Rate Service with an RSSI, strongest first.
    static func devices(in reply: [DBusValue], adapter: String) -> [HardwareDevice] {
        guard let objects = reply.first?.map else { return [] }
        let prefix = BlueZ.root + "/" + adapter + "/dev_"
        let heartRate = BlueZ.uuid(BlueZ.heartRateService)
        var found: [(rssi: Int, device: HardwareDevice)] = []
        for (path, value) in objects where path.hasPrefix(prefix) {
            guard let device = value.map?[BlueZ.deviceInterface]?.map, let address = device["Address"]?.text,
                  let rssi = device["RSSI"]?.integer else { continue }
            let uuids = device["UUIDs"]?.texts?.map { $0.lowercased() } ?? []
            guard uuids.contains(heartRate) else { continue }
            // HCI's 127: the controller measured no signal strength.
            var details = ["rssi": rssi == 127 ? "unavailable" : "\(rssi)", "connected": device["Connected"]?.bool == true ? "yes" : "no",
                           "paired": device["Paired"]?.bool == true ? "yes" : "no"]
            if let type = device["AddressType"]?.text { details["addressType"] = type }
            found.append((rssi, HardwareDevice(kind: "heartRate", source: adapter, id: address, name: device["Name"]?.text ?? device["Alias"]?.text,
                                               details: details)))
        }
        let strength = { (rssi: Int) in rssi == 127 ? Int.min : rssi }
        return found.sorted { strength($0.rssi) != strength($1.rssi) ? strength($0.rssi) > strength($1.rssi) : $0.device.id < $1.device.id }.map(\.device)
    }
}
