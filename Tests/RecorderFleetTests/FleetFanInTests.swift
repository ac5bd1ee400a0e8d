import Foundation
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing
@testable import RecorderFleet

extension FleetTests {
    /// 50 simulated Pis (each its own MQTT client and recorderd's uploader on a run folder of its
    /// own) upload at once through one real mosquitto to two `recorderctl collect` sharing the load
    /// through an MQTT 5 shared subscription: every run arrives exactly once, byte for byte.
    @Suite(.enabled(if: MosquittoBroker.testsEnabled("FleetFanInTests"), "needs mosquitto (scripts/setup.sh)"))
    struct FleetFanInTests {
        static let devices = 50

        /// A run folder as recorderd leaves it: a task result and a motion file of `bytes`.
        static func makeRun(in dataDirectory: String, seed: Int, bytes: Int) throws -> RunOutbox.Entry {
            let run = UUID()
            let folder = "\(dataDirectory)/runs/walk/20261123T120000Z-\(run.uuidString)"
            try FileManager.default.createDirectory(atPath: folder + "/extra", withIntermediateDirectories: true)
            let result = TaskResult(taskIdentifier: "walk", taskRunUUID: run, startDate: Date(), status: .finished)
            try TaskResult.makeEncoder(pretty: true).encode(result).write(to: URL(fileURLWithPath: folder + "/taskResult.json"))
            var generator = SplitMix(seed: UInt64(seed))
            var lines = ""
            while lines.utf8.count < bytes {
                lines += #"{"uptime":\#(Double(generator.next() % 1_000_000) / 1000),"x":\#(Double(generator.next() % 20_000) / 1000 - 10)}"# + "\n"
            }
            try Data(lines.utf8).write(to: URL(fileURLWithPath: folder + "/motion.jsonl"))
            try Data().write(to: URL(fileURLWithPath: folder + "/extra/empty.txt"))
            return RunOutbox.Entry(taskRunUUID: run, taskIdentifier: "walk", runDirectory: folder, state: .pending, queued: Date())
        }

        /// A simulated Pi: an MQTT client, its answers routed to an inbox, and the uploader.
        static func upload(_ entry: RunOutbox.Entry, device: String, dataDirectory: String, port: Int) async throws {
            let client = try MQTTClient(options: MQTTClient.Options(clientID: "sim-\(device)", host: "127.0.0.1", port: port))
            let topics = FleetTopics(prefix: "recorderd/v1", site: "lab", device: device)
            let inbox = AckInbox()
            let connected = LockedValue(false)
            client.start()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in client.events {
                        if event == .connected {
                            try client.subscribe(topics.acknowledgements, qos: 1)
                            connected.withLock { $0 = true }
                        } else {
                            connected.withLock { $0 = false }
                        }
                    }
                }
                group.addTask {
                    for await message in client.messages {
                        if let ack = try? JSONDecoder().decode(UploadAck.self, from: Data(message.payload)) { inbox.deliver(ack) }
                    }
                }
                let uploader = RunUploader(client: client, control: ControlLink(socketPath: "/nonexistent"), outbox: RunOutbox(dataDirectory: dataDirectory),
                                           topics: topics, acks: inbox, isConnected: { connected.withLock { $0 } }, logger: Fixtures.logger)
                await uploader.upload(entry)
                client.stop()
                try await group.waitForAll()
            }
        }

        @Test(.timeLimit(.minutes(4)))
        func fiftyPisThroughOneBrokerToTwoSharedCollectorsArriveExactlyOnce() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collectors = [try await RunUploadTests.collector(broker, root, share: "collectors"),
                              try await RunUploadTests.collector(broker, root, share: "collectors")]
            let base = try Fixtures.temporaryDirectory()
            var runs: [(device: String, data: String, entry: RunOutbox.Entry)] = []
            for i in 0..<Self.devices {
                let data = "\(base)/pi-\(i)"
                runs.append(("pi-\(i)", data, try Self.makeRun(in: data, seed: i, bytes: 100_000 + 7_919 * i)))
            }
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for r in runs {
                    group.addTask { try await Self.upload(r.entry, device: r.device, dataDirectory: r.data, port: broker.port) }
                }
                try await group.waitForAll()
            }
            let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
            for r in runs {
                #expect(RunOutbox(dataDirectory: r.data).entry(r.entry.taskRunUUID)?.state == .acknowledged, "\(r.device)")
                let copy = "\(root)/lab/\(r.device)/walk/\((r.entry.runDirectory as NSString).lastPathComponent)"
                #expect(try await RunUploadTests.sums(copy) == RunUploadTests.sums(r.entry.runDirectory), "\(r.device)")
                #expect(FileManager.default.fileExists(atPath: copy + "/extra/empty.txt"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/lab/\(r.device)/walk").count == 1)
            }
            // Each run reported complete once, by one of the two; both took a share.
            let reports = collectors.map { c in c.printedSoFar().split(separator: "\n").filter { $0.hasPrefix("run lab/") } }
            #expect(reports.map(\.count).reduce(0, +) == Self.devices, "\(reports.map(\.count))")
            #expect(Set(reports.joined().map { $0.split(separator: ":")[0] }).count == Self.devices)
            #expect(reports.allSatisfy { !$0.isEmpty }, "one collector did all the work: \(reports.map(\.count))")
            print("FLEET fan-in: \(Self.devices) Pis, \(reports.map(\.count)) runs completed by each collector, \(seconds) s")
            for c in collectors { _ = try await c.stop() }
            try await broker.stop()
        }
    }
}
