import RecorderModel
import RecorderSystemd

/// The link to one heart-rate sensor through BlueZ, as rules (the house's way: `TaskRunRules`,
/// `WatchdogPolicy`): events in — BlueZ's answers and signals, notifications, the clock — and
/// actions out — the BlueZ calls to make, the frames to deliver. No I/O: `HeartRateSource`
/// runs it on its thread.
///
/// The way to a stream: list BlueZ's objects; with the adapter present and powered, scan when
/// BlueZ does not know the sensor yet, connect, wait for its services, subscribe to Heart Rate
/// Measurement and read Body Sensor Location and Battery Level. Every failure is a status
/// (`devices.list`) and, once per outage and reason, a fault record; it is tried again after a
/// back-off (1 s doubling to 8 s). A disconnection (out of range, strap off) or a sensor that stops
/// notifying is an outage: the first notification after it comes with a gap of the time without
/// notifications and the beats estimated lost in it.
///
/// Pairing: a sensor with a configured passkey is paired before it is subscribed to; any other is
/// paired when BlueZ answers the subscription "Not paired" (a sensor whose characteristics want
/// an encrypted link that BlueZ's own security upgrade did not get). Pairing goes through
/// recorderd's agent (`PairingAgent`); a sensor that refuses is a fault saying why, and is tried
/// again after the back-off. The agent is registered with BlueZ only while recorderd pairs or
/// subscribes to a sensor BlueZ does not list as paired: a sensor whose notifications want an
/// encrypted link makes the kernel pair within the subscription ("just works", Secure
/// Connections), and BlueZ then asks its agent to confirm — on a headless Pi with no agent of its
/// own the pairing fails ("No agent available") and the sensor drops the link.
struct HeartRateLinkRules {
    /// A BlueZ call the runner makes; its answer comes back as `succeeded` or `failed`.
    enum Call: Equatable, Sendable {
        /// `ObjectManager.GetManagedObjects`: answered by `objects(_:now:)`.
        case getObjects
        /// `Adapter1.SetDiscoveryFilter` (LE) then `StartDiscovery`.
        case startDiscovery
        case stopDiscovery
        case connect
        case disconnect
        /// `GattCharacteristic1.StartNotify` on the measurement characteristic.
        case startNotify(path: String)
        /// `GattCharacteristic1.ReadValue` of a characteristic (0x2A38, 0x2A19).
        case read(path: String, uuid: UInt16)
        /// `AgentManager1.RegisterAgent` of recorderd's agent with this capability (before `pair`,
        /// and before subscribing to a sensor not paired yet).
        case registerAgent(capability: String)
        /// `Device1.Pair`.
        case pair
        /// `AgentManager1.UnregisterAgent` once the pairing or subscription it was registered for
        /// ended: BlueZ makes a registered agent a default (the first one the default), which
        /// recorderd's is not meant to stay.
        case unregisterAgent
    }

    enum Action: Equatable, Sendable {
        case call(Call)
        case deliver([SensorFrame])
    }

    enum Phase: Equatable, Sendable {
        case idle
        /// Asked for BlueZ's objects.
        case querying
        /// After a failure, until `retryAt`.
        case waiting
        case discovering
        case connecting
        /// Connected; BlueZ is reading the sensor's services.
        case resolving
        /// Asked BlueZ to pair with the sensor.
        case pairing
        case subscribing
        case streaming
    }

    let address: String
    let adapter: String
    /// The passkey recorderd's agent gives when the sensor asks for one.
    let passkey: UInt32?

    private(set) var phase = Phase.idle
    /// When a `waiting` link tries again.
    private(set) var retryAt: Double?
    /// When a scan or a service resolution is given up.
    private(set) var deadline: Double?
    private(set) var backoff = 1.0
    /// The connection as `devices.list` shows it.
    private(set) var status = "not connected"
    private(set) var battery: Int?
    private(set) var contact: Bool?
    private(set) var bodySensorLocation: String?
    private(set) var lastRate: Int?
    private(set) var notifications = 0
    private(set) var malformed = 0
    /// Since when the sensor has been out (a fault delivered); nil while it notifies.
    private(set) var outageSince: Double?
    private var faultsThisOutage: Set<String> = []
    private var lastNotification: Double?
    private var subscribedAt: Double?
    /// The sensor's usual time between notifications (s): the median of the last nine spacings
    /// (a sensor's own rate, about 1 s, until it has sent some).
    private(set) var interval = 1.0
    private var spacings: [Double] = []
    /// The Heart Rate Measurement characteristic's object path once found.
    private(set) var measurementPath: String?
    /// Pairing was tried on this attempt (not again until a failure or a disconnection).
    private(set) var pairingTried = false
    /// BlueZ's `Paired` for the sensor, as last listed.
    private(set) var paired = false
    /// recorderd's agent is registered with BlueZ (for a pairing or a subscription under way).
    private(set) var agentRegistered = false
    /// What the sensor asked of the agent while pairing, for the error if it fails.
    private var agentRequest: PairingAgent.Request?

    static let scanTimeout = 30.0
    static let resolveTimeout = 30.0
    static let longestBackoff = 8.0
    /// A connected sensor silent this long (and 5 usual intervals) is out.
    static let silenceLimit = 10.0
    /// A device that is not a heart-rate sensor is looked at again after this long.
    static let notAHeartRateSensorRetry = 60.0

    init(address: String, adapter: String, passkey: UInt32? = nil) {
        self.address = address
        self.adapter = adapter
        self.passkey = passkey
    }

    var agent: PairingAgent { PairingAgent(devicePath: devicePath, passkey: passkey) }

    var adapterPath: String { BlueZ.root + "/" + adapter }
    var devicePath: String { BlueZ.devicePath(adapter: adapter, address: address) }

    // MARK: Events

    mutating func start(now: Double) -> [Action] {
        query()
    }

    /// BlueZ's objects, as `GetManagedObjects` answered.
    mutating func objects(_ o: BlueZObjects, now: Double) -> [Action] {
        guard phase == .querying else { return [] }
        guard o.adapterPresent else {
            let known = o.adapters.isEmpty ? "BlueZ has no adapter" : "BlueZ has " + o.adapters.joined(separator: ", ")
            return fail("no Bluetooth adapter \(adapter) (\(known))", now: now)
        }
        guard o.adapterPowered else {
            return fail("Bluetooth adapter \(adapter) is powered off (bluetoothctl power on)", now: now)
        }
        if let percentage = o.batteryPercentage { battery = percentage }
        guard o.devicePresent else {
            phase = .discovering
            deadline = now + Self.scanTimeout
            status = "scanning for \(address)"
            return [.call(.startDiscovery)]
        }
        guard o.connected else {
            phase = .connecting
            status = "connecting"
            return [.call(.connect)]
        }
        guard o.servicesResolved else {
            phase = .resolving
            deadline = now + Self.resolveTimeout
            status = "reading the sensor's services"
            return []
        }
        guard let measurement = o.characteristics[BlueZ.heartRateMeasurement] else {
            let name = o.name.map { " (\($0))" } ?? ""
            let services = o.serviceUUIDs.compactMap(BlueZ.shortUUID).map { "0x" + HeartRateMeasurementParser.hex4($0) }
            // BlueZ says the services are resolved when its discovery failed too (an ATT request
            // unanswered for 30 s), listing none — as it lists none for a device whose services
            // are all its own plugins' (a battery-only one): the fault says both.
            return [.call(.disconnect)] + fail("\(address)\(name) is not a heart-rate sensor: no Heart Rate Measurement characteristic (0x2A37)"
                + (services.isEmpty ? " (BlueZ lists no services of it: if it is one, its discovery failed)" : "; its services: " + services.joined(separator: ", ")),
                now: now, retryAfter: Self.notAHeartRateSensorRetry)
        }
        measurementPath = measurement
        paired = o.paired
        if passkey != nil, !o.paired, !pairingTried { return pair() }
        phase = .subscribing
        status = "subscribing"
        // Not paired yet: the subscription may pair (the kernel's security upgrade), and BlueZ
        // asks an agent to confirm even a "just works" pairing.
        var actions = o.paired ? [] : registerAgent()
        actions.append(.call(.startNotify(path: measurement)))
        if let location = o.characteristics[BlueZ.bodySensorLocation] { actions.append(.call(.read(path: location, uuid: BlueZ.bodySensorLocation))) }
        if o.batteryPercentage == nil, let level = o.characteristics[BlueZ.batteryLevel] {
            actions.append(.call(.read(path: level, uuid: BlueZ.batteryLevel)))
        }
        return actions
    }

    /// A call's success, with the values of its reply.
    mutating func succeeded(_ call: Call, values: [DBusValue], now: Double) -> [Action] {
        switch call {
        case .connect:
            guard phase == .connecting else { return [] }
            return query()
        case .startNotify:
            guard phase == .subscribing else { return [] }
            phase = .streaming
            status = "connected"
            subscribedAt = now
            backoff = 1
            return releaseAgent()
        case .read(_, let uuid):
            guard let bytes = values.first?.byteArray, let first = bytes.first else { return [] }
            if uuid == BlueZ.bodySensorLocation { bodySensorLocation = BlueZ.bodySensorLocationName(first) }
            if uuid == BlueZ.batteryLevel, first <= 100 { battery = Int(first) }
            return []
        case .pair:
            guard phase == .pairing else { return [] }
            return releaseAgent() + query()
        case .getObjects, .startDiscovery, .stopDiscovery, .disconnect, .registerAgent, .unregisterAgent:
            return []
        }
    }

    /// A call's failure (an error reply, a timeout, the bus gone).
    mutating func failed(_ call: Call, error: DBusError, now: Double) -> [Action] {
        switch call {
        case .getObjects:
            guard phase == .querying else { return [] }
            if error.isServiceUnknown { return fail("BlueZ (bluetoothd) is not running", now: now) }
            return fail("BlueZ did not list its objects: \(error)", now: now)
        case .startDiscovery:
            // Discovery already on (another of our scans) is as good as started.
            guard phase == .discovering, error.name != "org.bluez.Error.InProgress" else { return [] }
            return fail("cannot scan on \(adapter): \(error)", now: now)
        case .connect:
            guard phase == .connecting else { return [] }
            return fail("cannot connect to \(address): \(error.message.isEmpty ? "\(error)" : error.message)", now: now)
        case .startNotify:
            guard phase == .subscribing else { return [] }
            if Self.wantsPairing(error) {
                if !pairingTried { return pair() }
                return releaseAgent() + [.call(.disconnect)] + fail("\(address) refused heart-rate notifications even after pairing: \(error)", now: now)
            }
            return releaseAgent() + [.call(.disconnect)] + fail("\(address) refused heart-rate notifications: \(error)", now: now)
        case .pair:
            guard phase == .pairing else { return [] }
            // Paired already (by another program, or BlueZ's own upgrade meanwhile): as good.
            if error.name == "org.bluez.Error.AlreadyExists" { return releaseAgent() + query() }
            return releaseAgent() + [.call(.disconnect)] + fail(pairingFailure(error), now: now)
        case .read, .stopDiscovery, .disconnect, .registerAgent, .unregisterAgent:
            return []
        }
    }

    /// The agent was asked `request` while pairing.
    mutating func agentAsked(_ request: PairingAgent.Request) {
        agentRequest = request
    }

    /// BlueZ's answer when a characteristic wants an encrypted (paired) link: `NotPermitted`
    /// "Not paired" (its translation of ATT's insufficient authentication or encryption).
    static func wantsPairing(_ error: DBusError) -> Bool {
        error.name == "org.bluez.Error.NotPermitted" && error.message.lowercased().contains("not paired")
    }

    /// The fault of a refused pairing: BlueZ's reason, and what to do about it when we know.
    private func pairingFailure(_ error: DBusError) -> String {
        var message = "pairing with \(address) failed: \(error.message.isEmpty ? "\(error)" : error.message)"
        if let name = error.name { message += " (\(name))" }
        switch agentRequest {
        case .passkey(given: false)?:
            message += "; the sensor asked for a passkey: set \"passkey\" in its device configuration"
        case .passkey(given: true)?:
            message += "; the sensor asked for the passkey and was given the configured one: is it the sensor's?"
        default:
            if error.name == "org.bluez.Error.AuthenticationRejected" || error.name == "org.bluez.Error.AuthenticationFailed" {
                message += "; the sensor refused (is it in pairing mode, or paired to another device?)"
            }
        }
        return message
    }

    /// BlueZ added the sensor's device object (a scan found it).
    mutating func deviceAppeared(now: Double) -> [Action] {
        guard phase == .discovering else { return [] }
        phase = .connecting
        status = "connecting"
        return [.call(.stopDiscovery), .call(.connect)]
    }

    /// BlueZ removed the sensor's device object, or the adapter went away.
    mutating func deviceVanished(now: Double) -> [Action] {
        switch phase {
        case .connecting, .resolving, .pairing, .subscribing, .streaming: return lost("\(address) is gone from BlueZ's devices", now: now)
        default: return []
        }
    }

    /// The adapter appeared (or BlueZ started): a waiting link tries at once.
    mutating func bluezChanged(now: Double) -> [Action] {
        guard phase == .waiting else { return [] }
        return query()
    }

    /// BlueZ went away from the bus (bluetoothd stopped).
    mutating func bluezStopped(now: Double) -> [Action] {
        guard phase != .idle, phase != .waiting else { return [] }
        return fail("BlueZ (bluetoothd) stopped", now: now)
    }

    /// The adapter's `Powered` changed.
    mutating func adapterPowered(_ powered: Bool, now: Double) -> [Action] {
        if powered { return bluezChanged(now: now) }
        guard phase != .idle, phase != .waiting else { return [] }
        return fail("Bluetooth adapter \(adapter) was powered off", now: now)
    }

    /// The device's `Connected` or `ServicesResolved` changed.
    mutating func deviceChanged(connected: Bool?, servicesResolved: Bool?, now: Double) -> [Action] {
        if connected == false {
            switch phase {
            // While pairing, the answer to Pair says what happened (a refusal disconnects too).
            case .resolving, .streaming: return lost("\(address) disconnected", now: now)
            case .subscribing:
                // A sensor that wants an authenticated link drops it when BlueZ's "just works"
                // pairing (its own security upgrade, with no passkey to give) cannot satisfy it.
                let hint = passkey == nil ? " (a sensor that pairs with a passkey needs \"passkey\" in its device configuration)" : ""
                return lost("\(address) disconnected when asked for heart-rate notifications" + hint, now: now)
            default: return []
            }
        }
        if servicesResolved == true, phase == .resolving { return query() }
        return []
    }

    /// BlueZ's `Paired` for the sensor changed (a pairing within a subscription, or a bond removed).
    mutating func pairedChanged(_ paired: Bool) {
        self.paired = paired
    }

    /// BlueZ's battery reading changed (org.bluez.Battery1).
    mutating func batteryChanged(_ percentage: Int) {
        if (0...100).contains(percentage) { battery = percentage }
    }

    /// The bus connection could not be made or was lost.
    mutating func busFailed(_ error: DBusError, now: Double) -> [Action] {
        fail("no system bus: \(error)", now: now)
    }

    /// A Heart Rate Measurement notification's bytes, received at `now`.
    mutating func notification(_ bytes: [UInt8], now: Double) -> [Action] {
        guard measurementPath != nil else { return [] }
        let measurement: HeartRateMeasurement
        do throws(BLEError) {
            measurement = try HeartRateMeasurementParser.parse(bytes, uptime: now)
        } catch {
            malformed += 1
            // Each of the first ten, then one in a hundred with the count.
            guard malformed <= 10 || malformed % 100 == 0 else { return [] }
            let count = malformed > 10 ? " (\(malformed) malformed so far)" : ""
            return [.deliver([.fault(uptime: now, description: "\(address): \(error.description)\(count)")])]
        }
        var frames: [SensorFrame] = []
        if let since = outageSince {
            let from = lastNotification ?? since
            let duration = max(0, now - from)
            let missed = max(0, Int((duration / interval).rounded()) - 1)
            frames.append(.gap(uptime: now, sensorTypes: [.heartRate], droppedSamples: missed, duration: duration))
            outageSince = nil
            faultsThisOutage = []
        } else if let last = lastNotification {
            let spacing = now - last
            if spacing > 0.1, spacing < 5 {
                spacings.append(spacing)
                if spacings.count > 9 { spacings.removeFirst() }
                interval = spacings.sorted()[spacings.count / 2]
            }
        }
        if phase == .subscribing || phase == .streaming, status != "connected" { status = "connected" }
        lastNotification = now
        notifications += 1
        contact = measurement.contact
        lastRate = measurement.heartRate
        frames.append(.heartRate(measurement))
        return [.deliver(frames)]
    }

    /// The clock: retries when due, scans and resolutions given up, a silent sensor noticed.
    mutating func tick(now: Double) -> [Action] {
        switch phase {
        case .waiting:
            guard let retryAt, now >= retryAt else { return [] }
            return query()
        case .discovering:
            guard let deadline, now >= deadline else { return [] }
            return [.call(.stopDiscovery)] + fail("\(address) not found: no advertisement in \(Int(Self.scanTimeout)) s of scanning on \(adapter)", now: now)
        case .resolving:
            guard let deadline, now >= deadline else { return [] }
            return [.call(.disconnect)] + fail("\(address) connected but its services were not read in \(Int(Self.resolveTimeout)) s", now: now)
        case .streaming:
            let since = lastNotification ?? subscribedAt ?? now
            let limit = max(Self.silenceLimit, 5 * interval)
            guard outageSince == nil, now - since >= limit else { return [] }
            status = "connected, silent"
            return fault("\(address) connected but silent for \(Int(limit)) s", now: now, since: since)
        case .idle, .querying, .connecting, .pairing, .subscribing:
            return []
        }
    }

    /// Whether the runner should disconnect the sensor when sampling stops.
    var isConnected: Bool {
        switch phase {
        case .resolving, .pairing, .subscribing, .streaming: return true
        default: return false
        }
    }

    // MARK: Transitions

    /// Asks BlueZ to pair, through recorderd's agent.
    private mutating func pair() -> [Action] {
        phase = .pairing
        pairingTried = true
        agentRequest = nil
        status = "pairing"
        return registerAgent() + [.call(.pair)]
    }

    private mutating func registerAgent() -> [Action] {
        guard !agentRegistered else { return [] }
        agentRegistered = true
        return [.call(.registerAgent(capability: agent.capability))]
    }

    /// Unregisters recorderd's agent if it is registered.
    private mutating func releaseAgent() -> [Action] {
        guard agentRegistered else { return [] }
        agentRegistered = false
        return [.call(.unregisterAgent)]
    }

    private mutating func query() -> [Action] {
        phase = .querying
        retryAt = nil
        deadline = nil
        measurementPath = nil
        return [.call(.getObjects)]
    }

    /// A failure: the status says it, a fault record (once per outage and reason), a retry after
    /// the back-off (or `retryAfter`).
    private mutating func fail(_ message: String, now: Double, retryAfter: Double? = nil) -> [Action] {
        let wasDiscovering = phase == .discovering
        phase = .waiting
        deadline = nil
        measurementPath = nil
        status = "not connected: " + message
        pairingTried = false
        retryAt = now + (retryAfter ?? backoff)
        backoff = min(backoff * 2, Self.longestBackoff)
        return (wasDiscovering ? [.call(.stopDiscovery)] : []) + releaseAgent() + fault(message, now: now, since: lastNotification ?? now)
    }

    /// The sensor went out of a working link: the fault, and straight back to connecting it.
    private mutating func lost(_ message: String, now: Double) -> [Action] {
        status = "reconnecting: " + message
        pairingTried = false
        let actions = releaseAgent() + fault(message, now: now, since: lastNotification ?? now)
        return actions + query()
    }

    private mutating func fault(_ message: String, now: Double, since: Double) -> [Action] {
        if outageSince == nil { outageSince = since }
        guard faultsThisOutage.insert(message).inserted else { return [] }
        return [.deliver([.fault(uptime: now, description: message)])]
    }
}
