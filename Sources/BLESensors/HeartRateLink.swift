import Glibc
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderSystemd

/// One sampling thread's link to BlueZ: its own system-bus connection, the signals it listens
/// to, and the calls `HeartRateLinkRules` ask for, their answers fed back to the rules. Made,
/// run and released on that thread (sd-bus is not thread-safe): not `Sendable`.
final class HeartRateLink {
    let configuration: HeartRateConfiguration
    let sink: any FrameSink
    let control: HeartRateSource.Control
    let logger: Logger
    var rules: HeartRateLinkRules
    var bus: DBusConnection?
    private var lastStatus = ""

    init(configuration: HeartRateConfiguration, sink: any FrameSink, control: HeartRateSource.Control, logger: Logger) {
        self.configuration = configuration
        self.sink = sink
        self.control = control
        self.logger = logger
        rules = HeartRateLinkRules(address: configuration.address, adapter: configuration.adapter, passkey: configuration.passkey)
    }

    var now: Double { SystemClock.monotonicUptime() }

    /// Runs until the source stops: waits on the bus (or, without one, the wake-up descriptor) at
    /// most a second at a time, hands what came to its handlers, then the clock to the rules.
    func run() {
        perform(rules.start(now: now))
        publish()
        while !control.stopped.load(ordering: .acquiring) {
            sink.heartbeat()
            if let bus {
                do throws(DBusError) {
                    try bus.process()
                    _ = try bus.wait(timeout: 1, wake: control.wake)
                    try bus.process()
                } catch {
                    self.bus = nil
                    perform(rules.busFailed(error, now: now))
                }
            } else {
                var descriptor = pollfd(fd: control.wake, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 1000)
            }
            perform(rules.tick(now: now))
            publish()
        }
        if rules.isConnected, let bus {
            // The sensor's battery: BlueZ would keep the link up for nobody.
            _ = try? bus.call(destination: BlueZ.service, path: rules.devicePath, interface: BlueZ.deviceInterface, member: "Disconnect", timeout: 2)
        }
        bus = nil
    }

    // MARK: Actions

    func perform(_ actions: [HeartRateLinkRules.Action]) {
        for action in actions {
            switch action {
            case .deliver(let frames):
                for case .fault(_, let description) in frames {
                    logger.warning("heart-rate sensor \(configuration.name): \(description)")
                }
                sink.deliver(frames)
            case .call(let call):
                issue(call)
            }
        }
    }

    /// The bus, connected (with its signal matches) when there is none; nil when that failed (the
    /// rules were told).
    func connectedBus() -> DBusConnection? {
        if let bus { return bus }
        do throws(DBusError) {
            let connection = try DBusConnection.system(description: "recorderd-\(configuration.name)")
            try listen(on: connection)
            try serveAgent(on: connection)
            bus = connection
            return connection
        } catch {
            perform(rules.busFailed(error, now: now))
            return nil
        }
    }

    func issue(_ call: HeartRateLinkRules.Call) {
        guard let bus = connectedBus() else { return }
        let adapterPath = rules.adapterPath
        let devicePath = rules.devicePath
        let request: (path: String, interface: String, member: String, arguments: [DBusValue], timeout: Double)
        switch call {
        case .getObjects:
            request = ("/", BlueZ.objectManager, "GetManagedObjects", [], 10)
        case .startDiscovery:
            // LE only: a heart-rate sensor is an LE device. The filter's answer matters not: the
            // scan works without it.
            try? bus.call(destination: BlueZ.service, path: adapterPath, interface: BlueZ.adapterInterface, member: "SetDiscoveryFilter",
                          [.propertyMap(["Transport": .string("le")])], timeout: 10, autoStart: false) { _ in }
            request = (adapterPath, BlueZ.adapterInterface, "StartDiscovery", [], 10)
        case .stopDiscovery:
            request = (adapterPath, BlueZ.adapterInterface, "StopDiscovery", [], 10)
        case .connect:
            request = (devicePath, BlueZ.deviceInterface, "Connect", [], 45)
        case .disconnect:
            request = (devicePath, BlueZ.deviceInterface, "Disconnect", [], 10)
        case .startNotify(let path):
            request = (path, BlueZ.characteristicInterface, "StartNotify", [], 10)
        case .read(let path, _):
            request = (path, BlueZ.characteristicInterface, "ReadValue", [.propertyMap([:])], 10)
        case .registerAgent(let capability):
            request = (BlueZ.root, BlueZ.agentManagerInterface, "RegisterAgent", [.objectPath(PairingAgent.path), .string(capability)], 10)
        case .unregisterAgent:
            request = (BlueZ.root, BlueZ.agentManagerInterface, "UnregisterAgent", [.objectPath(PairingAgent.path)], 10)
        case .pair:
            // BlueZ's own bound on a pairing is 60 s (and a passkey's entry on the sensor's side).
            request = (devicePath, BlueZ.deviceInterface, "Pair", [], 90)
        }
        do throws(DBusError) {
            // BlueZ is not started by our calls (D-Bus activation): stopped on purpose, it stays stopped and is said so.
            try bus.call(destination: BlueZ.service, path: request.path, interface: request.interface, member: request.member,
                         request.arguments, timeout: request.timeout, autoStart: false) { [unowned self] result in
                let now = self.now
                switch result {
                case .success(let values) where call == .getObjects:
                    perform(rules.objects(BlueZObjects(reply: values, adapter: configuration.adapter, devicePath: devicePath), now: now))
                case .success(let values):
                    perform(rules.succeeded(call, values: values, now: now))
                case .failure(let error):
                    perform(rules.failed(call, error: error, now: now))
                }
            }
        } catch {
            perform(rules.failed(call, error: error, now: now))
        }
    }

    // MARK: The agent

    /// recorderd's pairing agent for this sensor, served on the link's connection (registered
    /// with BlueZ by the rules' `registerAgent` before they pair). What the sensor asked is told to
    /// the rules, for the error if the pairing fails.
    func serveAgent(on bus: DBusConnection) throws(DBusError) {
        try bus.addObject(path: PairingAgent.path) { [unowned self] call in
            guard let (reply, request) = rules.agent.answer(call) else { return nil }
            if let request { rules.agentAsked(request) }
            var answered = true
            if case .error = reply { answered = false }
            logger.info("heart-rate sensor \(configuration.name): BlueZ asked recorderd's agent \(call.member): \(answered ? "answered" : "refused")")
            return reply
        }
    }

    // MARK: Signals

    /// BlueZ's object and property signals under the adapter, and BlueZ's coming and going.
    func listen(on bus: DBusConnection) throws(DBusError) {
        let adapterPath = rules.adapterPath
        let devicePath = rules.devicePath
        for member in ["InterfacesAdded", "InterfacesRemoved"] {
            try bus.addMatch("type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.objectManager)',member='\(member)'") { [unowned self] signal in
                guard let path = signal.arguments.first?.text else { return }
                let added = signal.member == "InterfacesAdded"
                if path == devicePath {
                    perform(added ? rules.deviceAppeared(now: now) : rules.deviceVanished(now: now))
                } else if path == adapterPath {
                    perform(added ? rules.bluezChanged(now: now) : rules.deviceVanished(now: now))
                }
            }
        }
        try bus.addMatch("type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.properties)',member='PropertiesChanged',"
            + "path_namespace='\(adapterPath)'") { [unowned self] signal in
            let now = self.now
            guard let interface = signal.arguments.first?.text, let changed = signal.arguments.dropFirst().first?.map else { return }
            switch (signal.path, interface) {
            case (adapterPath, BlueZ.adapterInterface):
                if let powered = changed["Powered"]?.bool { perform(rules.adapterPowered(powered, now: now)) }
            case (devicePath, BlueZ.deviceInterface):
                if let paired = changed["Paired"]?.bool { rules.pairedChanged(paired) }
                perform(rules.deviceChanged(connected: changed["Connected"]?.bool, servicesResolved: changed["ServicesResolved"]?.bool, now: now))
            case (devicePath, BlueZ.batteryInterface):
                if let percentage = changed["Percentage"]?.integer { rules.batteryChanged(percentage) }
            case (rules.measurementPath ?? "", BlueZ.characteristicInterface):
                if let bytes = changed["Value"]?.byteArray { perform(rules.notification(bytes, now: now)) }
            default:
                break
            }
        }
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0='\(BlueZ.service)'") { [unowned self] signal in
            let owner = signal.arguments.count > 2 ? signal.arguments[2].text ?? "" : ""
            perform(owner.isEmpty ? rules.bluezStopped(now: now) : rules.bluezChanged(now: now))
        }
    }

    // MARK: Details

    /// The link's state for `devices.list`; a change of connection is logged (not each retry's).
    func publish() {
        var details = ["address": configuration.address, "adapter": configuration.adapter, "connection": rules.status]
        if let battery = rules.battery { details["battery"] = "\(battery) %" }
        switch rules.contact {
        case true?: details["contact"] = "detected"
        case false?: details["contact"] = "not detected"
        case nil: if rules.lastRate != nil { details["contact"] = "not reported" }
        }
        if let location = rules.bodySensorLocation { details["bodySensorLocation"] = location }
        if rules.paired { details["paired"] = "yes" }
        if let rate = rules.lastRate { details["heartRate"] = "\(rate) count/min" }
        details["notifications"] = "\(rules.notifications)"
        if rules.malformed > 0 { details["malformedNotifications"] = "\(rules.malformed)" }
        control.details.withLock { $0 = details }
        if rules.status == "connected", lastStatus != "connected" {
            logger.info("heart-rate sensor \(configuration.name) connected: \(configuration.address) on \(configuration.adapter)")
        }
        lastStatus = rules.status
    }
}
