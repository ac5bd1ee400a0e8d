/// How an IIO device is sampled, decided from what its driver offers and what the configuration
/// asks (`"trigger"`): the rules as a pure type, tested without libiio or sysfs (the house's
/// `TaskRunRules` pattern). `IIOSession` gathers the facts, asks `decide`, and carries out the
/// action.
///
/// A driver fills its buffer either by itself (a hardware FIFO with its own interrupt: no trigger
/// consumer, `trigger/` absent) or when a trigger fires (`trigger/current_trigger`: the driver's
/// data-ready trigger, wired to its interrupt pin, or a software trigger such as `hrtimer`). An
/// IMU board whose interrupt pin is not wired has no data-ready trigger — or, on some drivers
/// (st_lsm6dsx), no buffer at all — and then recorderd reads each channel's `raw` value at the
/// configured rate instead (polling).
public enum IIOCapturePolicy {
    /// What the configuration's `"trigger"` asks.
    public enum Request: Sendable, Equatable {
        /// Absent: buffered capture where the device can fill its buffer, else polling.
        case automatic
        /// `"none"`: polling, even where buffered capture works.
        case none
        /// `"hrtimer"`: a high-resolution timer trigger recorderd creates through configfs
        /// (`/sys/kernel/config/iio/triggers/hrtimer/<name>`, needs `iio-trig-hrtimer`).
        case hrtimer
        /// A trigger's name or id (`bmi160-dev0`, `trigger0`).
        case named(String)

        /// The request for a configuration's `"trigger"` value.
        public init(_ value: String?) {
            switch value {
            case nil: self = .automatic
            case "none"?: self = .none
            case "hrtimer"?: self = .hrtimer
            case let name?: self = .named(name)
            }
        }
    }

    /// A device's trigger consumer interface (`trigger/current_trigger`).
    public enum Consumer: Sendable, Equatable {
        /// No trigger directory: the driver fills its buffer itself (or has no buffer).
        case absent
        /// `current_trigger` is empty.
        case unset
        /// `current_trigger` names this trigger.
        case set(String)
    }

    /// What the device offers.
    public struct Facts: Sendable, Equatable {
        /// The device's label, for reasons (`bmi160 (iio:device0)`).
        public var device: String
        /// Its motion axes are scan elements (it has a buffer).
        public var hasBufferedAxes: Bool
        /// Its motion axes have `raw` values (it can be polled).
        public var hasRawAxes: Bool
        public var consumer: Consumer
        /// The triggers of the context: (id, name).
        public var triggers: [(id: String, name: String)]
        /// The kernel can make hrtimer triggers (its configfs directory exists; local contexts only).
        public var canMakeHrtimer: Bool
        /// The name recorderd gives the hrtimer trigger it makes for this device.
        public var hrtimerName: String

        public init(device: String, hasBufferedAxes: Bool, hasRawAxes: Bool, consumer: Consumer,
                    triggers: [(id: String, name: String)], canMakeHrtimer: Bool, hrtimerName: String) {
            self.device = device
            self.hasBufferedAxes = hasBufferedAxes
            self.hasRawAxes = hasRawAxes
            self.consumer = consumer
            self.triggers = triggers
            self.canMakeHrtimer = canMakeHrtimer
            self.hrtimerName = hrtimerName
        }

        public static func == (a: Facts, b: Facts) -> Bool {
            a.device == b.device && a.hasBufferedAxes == b.hasBufferedAxes && a.hasRawAxes == b.hasRawAxes && a.consumer == b.consumer
                && a.triggers.map(\.id) == b.triggers.map(\.id) && a.triggers.map(\.name) == b.triggers.map(\.name)
                && a.canMakeHrtimer == b.canMakeHrtimer && a.hrtimerName == b.hrtimerName
        }
    }

    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Buffered capture as the device is; `reason` says what fills the buffer.
        case buffer(reason: String)
        /// Make `name` the device's current trigger, then buffered capture (a trigger with a
        /// `sampling_frequency` of its own, as hrtimer's, is set to the rate).
        case assignTrigger(name: String, reason: String)
        /// Create the hrtimer trigger `name` through configfs, look again (the trigger appears as
        /// a new device), then assign it.
        case makeHrtimer(name: String)
        /// Read each channel's `raw` value at the rate; `reason` says why.
        case poll(reason: String)
        /// The device cannot be sampled as asked.
        case fail(String)
    }

    /// The action for `request` on a device with `facts`.
    public static func decide(_ request: Request, _ facts: Facts) -> Action {
        let pollable = facts.hasRawAxes
        func trigger(named name: String) -> (id: String, name: String)? {
            facts.triggers.first { $0.name == name } ?? facts.triggers.first { $0.id == name }
        }
        let known = facts.triggers.isEmpty ? "the kernel has none" : "triggers: " + facts.triggers.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
        switch request {
        case .none:
            return pollable ? .poll(reason: "polled: \"trigger\": \"none\" in the configuration")
                : .fail("\(facts.device) has no raw motion channels to poll (\"trigger\": \"none\")")
        case .named(let wanted):
            guard facts.consumer != .absent else {
                return .fail("\(facts.device) takes no trigger (no trigger/current_trigger): its driver fills its buffer itself; leave \"trigger\" out")
            }
            guard let found = trigger(named: wanted) else { return .fail("no IIO trigger named \(wanted.debugDescription) (\(known))") }
            return .assignTrigger(name: found.name, reason: "buffered: trigger \(found.name) (configured)")
        case .hrtimer:
            guard facts.consumer != .absent else {
                return .fail("\(facts.device) takes no trigger (no trigger/current_trigger): its driver fills its buffer itself; leave \"trigger\" out")
            }
            if let made = trigger(named: facts.hrtimerName) {
                return .assignTrigger(name: made.name, reason: "buffered: hrtimer trigger \(made.name) made by recorderd (configured)")
            }
            guard facts.canMakeHrtimer else {
                return .fail("the kernel cannot make an hrtimer trigger: no /sys/kernel/config/iio/triggers/hrtimer (needs configfs mounted and the iio-trig-hrtimer module; local devices only)")
            }
            return .makeHrtimer(name: facts.hrtimerName)
        case .automatic:
            if facts.hasBufferedAxes {
                switch facts.consumer {
                case .absent: return .buffer(reason: "buffered: the driver fills its buffer (no trigger needed)")
                case .set(let name): return .buffer(reason: "buffered: trigger \(name)")
                case .unset: break
                }
            }
            guard pollable else {
                if facts.hasBufferedAxes {
                    return .fail("\(facts.device) has no trigger (current_trigger is empty; \(known)) and no raw channels to poll: name a trigger in \"trigger\"")
                }
                return .fail("\(facts.device) has neither buffered nor raw motion channels")
            }
            if facts.hasBufferedAxes {
                return .poll(reason: "polled: no trigger (current_trigger is empty: no data-ready interrupt; \(known)); \"trigger\" can name one")
            }
            return .poll(reason: "polled: the driver has no buffer (no data-ready interrupt)")
        }
    }
}
