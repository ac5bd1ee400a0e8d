import Foundation
@testable import RecorderSystemd
import RecorderTestSupport
import Testing

/// recorderd's sd-bus connection against a real `dbus-daemon` of the test's own (a private bus on
/// a socket in a temporary folder): calls and their replies and errors, asynchronous calls and
/// signals through the loop, and every D-Bus type written and read back.
@Suite("D-Bus through sd-bus")
struct DBusConnectionTests {
    static let daemon = "/usr/bin/dbus-daemon"

    /// A private bus: its daemon (stopped by PID at the end) and address.
    static func withBus(_ body: (String) async throws -> Void) async throws {
        let folder = try Fixtures.temporaryDirectory()
        let address = "unix:path=\(folder)/bus"
        let bus = try await ChildProcess(daemon, ["--session", "--nofork", "--nopidfile", "--address=\(address)", "--print-address=1"])
        defer { Task { _ = try? await bus.stop() } }
        // Listening once it printed its address.
        let printed = try await bus.printed(where: { $0.contains("unix:path=") }, timeout: 30)
        try #require(printed != nil, "dbus-daemon printed no address: \(bus.printedSoFar())")
        try await body(address)
        _ = try await bus.stop()
    }

    /// Runs `connection`'s loop until `done` holds, at most `seconds` (each wait ends at the next
    /// message; the bound is for a broken test only).
    static func loop(_ connection: DBusConnection, seconds: Double, until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !done(), Date() < deadline {
            try connection.process()
            if done() { break }
            _ = try connection.wait(timeout: 0.5, wake: -1)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (scripts/setup.sh installs it)"), .ownThread)
    func callsRepliesErrorsAndCredentials() async throws {
        try await Self.withBus { address in
            let connection = try DBusConnection.connect(address: address, description: "test")
            let unique = try #require(connection.uniqueName)
            #expect(unique.hasPrefix(":1."))
            let names = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                            member: "ListNames")
            #expect(names.first?.texts?.contains(unique) == true && names.first?.texts?.contains("org.freedesktop.DBus") == true, "\(names)")
            // The daemon's own account of us: our process and user.
            let credentials = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                  member: "GetConnectionCredentials", [.string(unique)])
            let map = try #require(credentials.first?.map, "\(credentials)")
            #expect(map["ProcessID"]?.integer == Int(getpid()) && map["UnixUserID"]?.integer == Int(getuid()), "\(map)")
            // An error reply: its D-Bus name and message.
            #expect {
                _ = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                        member: "GetNameOwner", [.string("org.bluez")])
            } throws: { error in
                (error as? DBusError)?.name == "org.freedesktop.DBus.Error.NameHasNoOwner"
            }
            // A dictionary argument (a{ss}) the daemon reads.
            _ = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                    member: "UpdateActivationEnvironment",
                                    [.dictionary(key: "s", value: "s", [DBusDictionaryEntry(key: .string("RECORDERD_TEST"), value: .string("1"))])])
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (scripts/setup.sh installs it)"), .ownThread)
    func asynchronousRepliesTimeoutsAndSignalsComeThroughTheLoop() async throws {
        try await Self.withBus { address in
            let watcher = try DBusConnection.connect(address: address, description: "watcher")
            let owner = try DBusConnection.connect(address: address, description: "owner")
            var changes: [DBusSignal] = []
            let match = try watcher.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                + "arg0='org.recorderd.Test'") { changes.append($0) }
            // The match is in place once the daemon answered something after it.
            _ = try watcher.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
            let requested = try owner.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                           member: "RequestName", [.string("org.recorderd.Test"), .uint32(4)])
            #expect(requested == [.uint32(1)], "primary owner")
            try Self.loop(watcher, seconds: 10) { !changes.isEmpty }
            #expect(changes.first?.arguments == [.string("org.recorderd.Test"), .string(""), .string(owner.uniqueName!)], "\(changes)")
            #expect(changes.first?.member == "NameOwnerChanged" && changes.first?.path == "/org/freedesktop/DBus")
            // An asynchronous call's reply comes from process().
            var reply: Result<[DBusValue], DBusError>?
            try watcher.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "GetNameOwner", [.string("org.recorderd.Test")]) { reply = $0 }
            #expect(watcher.callsInFlight == 1)
            try Self.loop(watcher, seconds: 10) { reply != nil }
            #expect(try reply?.get() == [.string(owner.uniqueName!)])
            #expect(watcher.callsInFlight == 0)
            // A peer that never answers (the owner runs no loop): the call fails at its timeout.
            var late: Result<[DBusValue], DBusError>?
            try watcher.call(destination: "org.recorderd.Test", path: "/", interface: "org.recorderd.Test", member: "Nothing", timeout: 0.3) { late = $0 }
            try Self.loop(watcher, seconds: 10) { late != nil }
            guard case .failure(let error)? = late else { Issue.record("\(String(describing: late))"); return }
            #expect(error.name != nil, "\(error)")
            // After removeMatch, no more signals.
            watcher.removeMatch(match)
            _ = try owner.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                               member: "ReleaseName", [.string("org.recorderd.Test")])
            _ = try watcher.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
            try watcher.process()
            #expect(changes.count == 1)
        }
    }

    /// An object served by one connection (as recorderd serves BlueZ its pairing agent), called by
    /// another through the daemon: values and error replies as the handler gave them, the caller
    /// and arguments as sent, sd-bus's own errors for what the handler leaves, nothing after removal.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (scripts/setup.sh installs it)"), .ownThread)
    func servedObjectsAnswerCallsWithValuesAndErrors() async throws {
        try await Self.withBus { address in
            let server = try DBusConnection.connect(address: address, description: "server")
            let client = try DBusConnection.connect(address: address, description: "client")
            let destination = try #require(server.uniqueName)
            var calls: [DBusMethodCall] = []
            try server.addObject(path: "/org/recorderd/agent") { call in
                calls.append(call)
                switch call.member {
                case "RequestPasskey": return .values([.uint32(123_456)])
                case "RequestPinCode": return .values([.string("000042"), .boolean(true)])
                case "RequestConfirmation": return .error(name: "org.bluez.Error.Rejected", message: "not this one")
                default: return nil
                }
            }
            // Both loops turn until the client has its reply (each wait ends at the server's next
            // message; the bound is for a broken test only).
            func ask(_ member: String, _ arguments: [DBusValue], path: String = "/org/recorderd/agent") throws -> Result<[DBusValue], DBusError>? {
                var reply: Result<[DBusValue], DBusError>?
                try client.call(destination: destination, path: path, interface: "org.bluez.Agent1", member: member, arguments, timeout: 10) { reply = $0 }
                let deadline = Date().addingTimeInterval(20)
                while reply == nil, Date() < deadline {
                    try server.process()
                    try client.process()
                    if reply == nil { _ = try server.wait(timeout: 0.05, wake: -1) }
                }
                return reply
            }
            let device = DBusValue.objectPath("/org/bluez/hci0/dev_A0_9E_1A_12_34_56")
            #expect(try ask("RequestPasskey", [device])?.get() == [.uint32(123_456)])
            #expect(calls.first == DBusMethodCall(sender: client.uniqueName!, path: "/org/recorderd/agent", interface: "org.bluez.Agent1",
                                                  member: "RequestPasskey", arguments: [device]), "\(calls)")
            #expect(try ask("RequestPinCode", [device])?.get() == [.string("000042"), .boolean(true)])
            guard case .failure(let rejected)? = try ask("RequestConfirmation", [device, .uint32(7)]) else { Issue.record("no error reply"); return }
            #expect(rejected == DBusError(name: "org.bluez.Error.Rejected", message: "not this one"))
            #expect(calls.last?.arguments == [device, .uint32(7)])
            // What the handler leaves, another path, and the object once removed: sd-bus's errors.
            guard case .failure(let unknown)? = try ask("Frobnicate", []) else { Issue.record("no error reply"); return }
            #expect(unknown.isUnknownObject, "\(unknown)")
            guard case .failure(let elsewhere)? = try ask("RequestPasskey", [device], path: "/elsewhere") else { Issue.record("no error reply"); return }
            #expect(elsewhere.isUnknownObject, "\(elsewhere)")
            server.removeObject(path: "/org/recorderd/agent")
            let before = calls.count
            guard case .failure(let removed)? = try ask("RequestPasskey", [device]) else { Issue.record("no error reply"); return }
            #expect(removed.isUnknownObject && calls.count == before, "\(removed)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: daemon), "needs dbus-daemon (scripts/setup.sh installs it)"), .ownThread)
    func everyTypeIsReadBackAsWritten() async throws {
        try await Self.withBus { address in
            try Self.check(try DBusConnection.connect(address: address, description: "codec"))
        }
    }

    static let values: [DBusValue] = [
        .byte(0xFF), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
        .int64(Int64.min), .uint64(UInt64.max), .double(-0.0), .double(1e308), .string(""), .string("héllo \u{1F600}"),
        .objectPath("/org/bluez/hci0/dev_A0_9E_1A_12_34_56"), .signature("a{sv}"), .bytes([]), .bytes([0, 1, 254, 255]),
        .array(element: "s", []), .strings(["a", "b"]), .array(element: "ai", [.array(element: "i", [.int32(1)]), .array(element: "i", [])]),
        .propertyMap(["Value": .bytes([6, 72]), "Connected": .boolean(true), "RSSI": .int16(-60), "UUIDs": .strings(["180d"])]),
        .dictionary(key: "o", value: "a{sa{sv}}", [DBusDictionaryEntry(key: .objectPath("/x"), value: .dictionary(key: "s", value: "a{sv}", [
            DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: .propertyMap(["Name": .string("H10")])),
        ]))]),
        .structure([.int32(1), .string("two"), .structure([.double(3)])]),
        .variant(.variant(.uint16(7))),
    ]

    static func check(_ connection: DBusConnection) throws {
        let back = try connection.roundTrip(values)
        #expect(back.count == values.count)
        for (written, read) in zip(values, back) {
            #expect(read == written || (written.byteArray != nil && read.byteArray == written.byteArray), "\(written) read back as \(read)")
        }
        #expect(back.first { if case .double = $0 { true } else { false } }.map { if case .double(let d) = $0 { d.sign == .minus } else { false } } == true,
                "-0.0 keeps its sign")
    }
}
