import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

extension FleetTests {
    /// The clock's synchronisation across the fleet, with real chronyd daemons on loopback (a
    /// server of its own clock, and the Pi's follower of it: neither touches this machine's
    /// clock): recorded in the task result at start and end, carried by the retained status,
    /// flagged by `recorderctl fleet` while unsynchronised.
    @Suite(.enabled(if: MosquittoBroker.testsEnabled("ClockFleetTests") && ChronyDaemon.testsEnabled("ClockFleetTests"),
                    "needs mosquitto and chrony (scripts/setup.sh), and root for chronyd"))
    struct ClockFleetTests {
        static func manifest(_ directory: String) throws -> TaskResult {
            try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/taskResult.json")))
        }

        @Test(.timeLimit(.minutes(3)), .ownThread)
        func aRunStartedUnsynchronisedAndEndedSynchronisedSaysBothAndTheFleetSeesTheChange() async throws {
            let serverPort = LoopbackTCP.freePort(datagram: true)
            let follower = try await ChronyDaemon.follower(of: serverPort)
            let broker = try await MosquittoBroker.start()
            var clock = ClockConfiguration()
            clock.chronyPort = follower.commandPort
            let pi = try await FleetHarness.start(broker: broker, speed: 10, clock: clock)
            let fleetArguments = ["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)"]

            // Unsynchronised: the retained status says so, and so do recorderctl fleet and status.
            let unsynchronised = try await pi.retainedStatus(timeout: 60) { $0.clock?.source == .chrony && $0.clock?.synchronised == false }
            #expect(unsynchronised.clock?.leapStatus == "Not synchronised")
            let table = try await FleetTests.FleetLinkTests.recorderctl(fleetArguments)
            #expect(table.contains("CLOCK") && table.split(separator: "\n").contains { $0.hasPrefix("lab") && $0.contains("pi-1") && $0.contains("UNSYNCED") }, "\(table)")
            #expect(table.contains("warning: clock not synchronised on lab/pi-1: NOT synchronised (chrony, stratum 0)"), "\(table)")
            let status = try await FleetTests.FleetLinkTests.recorderctl(["status", "--socket", pi.socket])
            #expect(status.contains("clock: NOT synchronised (chrony, stratum 0)"), "\(status)")

            let client = try await RecorderClient.connect(socketPath: pi.socket)
            defer { client.close() }
            let run = try await client.startTask(identifier: "walk", asyncActions: [.motion("motion")])
            // The manifest written at the start already holds the clock's state then.
            let started = try await FileText.until(inDirectory: run.runDirectory, timeout: 30) {
                (try? Self.manifest(run.runDirectory))?.clockAtStart != nil
            }
            #expect(started)

            // The server comes; the follower takes it; the run ends synchronised.
            let server = try await ChronyDaemon.server(port: serverPort)
            try await follower.synchronised()
            let result = try await run.finish()
            let start = try #require(result.clockAtStart), end = try #require(result.clockAtEnd)
            #expect(start.source == .chrony && start.synchronised == false && start.offset == nil, "\(start)")
            #expect(end.source == .chrony && end.synchronised == true && end.reference == "127.0.0.1" && end.stratum == 9, "\(end)")
            // Each asked beside its boundary (the end's while the recorders stopped: the run ends when asked to).
            let endDate = try #require(result.endDate)
            #expect(start.checked <= result.startDate.addingTimeInterval(1) && end.checked >= start.checked && end.checked <= endDate.addingTimeInterval(1),
                    "\(result)")
            // What chronyc itself says now: the same server, stratum and a loopback-sized offset.
            let chronyc = try await follower.chronyc(["tracking"])
            #expect(chronyc.contains("Reference ID    : 7F000001 (127.0.0.1)") && chronyc.contains("Stratum         : 9"), "\(chronyc)")
            let offset = try #require(end.offset), bound = try #require(end.estimatedError)
            #expect(abs(offset) < 0.001 && bound >= abs(offset), "\(end)")
            // The file on disk is the same manifest.
            #expect(try Self.manifest(run.runDirectory).clockAtEnd == end)

            // The fleet sees the change at once (whether synchronised is what a view shows).
            let synchronised = try await pi.retainedStatus(timeout: 60) { $0.clock?.synchronised == true }
            #expect(synchronised.clock?.reference == "127.0.0.1")
            let after = try await FleetTests.FleetLinkTests.recorderctl(fleetArguments)
            #expect(after.split(separator: "\n").contains { $0.contains("pi-1") && $0.contains("synced") && !$0.contains("UNSYNCED") } && !after.contains("warning:"),
                    "\(after)")
            #expect(pi.daemon.printedSoFar().contains("clock synchronisation"))
            #expect(try await pi.daemon.stop() == 0)
            try await server.stop()
            try await follower.stop()
            try await broker.stop()
        }
    }
}
