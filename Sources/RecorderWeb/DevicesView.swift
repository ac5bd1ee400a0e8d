import RecorderProtocol

/// What `devices.mustache` shows: each device's state, kind, sensors, rate, error, the buttons of
/// its types and its live plot's canvas; the daemon's version, pid, uptime and disk.
struct DevicesView {
    struct Device {
        struct Toggle {
            let type: String
            let pressed: Bool
        }

        let name: String
        let state: String
        let kind: String
        let sensors: String
        let rate: String
        let users: String?
        let error: String?
        /// Only when there is more than one type to choose from.
        let toggles: [Toggle]
        let canvasHeight: Int
        let types: String
    }

    struct Disk {
        let runs: String
        let free: String
    }

    let devices: [Device]
    let version: String
    let pid: String
    let uptime: String
    let disk: Disk?

    init(_ status: DaemonStatus) {
        devices = status.devices.map { d in
            let types = (d.sensorTypes + (d.fusedTypes ?? [])).map(\.rawValue)
            let raw = d.sensorTypes.map(\.rawValue)
            return Device(name: d.name, state: d.state.rawValue, kind: d.kind, sensors: raw.joined(separator: ", "),
                          rate: d.rate.map { HTML.number($0, digits: 1) + " Hz" } ?? "–", users: d.users.map(String.init), error: d.error,
                          toggles: types.count > 1 ? types.map { Device.Toggle(type: $0, pressed: raw.contains($0)) } : [],
                          canvasHeight: max(1, d.sensorTypes.count) * 90, types: types.joined(separator: ","))
        }
        version = status.version
        pid = String(status.pid)
        uptime = HTML.number(status.uptimeSeconds, digits: 0)
        disk = status.disk.map { Disk(runs: HTML.bytes($0.runsBytes), free: HTML.bytes($0.freeBytes)) }
    }
}
