import ArgumentParser
import RecorderClient
import RecorderProtocol
import RecorderRuntime

/// `recorderctl ble`: Bluetooth LE sensors.
struct BLECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ble", abstract: "Bluetooth LE sensors (heart rate).",
                                                    subcommands: [BLEScanCommand.self])
}

/// `recorderctl ble scan`: the heart-rate sensors nearby, as the daemon's BlueZ hears them.
struct BLEScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scan",
                                                    abstract: "List nearby devices advertising the Heart Rate Service: address, name, signal strength.")
    @OptionGroup var socket: SocketOptions
    @Option(help: "Seconds to scan (1-60).") var seconds: Double = 10
    @Option(help: "The Bluetooth adapter (default hci0).") var adapter: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard DeviceScanParams.secondsRange.contains(seconds) else { throw ValidationError("--seconds: \(DeviceScanParams.secondsRange.description)") }
    }

    func run() async throws {
        let client = try await socket.connect()
        let result = try await client.scan(kind: "heartRate", seconds: seconds, adapter: adapter)
        if json { return try Output.json(result) }
        guard !result.devices.isEmpty else {
            print("no heart-rate sensor heard in \(Int(seconds)) s (worn and awake? a strap wakes on skin contact)")
            return
        }
        print("ADDRESS            RSSI        NAME")
        for d in result.devices {
            let rssi = (d.details?["rssi"] ?? "?").fitted(to: 11)
            print("\(d.id)  \(rssi) \(d.name ?? "-")\(d.details?["connected"] == "yes" ? "  (connected)" : "")")
        }
        print("configure one as {\"name\": \"hr0\", \"kind\": \"heartRate\", \"address\": \"\(result.devices[0].id)\"}")
    }
}
