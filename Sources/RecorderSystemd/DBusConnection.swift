import CSystemd
import Glibc
import RecorderRuntime

/// A connection to a D-Bus bus through sd-bus (libsystemd), for the one thread that makes it.
///
/// sd-bus objects are not thread-safe: a connection is made, used and released on one thread
/// (a backend's sampling thread), which runs its loop: `wait(timeout:wake:)` until the bus or the
/// thread's wake-up descriptor is readable, then `process()`, which gives queued replies and
/// signals to their handlers. Not `Sendable`, so it cannot leave its thread. Calls are
/// asynchronous (`call(…reply:)`, the reply from `process()`); the blocking `call` is for tools
/// and tests.
public final class DBusConnection {
    let bus: OpaquePointer

    /// A reply, signal or method handler; sd-bus holds it unretained as the callback's userdata.
    /// Its body says whether it handled the message (a method call it answered); replies and
    /// signals are never "handled", so other matches still see them.
    final class Handler {
        let body: (OpaquePointer) -> Bool
        init(_ body: @escaping (OpaquePointer) -> Bool) { self.body = body }
    }

    /// Handlers of calls in flight (their slots are sd-bus's: floating), by call number.
    private var pendingReplies: [Int: Handler] = [:]
    private var nextCall = 1
    /// Match slots and their handlers, by the number `addMatch` returned.
    private var matches: [Int: (slot: OpaquePointer, handler: Handler)] = [:]
    private var nextMatch = 1
    /// Objects this connection serves: their slots and method handlers, by path.
    private var objects: [String: (slot: OpaquePointer, handler: Handler)] = [:]

    private init(bus: OpaquePointer) {
        self.bus = bus
    }

    deinit {
        for match in matches.values { sd_bus_slot_unref(match.slot) }
        for object in objects.values { sd_bus_slot_unref(object.slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS` or /run/dbus/system_bus_socket), named
    /// `description` in sd-bus's own messages.
    public static func system(description: String) throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        let r = sd_bus_open_system(&bus)
        guard r >= 0, let bus else { throw DBusError.system("connecting to the system bus", r) }
        _ = description.withCString { sd_bus_set_description(bus, $0) }
        return DBusConnection(bus: bus)
    }

    /// The bus this connection reached at `address` (`unix:path=…`), for tests.
    public static func connect(address: String, description: String) throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        var r = sd_bus_new(&bus)
        guard r >= 0, let bus else { throw DBusError.system("making a D-Bus connection", r) }
        _ = description.withCString { sd_bus_set_description(bus, $0) }
        r = address.withCString { sd_bus_set_address(bus, $0) }
        if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
        if r >= 0 { r = sd_bus_start(bus) }
        guard r >= 0 else {
            sd_bus_unref(bus)
            throw DBusError.system("connecting to \(address)", r)
        }
        return DBusConnection(bus: bus)
    }

    /// This connection's unique name on the bus (`:1.42`).
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    // MARK: Calls

    private func methodCall(destination: String, path: String, interface: String, member: String,
                            arguments: [DBusValue], autoStart: Bool = true) throws(DBusError) -> OpaquePointer {
        var message: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw DBusError.system("calling \(interface).\(member) on \(path)", r) }
        if !autoStart { _ = sd_bus_message_set_auto_start(message, 0) }
        for argument in arguments {
            let a = DBusMessageCodec.append(argument, to: message)
            guard a >= 0 else {
                sd_bus_message_unref(message)
                throw DBusError.system("writing the arguments of \(interface).\(member)", a)
            }
        }
        return message
    }

    /// The reply's values, or the error it carries.
    static func values(ofReply reply: OpaquePointer) -> Result<[DBusValue], DBusError> {
        if let error = sd_bus_message_get_error(reply), sd_bus_error_is_set(error) != 0 {
            return .failure(DBusError(name: error.pointee.name.map { String(cString: $0) },
                                      message: error.pointee.message.map { String(cString: $0) } ?? ""))
        }
        do throws(DBusError) {
            return .success(try DBusMessageCodec.readAll(reply))
        } catch {
            return .failure(error)
        }
    }

    /// Calls `member` and waits for its reply, up to `timeout` seconds (for tools, tests and a
    /// thread of its own: a recorder thread uses the asynchronous call). `autoStart` false: a
    /// destination that is not running is an error rather than started by the bus.
    public func call(destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
                     timeout: Double = 25, autoStart: Bool = true) throws(DBusError) -> [DBusValue] {
        let message = try methodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                                     autoStart: autoStart)
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, message, Self.microseconds(timeout), &error, &reply)
        defer { if let reply { sd_bus_message_unref(reply) } }
        guard r >= 0, let reply else {
            if sd_bus_error_is_set(&error) != 0 {
                throw DBusError(name: error.name.map { String(cString: $0) }, message: error.message.map { String(cString: $0) } ?? "")
            }
            throw DBusError.system("\(interface).\(member) on \(path)", r)
        }
        return try Self.values(ofReply: reply).get()
    }

    /// Calls `member`; `reply` gets its values or error (a timeout after `timeout` seconds, or the
    /// connection's loss, is an error too) from a later `process()`. `autoStart` false: a
    /// destination that is not running is an error (`ServiceUnknown`) rather than started by the
    /// bus (D-Bus activation).
    public func call(destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
                     timeout: Double = 25, autoStart: Bool = true, reply: @escaping (Result<[DBusValue], DBusError>) -> Void) throws(DBusError) {
        let message = try methodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                                     autoStart: autoStart)
        defer { sd_bus_message_unref(message) }
        let number = nextCall
        nextCall += 1
        let handler = Handler { [unowned self] message in
            // The entry was the handler's last strong reference: it lives on for this call.
            let this = self.pendingReplies.removeValue(forKey: number)
            withExtendedLifetime(this) { reply(Self.values(ofReply: message)) }
            return false
        }
        let r = sd_bus_call_async(bus, nil, message, dbusTrampoline, Unmanaged.passUnretained(handler).toOpaque(), Self.microseconds(timeout))
        guard r >= 0 else { throw DBusError.system("calling \(interface).\(member) on \(path)", r) }
        pendingReplies[number] = handler
    }

    /// Calls in flight.
    public var callsInFlight: Int { pendingReplies.count }

    // MARK: Signals

    /// Signals matching `rule` (a D-Bus match rule: `type='signal',sender='org.bluez',…`) go to
    /// `handler` from `process()` until `removeMatch` of the number returned.
    @discardableResult
    public func addMatch(_ rule: String, handler: @escaping (DBusSignal) -> Void) throws(DBusError) -> Int {
        let box = Handler { message in
            if let arguments = try? DBusMessageCodec.readAll(message) { handler(DBusReceivedMessage(message, arguments: arguments)) }
            return false
        }
        var slot: OpaquePointer?
        let r = sd_bus_add_match(bus, &slot, rule, dbusTrampoline, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let slot else { throw DBusError.system("adding the D-Bus match \(rule)", r) }
        let number = nextMatch
        nextMatch += 1
        matches[number] = (slot, box)
        return number
    }

    /// Stops the match `addMatch` returned `number` for.
    public func removeMatch(_ number: Int) {
        guard let match = matches.removeValue(forKey: number) else { return }
        sd_bus_slot_unref(match.slot)
    }

    // MARK: Objects

    /// Serves the object at `path` (`handler` answers each method call to it, from `process()`)
    /// until `removeObject(path)`. A call the handler leaves unanswered (nil) gets sd-bus's
    /// `UnknownMethod` error.
    public func addObject(path: String, handler: @escaping (DBusMethodCall) -> DBusMethodReply?) throws(DBusError) {
        removeObject(path: path)
        let box = Handler { [unowned self] message in
            let call = DBusReceivedMessage(message, arguments: (try? DBusMessageCodec.readAll(message)) ?? [])
            guard let answer = handler(call) else { return false }
            self.reply(to: message, with: answer)
            return true
        }
        var slot: OpaquePointer?
        let r = sd_bus_add_object(bus, &slot, path, dbusTrampoline, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let slot else { throw DBusError.system("serving the D-Bus object \(path)", r) }
        objects[path] = (slot, box)
    }

    /// Stops serving the object `addObject` added at `path`.
    public func removeObject(path: String) {
        guard let object = objects.removeValue(forKey: path) else { return }
        sd_bus_slot_unref(object.slot)
    }

    /// Sends the method return or error `answer` to `call` (a failure to send is the caller's
    /// timeout: nothing else to do).
    private func reply(to call: OpaquePointer, with answer: DBusMethodReply) {
        switch answer {
        case .values(let values):
            var message: OpaquePointer?
            guard sd_bus_message_new_method_return(call, &message) >= 0, let message else { return }
            defer { sd_bus_message_unref(message) }
            for value in values where DBusMessageCodec.append(value, to: message) < 0 { return }
            _ = sd_bus_send(bus, message, nil)
        case .error(let name, let text):
            var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
            defer { sd_bus_error_free(&error) }
            _ = sd_bus_error_set(&error, name, text)
            _ = sd_bus_reply_method_error(call, &error)
        }
    }

    // MARK: The loop

    /// Gives everything queued to its handlers: replies, signals. Throws when the connection is
    /// lost (`ECONNRESET` and the like): make a new one.
    public func process() throws(DBusError) {
        while true {
            let r = sd_bus_process(bus, nil)
            guard r >= 0 else { throw DBusError.system("D-Bus connection", r) }
            if r == 0 { return }
        }
    }

    /// Waits until the bus has something for `process()`, `wake` is readable (it is not read),
    /// or `timeout` seconds pass. True when `wake` is readable.
    public func wait(timeout: Double, wake: Int32) throws(DBusError) -> Bool {
        let fd = sd_bus_get_fd(bus)
        guard fd >= 0 else { throw DBusError.system("D-Bus connection", fd) }
        let events = sd_bus_get_events(bus)
        guard events >= 0 else { throw DBusError.system("D-Bus connection", events) }
        var milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        var deadline: UInt64 = 0
        if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
            let now = UInt64(SystemClock.monotonicUptime() * 1e6)
            let due = deadline > now ? Int32(min((deadline - now + 999) / 1000, UInt64(Int32.max))) : 0
            milliseconds = min(milliseconds, due)
        }
        var descriptors = [pollfd(fd: fd, events: Int16(events), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let r = poll(&descriptors, 2, milliseconds)
        guard r >= 0 || errno == EINTR else { throw DBusError.system("waiting on D-Bus", -errno) }
        return r > 0 && descriptors[1].revents != 0
    }

    static func microseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0.001, min(seconds, 86_400)) * 1_000_000)
    }
}

/// A signal or a method call received: who sent it, to or from which object, and its arguments.
public struct DBusReceivedMessage: Sendable, Equatable {
    /// The sender's unique name (`:1.7`).
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The header fields of `message` and its `arguments`.
    init(_ message: OpaquePointer, arguments: [DBusValue]) {
        func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        self.init(sender: text(sd_bus_message_get_sender(message)), path: text(sd_bus_message_get_path(message)),
                  interface: text(sd_bus_message_get_interface(message)), member: text(sd_bus_message_get_member(message)),
                  arguments: arguments)
    }
}

/// A signal a match delivered.
public typealias DBusSignal = DBusReceivedMessage
/// A method call to an object this connection serves.
public typealias DBusMethodCall = DBusReceivedMessage

/// The answer to a `DBusMethodCall`: a method return with its values, or an error reply.
public enum DBusMethodReply: Sendable, Equatable {
    case values([DBusValue])
    /// An error reply: its D-Bus error name (`org.bluez.Error.Rejected`) and message.
    case error(name: String, message: String)
}

/// sd-bus's callback for every handler: the userdata is the `Handler`; 1 when it handled the
/// message (a method call answered), else 0 (for a method call: sd-bus answers "unknown method").
private let dbusTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let handler = Unmanaged<DBusConnection.Handler>.fromOpaque(userdata).takeUnretainedValue()
    return withExtendedLifetime(handler) { handler.body(message) ? 1 : 0 }
}

extension DBusConnection {
    /// `values` written into a signal message, sealed and read back: what a receiver of them gets
    /// (the codec's own check, without a peer).
    func roundTrip(_ values: [DBusValue]) throws(DBusError) -> [DBusValue] {
        var message: OpaquePointer?
        var r = sd_bus_message_new_signal(bus, &message, "/org/recorderd/RoundTrip", "org.recorderd.RoundTrip", "Values")
        guard r >= 0, let message else { throw DBusError.system("making a D-Bus signal", r) }
        defer { sd_bus_message_unref(message) }
        for value in values {
            r = DBusMessageCodec.append(value, to: message)
            guard r >= 0 else { throw DBusError.system("writing \(value.signature)", r) }
        }
        r = sd_bus_message_seal(message, 1, 0)
        guard r >= 0 else { throw DBusError.system("sealing a D-Bus message", r) }
        r = sd_bus_message_rewind(message, 1)
        guard r >= 0 else { throw DBusError.system("rewinding a D-Bus message", r) }
        return try DBusMessageCodec.readAll(message)
    }
}
