import RecorderSystemd

/// recorderd's answers as a BlueZ pairing agent (`org.bluez.Agent1`, BlueZ's doc/agent-api.txt)
/// for one sensor, without I/O: `HeartRateLink` serves it on its bus connection and registers it
/// (`AgentManager1.RegisterAgent`) before it asks BlueZ to pair, so BlueZ turns to it for that
/// pairing.
///
/// A heart-rate strap has no keyboard and no display: most pair "just works" (BlueZ confirms on
/// our behalf). One that wants a passkey gets the configured one (`"passkey"` in the device's
/// configuration; the agent registers as `KeyboardOnly` then, else `NoInputNoOutput`). Requests
/// for any other device are rejected: recorderd pairs only its sensors.
struct PairingAgent: Equatable, Sendable {
    /// The sensor's BlueZ device object.
    let devicePath: String
    /// The passkey to give when the sensor asks for one (0…999999).
    let passkey: UInt32?

    /// Where the agent is served on the link's own connection.
    static let path = "/org/recorderd/agent"
    static let interface = "org.bluez.Agent1"
    static let rejected = "org.bluez.Error.Rejected"

    /// The capability BlueZ is told: what the sensor may ask of us.
    var capability: String { passkey == nil ? "NoInputNoOutput" : "KeyboardOnly" }

    /// What the agent was asked, for the link's error when the pairing fails.
    enum Request: Equatable, Sendable {
        case passkey(given: Bool)
        case confirmation
        case authorization
    }

    /// The answer to `call` and what it asked, or nil for a call that is not the agent API's.
    func answer(_ call: DBusMethodCall) -> (reply: DBusMethodReply, request: Request?)? {
        guard call.interface == Self.interface, call.path == Self.path else { return nil }
        let device = call.arguments.first?.text
        switch call.member {
        case "Release", "Cancel":
            return (.values([]), nil)
        case "DisplayPasskey", "DisplayPinCode":
            // The sensor shows a code for us to type: a strap has no keyboard; nothing to do.
            return (.values([]), nil)
        case "RequestPasskey", "RequestPinCode":
            guard device == devicePath else { return (refuse(device), nil) }
            guard let passkey else {
                return (.error(name: Self.rejected, message: "no passkey configured for this sensor in recorderd"), .passkey(given: false))
            }
            let value: DBusValue = call.member == "RequestPasskey" ? .uint32(passkey) : .string(Self.sixDigits(passkey))
            return (.values([value]), .passkey(given: true))
        case "RequestConfirmation":
            // Just Works, or numeric comparison with a sensor that shows no number: accepted for
            // the configured sensor.
            guard device == devicePath else { return (refuse(device), nil) }
            return (.values([]), .confirmation)
        case "RequestAuthorization", "AuthorizeService":
            guard device == devicePath else { return (refuse(device), nil) }
            return (.values([]), .authorization)
        default:
            return nil
        }
    }

    private func refuse(_ device: String?) -> DBusMethodReply {
        .error(name: Self.rejected, message: "recorderd pairs only its configured sensor, not \(device ?? "an unnamed device")")
    }

    /// A passkey as the six digits a pairing dialogue shows (`001234`).
    static func sixDigits(_ passkey: UInt32) -> String {
        let digits = String(passkey)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
