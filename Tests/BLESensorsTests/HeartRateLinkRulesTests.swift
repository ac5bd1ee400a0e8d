@testable import BLESensors
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderSystemd
import Testing

/// The heart-rate link's rules without BlueZ: each event's actions and the state it leaves.
@Suite("The heart-rate link's rules")
struct HeartRateLinkRulesTests {
    static let address = "A0:9E:1A:12:34:56"
    static let devicePath = "/org/bluez/hci0/dev_A0_9E_1A_12_34_56"
    static let measurement = devicePath + "/service0015/char0016"
    static let location = devicePath + "/service0015/char0019"
    static let level = devicePath + "/service001b/char001c"

    /// BlueZ's tree as GetManagedObjects answers it.
    static func tree(adapter: Bool = true, powered: Bool = true, device: Bool = true, connected: Bool = false, resolved: Bool = false,
                     heartRate: Bool = true, battery: Int? = nil, paired: Bool = false, listed: [UInt16]? = nil) -> BlueZObjects {
        var objects: [DBusDictionaryEntry] = []
        func add(_ path: String, _ interfaces: [String: [String: DBusValue]]) {
            let value = DBusValue.dictionary(key: "s", value: "a{sv}", interfaces.map { name, properties in
                DBusDictionaryEntry(key: .string(name), value: .propertyMap(properties))
            })
            objects.append(DBusDictionaryEntry(key: .objectPath(path), value: value))
        }
        add("/org/bluez", ["org.bluez.AgentManager1": [:]])
        add("/org/bluez/hci1", ["org.bluez.Adapter1": ["Powered": .boolean(true)]])
        if adapter { add("/org/bluez/hci0", ["org.bluez.Adapter1": ["Powered": .boolean(powered)]]) }
        if device {
            var interfaces: [String: [String: DBusValue]] = [
                "org.bluez.Device1": ["Connected": .boolean(connected), "ServicesResolved": .boolean(resolved), "Name": .string("Polar H10"),
                                      "Paired": .boolean(paired),
                                      "UUIDs": .strings((listed ?? [0x180A] + (heartRate ? [0x180D] : [])).map(BlueZ.uuid))],
            ]
            if let battery { interfaces["org.bluez.Battery1"] = ["Percentage": .byte(UInt8(battery))] }
            add(devicePath, interfaces)
            if resolved, heartRate {
                add(measurement, ["org.bluez.GattCharacteristic1": ["UUID": .string(BlueZ.uuid(0x2A37).uppercased())]])
                add(location, ["org.bluez.GattCharacteristic1": ["UUID": .string(BlueZ.uuid(0x2A38))]])
                add(level, ["org.bluez.GattCharacteristic1": ["UUID": .string(BlueZ.uuid(0x2A19))]])
            }
        }
        return BlueZObjects(reply: [.dictionary(key: "o", value: "a{sa{sv}}", objects)], adapter: "hci0", devicePath: devicePath)
    }

    static func faults(_ actions: [HeartRateLinkRules.Action]) -> [String] {
        actions.flatMap { action -> [String] in
            guard case .deliver(let frames) = action else { return [] }
            return frames.compactMap { if case .fault(_, let d) = $0 { d } else { nil } }
        }
    }

    static func frames(_ actions: [HeartRateLinkRules.Action]) -> [SensorFrame] {
        actions.flatMap { action -> [SensorFrame] in
            if case .deliver(let frames) = action { frames } else { [] }
        }
    }

    /// A link taken to streaming: start, a scan that finds it, connect, services, subscribe.
    static func streaming(at now: Double = 100) -> HeartRateLinkRules {
        var rules = HeartRateLinkRules(address: address, adapter: "hci0")
        _ = rules.start(now: now)
        _ = rules.objects(tree(connected: true, resolved: true, battery: 90), now: now)
        _ = rules.succeeded(.startNotify(path: measurement), values: [], now: now)
        return rules
    }

    @Test func aSensorBlueZDoesNotKnowIsScannedForThenConnectedResolvedAndSubscribed() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        #expect(rules.start(now: 0) == [.call(.getObjects)])
        #expect(rules.objects(Self.tree(device: false), now: 0.1) == [.call(.startDiscovery)])
        #expect(rules.phase == .discovering && rules.status == "scanning for \(Self.address)")
        #expect(rules.deviceAppeared(now: 2) == [.call(.stopDiscovery), .call(.connect)])
        #expect(rules.succeeded(.connect, values: [], now: 3) == [.call(.getObjects)])
        // Connected, services not read yet: wait for ServicesResolved.
        #expect(rules.objects(Self.tree(connected: true), now: 3.1) == [])
        #expect(rules.phase == .resolving)
        #expect(rules.deviceChanged(connected: nil, servicesResolved: true, now: 4) == [.call(.getObjects)])
        // Not paired: subscribed with recorderd's agent registered, for the pairing a subscription may make.
        #expect(rules.objects(Self.tree(connected: true, resolved: true), now: 4.1) == [
            .call(.registerAgent(capability: "NoInputNoOutput")),
            .call(.startNotify(path: Self.measurement)),
            .call(.read(path: Self.location, uuid: 0x2A38)),
            .call(.read(path: Self.level, uuid: 0x2A19)),
        ])
        #expect(rules.succeeded(.startNotify(path: Self.measurement), values: [], now: 4.2) == [.call(.unregisterAgent)])
        #expect(rules.phase == .streaming && rules.status == "connected")
        _ = rules.succeeded(.read(path: Self.location, uuid: 0x2A38), values: [.bytes([1])], now: 4.3)
        _ = rules.succeeded(.read(path: Self.level, uuid: 0x2A19), values: [.bytes([64])], now: 4.3)
        #expect(rules.bodySensorLocation == "chest" && rules.battery == 64)
    }

    @Test func blueZsBatteryReadingIsTakenWithoutReadingTheCharacteristic() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        let actions = rules.objects(Self.tree(connected: true, resolved: true, battery: 87), now: 0)
        #expect(rules.battery == 87)
        #expect(!actions.contains(.call(.read(path: Self.level, uuid: 0x2A19))))
        rules.batteryChanged(86)
        #expect(rules.battery == 86)
        rules.batteryChanged(250)
        #expect(rules.battery == 86, "a percentage above 100 is not taken")
    }

    @Test func notificationsBecomeFramesAndAMalformedOneAFault() {
        var rules = Self.streaming()
        let actions = rules.notification([0x16, 71, 0x55, 0x03], now: 101)
        #expect(Self.frames(actions) == [.heartRate(HeartRateMeasurement(uptime: 101, heartRate: 71, contact: true, rrIntervals: [853.0 / 1024]))])
        #expect(rules.contact == true && rules.lastRate == 71 && rules.notifications == 1)
        let bad = rules.notification([0x11, 60], now: 102)
        #expect(Self.faults(bad).first?.contains("short Heart Rate Measurement") == true, "\(bad)")
        #expect(rules.malformed == 1 && rules.phase == .streaming)
        // Past ten, one fault in a hundred, with the count.
        var faults = 0
        for i in 0..<200 { faults += Self.faults(rules.notification([0x01], now: 103 + Double(i) * 0.01)).count }
        #expect(faults == 9 + 2, "\(faults)")
    }

    @Test func aDisconnectionIsAFaultThenTheFirstNotificationAfterItComesWithTheGap() {
        var rules = Self.streaming(at: 100)
        for i in 0..<10 { _ = rules.notification([0x06, 70], now: 100.5 + Double(i) * 0.5) }
        #expect(abs(rules.interval - 0.5) < 0.1, "\(rules.interval)")
        let last = 105.0
        let lost = rules.deviceChanged(connected: false, servicesResolved: nil, now: 107)
        #expect(Self.faults(lost) == ["\(Self.address) disconnected"])
        #expect(lost.last == .call(.getObjects) && rules.status.hasPrefix("reconnecting"))
        // Reconnecting fails (out of range) and is tried again after the back-off, no new fault of the same reason.
        _ = rules.objects(Self.tree(), now: 107.1)
        let refused = rules.failed(.connect, error: DBusError(name: "org.bluez.Error.Failed", message: "Page Timeout"), now: 120)
        #expect(Self.faults(refused) == ["cannot connect to \(Self.address): Page Timeout"] && rules.retryAt == 121)
        #expect(rules.tick(now: 120.5) == [] && rules.tick(now: 121) == [.call(.getObjects)])
        _ = rules.objects(Self.tree(), now: 121.1)
        #expect(Self.faults(rules.failed(.connect, error: DBusError(name: "org.bluez.Error.Failed", message: "Page Timeout"), now: 130)).isEmpty)
        #expect(rules.retryAt == 132, "the back-off doubles")
        _ = rules.tick(now: 132)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 132.1)
        _ = rules.succeeded(.startNotify(path: Self.measurement), values: [], now: 133)
        let back = Self.frames(rules.notification([0x06, 75], now: 133.5))
        #expect(back.count == 2)
        guard case .gap(let uptime, let types, let dropped, let duration)? = back.first else { Issue.record("\(back)"); return }
        #expect(uptime == 133.5 && types == [.heartRate] && duration == 133.5 - last)
        #expect(abs(dropped - Int(((133.5 - last) / 0.5).rounded()) + 1) <= 3, "\(dropped)")
        #expect(rules.outageSince == nil && rules.status == "connected")
        // And the next one is a plain record.
        #expect(Self.frames(rules.notification([0x06, 76], now: 134)).count == 1)
    }

    @Test func aSilentConnectedSensorIsAnOutageToo() {
        var rules = Self.streaming(at: 100)
        _ = rules.notification([0x06, 70], now: 101)
        #expect(rules.tick(now: 110) == [])
        let silent = rules.tick(now: 111)
        #expect(Self.faults(silent) == ["\(Self.address) connected but silent for 10 s"] && rules.status == "connected, silent")
        #expect(rules.tick(now: 112) == [], "one fault for the outage")
        let back = Self.frames(rules.notification([0x06, 72], now: 130))
        guard case .gap(_, _, _, let duration)? = back.first else { Issue.record("\(back)"); return }
        #expect(duration == 29)
    }

    @Test func whatIsMissingIsSaidAndTriedAgain() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        let notRunning = rules.failed(.getObjects, error: DBusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "no owner"), now: 0)
        #expect(Self.faults(notRunning) == ["BlueZ (bluetoothd) is not running"] && rules.phase == .waiting)
        // BlueZ appears on the bus: tried at once.
        #expect(rules.bluezChanged(now: 0.5) == [.call(.getObjects)])
        let noAdapter = rules.objects(Self.tree(adapter: false), now: 0.6)
        #expect(Self.faults(noAdapter) == ["no Bluetooth adapter hci0 (BlueZ has hci1)"])
        _ = rules.tick(now: 10)
        let off = rules.objects(Self.tree(powered: false), now: 10)
        #expect(Self.faults(off) == ["Bluetooth adapter hci0 is powered off (bluetoothctl power on)"])
        #expect(rules.adapterPowered(true, now: 11) == [.call(.getObjects)])
        // Scanning finds nothing in 30 s.
        _ = rules.objects(Self.tree(device: false), now: 11)
        #expect(rules.tick(now: 40) == [])
        let notFound = rules.tick(now: 41)
        #expect(notFound.first == .call(.stopDiscovery))
        #expect(Self.faults(notFound) == ["\(Self.address) not found: no advertisement in 30 s of scanning on hci0"])
        #expect(rules.status.hasPrefix("not connected: "))
        // No bus at all.
        _ = rules.tick(now: 100)
        #expect(Self.faults(rules.busFailed(DBusError(name: nil, message: "connecting to the system bus: No such file or directory"), now: 100))
            == ["no system bus: connecting to the system bus: No such file or directory"])
    }

    @Test func aDeviceThatIsNotAHeartRateSensorIsDisconnectedAndLookedAtAgainAMinuteLater() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        let actions = rules.objects(Self.tree(connected: true, resolved: true, heartRate: false), now: 5)
        #expect(actions.first == .call(.disconnect))
        #expect(Self.faults(actions) == ["\(Self.address) (Polar H10) is not a heart-rate sensor: no Heart Rate Measurement characteristic (0x2A37); "
            + "its services: 0x180A"])
        #expect(rules.retryAt == 65)
    }

    /// BlueZ sets `ServicesResolved` when its discovery failed too (seen in the two-guest test with
    /// an ATT request unanswered), listing no service — as for a device whose services are all
    /// BlueZ's own plugins' (the guest's battery-only device): the fault says it may be either.
    @Test func aDeviceListingNoServicesMayHaveFailedItsDiscovery() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        let actions = rules.objects(Self.tree(connected: true, resolved: true, heartRate: false, listed: []), now: 5)
        #expect(actions.first == .call(.disconnect))
        #expect(Self.faults(actions) == ["\(Self.address) (Polar H10) is not a heart-rate sensor: no Heart Rate Measurement characteristic (0x2A37) "
            + "(BlueZ lists no services of it: if it is one, its discovery failed)"])
        #expect(rules.retryAt == 65)
    }

    @Test func aSensorThatRefusesNotificationsIsDisconnectedAndTriedAgain() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 0)
        let refused = rules.failed(.startNotify(path: Self.measurement), error: DBusError(name: "org.bluez.Error.NotPermitted", message: "Notify not permitted"), now: 1)
        #expect(Array(refused.prefix(2)) == [.call(.unregisterAgent), .call(.disconnect)] && rules.phase == .waiting)
        #expect(Self.faults(refused) == ["\(Self.address) refused heart-rate notifications: Notify not permitted (org.bluez.Error.NotPermitted)"])
    }

    /// A sensor whose notifications want an encrypted link makes the kernel pair within the
    /// subscription, and BlueZ asks an agent to confirm even a "just works" pairing (seen in the
    /// two-guest test: "No agent available", the pairing failed, the sensor dropped the link). So
    /// recorderd's agent is registered while it subscribes to a sensor BlueZ does not list as
    /// paired, and unregistered however the subscription ends; a paired sensor needs none.
    @Test func aSensorNotPairedYetIsSubscribedToWithTheAgentRegistered() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        #expect(rules.objects(Self.tree(connected: true, resolved: true), now: 0).prefix(2)
            == [.call(.registerAgent(capability: "NoInputNoOutput")), .call(.startNotify(path: Self.measurement))])
        #expect(rules.agentRegistered)
        // The sensor drops the link: the agent goes with the attempt.
        let dropped = rules.deviceChanged(connected: false, servicesResolved: nil, now: 1)
        #expect(dropped.first == .call(.unregisterAgent) && dropped.last == .call(.getObjects) && !rules.agentRegistered)
        // BlueZ says the pairing within the subscription worked: devices.list shows it.
        rules.pairedChanged(true)
        #expect(rules.paired)
        // Paired now: subscribed without the agent.
        #expect(rules.objects(Self.tree(connected: true, resolved: true, paired: true), now: 2).first == .call(.startNotify(path: Self.measurement)))
        #expect(!rules.agentRegistered)
        #expect(rules.succeeded(.startNotify(path: Self.measurement), values: [], now: 2.5) == [])
        // BlueZ stopped while subscribing: the agent is not left registered either (nothing to unregister with).
        var stopped = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = stopped.start(now: 0)
        _ = stopped.objects(Self.tree(connected: true, resolved: true), now: 0)
        #expect(stopped.bluezStopped(now: 1).first == .call(.unregisterAgent) && !stopped.agentRegistered)
    }

    static let notPaired = DBusError(name: "org.bluez.Error.NotPermitted", message: "Not paired")

    @Test func aSensorThatWantsAnEncryptedLinkIsPairedThroughTheAgentThenSubscribed() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 0)
        // BlueZ's answer when the characteristic wants a paired link: pair, through our agent.
        // (The agent was registered for the subscription, and stays for the pairing.)
        #expect(rules.agentRegistered)
        #expect(rules.failed(.startNotify(path: Self.measurement), error: Self.notPaired, now: 1) == [.call(.pair)])
        #expect(rules.phase == .pairing && rules.status == "pairing" && rules.isConnected)
        // Pairing refuses and disconnects: the disconnection waits for Pair's answer.
        #expect(rules.deviceChanged(connected: false, servicesResolved: nil, now: 1.5) == [])
        #expect(rules.succeeded(.registerAgent(capability: "NoInputNoOutput"), values: [], now: 1.1) == [])
        #expect(rules.succeeded(.pair, values: [], now: 2) == [.call(.unregisterAgent), .call(.getObjects)])
        #expect(rules.objects(Self.tree(connected: true, resolved: true, paired: true), now: 2.1).first == .call(.startNotify(path: Self.measurement)))
        #expect(rules.paired)
        #expect(rules.succeeded(.startNotify(path: Self.measurement), values: [], now: 2.5) == [])
        #expect(rules.phase == .streaming)
    }

    @Test func aSensorStillRefusingAfterPairingIsAFaultAndPairingIsTriedOnTheNextAttempt() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 0)
        _ = rules.failed(.startNotify(path: Self.measurement), error: Self.notPaired, now: 1)
        _ = rules.succeeded(.pair, values: [], now: 2)
        _ = rules.objects(Self.tree(connected: true, resolved: true, paired: true), now: 2)
        let again = rules.failed(.startNotify(path: Self.measurement), error: Self.notPaired, now: 3)
        #expect(again.first == .call(.disconnect) && rules.phase == .waiting)
        #expect(Self.faults(again) == ["\(Self.address) refused heart-rate notifications even after pairing: Not paired (org.bluez.Error.NotPermitted)"])
        // The next attempt may pair again.
        _ = rules.tick(now: 10)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 10)
        #expect(rules.failed(.startNotify(path: Self.measurement), error: Self.notPaired, now: 11).last == .call(.pair))
    }

    @Test func aRefusedPairingSaysWhyAndWhatToDo() {
        func refusal(passkey: UInt32?, asked: PairingAgent.Request?, error: DBusError) -> (faults: [String], rules: HeartRateLinkRules) {
            var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0", passkey: passkey)
            _ = rules.start(now: 0)
            _ = rules.objects(Self.tree(connected: true, resolved: true), now: 0)
            if passkey == nil { _ = rules.failed(.startNotify(path: Self.measurement), error: Self.notPaired, now: 1) }
            #expect(rules.phase == .pairing)
            if let asked { rules.agentAsked(asked) }
            let actions = rules.failed(.pair, error: error, now: 2)
            #expect(Array(actions.prefix(2)) == [.call(.unregisterAgent), .call(.disconnect)] && rules.phase == .waiting && rules.retryAt == 3)
            return (Self.faults(actions), rules)
        }
        let failed = DBusError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
        let noPasskey = refusal(passkey: nil, asked: .passkey(given: false), error: failed)
        #expect(noPasskey.faults == ["pairing with \(Self.address) failed: Authentication Failed (org.bluez.Error.AuthenticationFailed); "
            + "the sensor asked for a passkey: set \"passkey\" in its device configuration"])
        #expect(noPasskey.rules.status.hasPrefix("not connected: pairing with"))
        #expect(refusal(passkey: 123, asked: .passkey(given: true), error: failed).faults.first?.hasSuffix(
            "the sensor asked for the passkey and was given the configured one: is it the sensor's?") == true)
        let rejected = DBusError(name: "org.bluez.Error.AuthenticationRejected", message: "Authentication Rejected")
        #expect(refusal(passkey: nil, asked: nil, error: rejected).faults == ["pairing with \(Self.address) failed: Authentication Rejected "
            + "(org.bluez.Error.AuthenticationRejected); the sensor refused (is it in pairing mode, or paired to another device?)"])
        #expect(refusal(passkey: nil, asked: .confirmation, error: DBusError(name: "org.bluez.Error.AuthenticationTimeout", message: "Authentication Timeout"))
            .faults == ["pairing with \(Self.address) failed: Authentication Timeout (org.bluez.Error.AuthenticationTimeout)"])
    }

    @Test func aSensorThatDropsTheLinkWhenSubscribedToIsToldToMayWantAPasskey() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0")
        _ = rules.start(now: 0)
        _ = rules.objects(Self.tree(connected: true, resolved: true), now: 0)
        let dropped = rules.deviceChanged(connected: false, servicesResolved: nil, now: 1)
        #expect(Self.faults(dropped) == ["\(Self.address) disconnected when asked for heart-rate notifications "
            + "(a sensor that pairs with a passkey needs \"passkey\" in its device configuration)"])
        #expect(dropped.last == .call(.getObjects))
        var keyed = HeartRateLinkRules(address: Self.address, adapter: "hci0", passkey: 1)
        _ = keyed.start(now: 0)
        _ = keyed.objects(Self.tree(connected: true, resolved: true, paired: true), now: 0)
        #expect(Self.faults(keyed.deviceChanged(connected: false, servicesResolved: nil, now: 1)) == [
            "\(Self.address) disconnected when asked for heart-rate notifications"])
    }

    @Test func aSensorWithAPasskeyIsPairedBeforeItIsSubscribedToUnlessPairedAlready() {
        var rules = HeartRateLinkRules(address: Self.address, adapter: "hci0", passkey: 4321)
        _ = rules.start(now: 0)
        #expect(rules.objects(Self.tree(connected: true, resolved: true), now: 0) == [.call(.registerAgent(capability: "KeyboardOnly")), .call(.pair)])
        // Paired meanwhile (BlueZ's own upgrade, another program): as good as done.
        #expect(rules.failed(.pair, error: DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Paired"), now: 1)
            == [.call(.unregisterAgent), .call(.getObjects)])
        #expect(rules.objects(Self.tree(connected: true, resolved: true, paired: true), now: 1).first == .call(.startNotify(path: Self.measurement)))
        var bonded = HeartRateLinkRules(address: Self.address, adapter: "hci0", passkey: 4321)
        _ = bonded.start(now: 0)
        #expect(bonded.objects(Self.tree(connected: true, resolved: true, paired: true), now: 0).first == .call(.startNotify(path: Self.measurement)))
    }

    @Test func theAgentAnswersForItsSensorOnly() {
        let agent = PairingAgent(devicePath: Self.devicePath, passkey: 1234)
        func call(_ member: String, _ arguments: [DBusValue] = [], path: String = PairingAgent.path, interface: String = PairingAgent.interface) -> DBusMethodCall {
            DBusMethodCall(sender: ":1.3", path: path, interface: interface, member: member, arguments: arguments)
        }
        let ours = DBusValue.objectPath(Self.devicePath), other = DBusValue.objectPath("/org/bluez/hci0/dev_11_22_33_44_55_66")
        #expect(agent.capability == "KeyboardOnly" && PairingAgent(devicePath: Self.devicePath, passkey: nil).capability == "NoInputNoOutput")
        #expect(agent.answer(call("RequestPasskey", [ours]))! == (.values([.uint32(1234)]), .passkey(given: true)))
        #expect(agent.answer(call("RequestPinCode", [ours]))! == (.values([.string("001234")]), .passkey(given: true)))
        #expect(agent.answer(call("RequestConfirmation", [ours, .uint32(555)]))! == (.values([]), .confirmation))
        #expect(agent.answer(call("RequestAuthorization", [ours]))! == (.values([]), .authorization))
        #expect(agent.answer(call("AuthorizeService", [ours, .string(BlueZ.uuid(0x180D))]))! == (.values([]), .authorization))
        #expect(agent.answer(call("DisplayPasskey", [ours, .uint32(1), .uint16(0)]))! == (.values([]), nil))
        #expect(agent.answer(call("Release"))! == (.values([]), nil) && agent.answer(call("Cancel"))! == (.values([]), nil))
        // Another device: refused, whatever it asks.
        for member in ["RequestPasskey", "RequestPinCode", "RequestConfirmation", "RequestAuthorization", "AuthorizeService"] {
            let answer = agent.answer(call(member, [other, .uint32(0)]))
            #expect(answer?.reply == .error(name: "org.bluez.Error.Rejected", message: "recorderd pairs only its configured sensor, not /org/bluez/hci0/dev_11_22_33_44_55_66")
                && answer?.request == nil, "\(member)")
        }
        // No passkey configured: the request is refused and remembered.
        #expect(PairingAgent(devicePath: Self.devicePath, passkey: nil).answer(call("RequestPasskey", [ours]))! ==
            (.error(name: "org.bluez.Error.Rejected", message: "no passkey configured for this sensor in recorderd"), .passkey(given: false)))
        // Not the agent's interface or path, or no such method: not answered here (sd-bus says unknown).
        #expect(agent.answer(call("RequestPasskey", [ours], interface: "org.freedesktop.DBus.Introspectable")) == nil)
        #expect(agent.answer(call("RequestPasskey", [ours], path: "/elsewhere")) == nil)
        #expect(agent.answer(call("Frobnicate", [ours])) == nil)
        #expect(PairingAgent.sixDigits(0) == "000000" && PairingAgent.sixDigits(999_999) == "999999")
    }

    @Test func answersThatComeTooLateChangeNothing() {
        var rules = Self.streaming()
        #expect(rules.succeeded(.connect, values: [], now: 101) == [])
        #expect(rules.failed(.connect, error: DBusError(name: nil, message: "late"), now: 101) == [])
        #expect(rules.objects(Self.tree(), now: 101) == [])
        #expect(rules.deviceAppeared(now: 101) == [])
        #expect(rules.phase == .streaming)
    }

    @Test func aPasskeyIsSixDigitsAtMost() throws {
        func device(_ passkey: String) throws(ConfigurationError) -> HeartRateConfiguration {
            let text = #"{"name": "hr0", "kind": "heartRate", "address": "a0:9e:1a:12:34:56", "passkey": "# + passkey + "}"
            let entry = try! JSONValueDecoder().decode(DeviceConfiguration.self, from: Array(text.utf8))
            return try entry.decode(HeartRateConfiguration.self)
        }
        #expect(try device("0").passkey == 0 && device("999999").passkey == 999_999 && device("1234").address == Self.address)
        #expect(try device("null").passkey == nil)
        for bad in ["1000000", "-1", "1.5", "\"123456\"", "1e300", "18446744073709551616"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try device(bad) }
        }
        #expect(HeartRateConfiguration.keys.contains("passkey"))
    }

    @Test func configurationAddressesAndAdapters() {
        #expect(HeartRateConfiguration.normalizedAddress("a0:9e:1a:12:34:5f") == "A0:9E:1A:12:34:5F")
        for bad in ["A0:9E:1A:12:34", "A0:9E:1A:12:34:5G", "A09E1A123456", "A0:9E:1A:12:34:56:78", "", "A0:9E:1A:12:34:5", "Ａ0:9E:1A:12:34:56"] {
            #expect(HeartRateConfiguration.normalizedAddress(bad) == nil, "\(bad)")
        }
        #expect(HeartRateConfiguration.isAdapterName("hci0") && HeartRateConfiguration.isAdapterName("hci12"))
        for bad in ["hci", "hci0/../x", "usb0", "hci-1", "hci٣"] { #expect(!HeartRateConfiguration.isAdapterName(bad), "\(bad)") }
        #expect(BlueZ.devicePath(adapter: "hci0", address: Self.address) == Self.devicePath)
        #expect(BlueZ.shortUUID("00002A37-0000-1000-8000-00805F9B34FB") == 0x2A37 && BlueZ.uuid(0x2A37) == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(BlueZ.shortUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e") == nil)
    }
}
