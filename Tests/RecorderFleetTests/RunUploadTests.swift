import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing

extension FleetTests {
    /// Lossless upload of ended runs through a real mosquitto to `recorderctl collect`: the copy is
    /// byte for byte the Pi's (sha256sum, an independent tool, on both), whatever stops in between.
    @Suite(.enabled(if: MosquittoBroker.testsEnabled("RunUploadTests"), "needs mosquitto (scripts/setup.sh)"))
    struct RunUploadTests {
        /// `recorderctl collect` into `directory`, once it has subscribed.
        static func collector(_ broker: any TestBroker, _ directory: String, share: String? = nil, arguments more: [String] = []) async throws -> ChildProcess {
            var arguments = ["collect", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--dir", directory] + more
            if let share { arguments += ["--share", share] }
            let p = try await ChildProcess(ChildProcess.executable("recorderctl"), arguments)
            if try await p.printed(where: { $0.contains("collecting from") }, timeout: 30) != nil { return p }
            throw FleetHarness.HarnessError(description: "recorderctl collect did not start: \(p.printedSoFar())")
        }

        /// A finished run of the replay device whose motion file has at least `bytes`.
        static func recordRun(_ pi: FleetHarness, task: String = "walk", bytes: Int) async throws -> (run: UUID, directory: String) {
            let client = try await RecorderClient.connect(socketPath: pi.socket)
            defer { client.close() }
            let run = try await client.startTask(identifier: task, asyncActions: [.motion("motion")])
            let motion = run.runDirectory + "/motion.jsonl"
            _ = try await FileText.until(inDirectory: run.runDirectory, timeout: 60) {
                ((try? FileManager.default.attributesOfItem(atPath: motion)[.size] as? Int) ?? 0) >= bytes
            }
            let result = try await run.finish()
            #expect(result.status == .finished)
            return (run.taskRunUUID, run.runDirectory)
        }

        /// The run's folder in the collector's tree once it is there (the rename is its last step).
        static func collected(_ root: String, task: String = "walk", runDirectory: String, timeout: Double = 90, while running: [ChildProcess] = []) async throws -> String {
            let path = "\(root)/\(FleetHarness.site)/\(FleetHarness.device)/\(task)/\((runDirectory as NSString).lastPathComponent)"
            if try await FileText.until(inDirectory: (path as NSString).deletingLastPathComponent, timeout: timeout, { FileManager.default.fileExists(atPath: path) }) {
                return path
            }
            throw FleetHarness.HarnessError(description: "\(path) never arrived; \(running.map { $0.printedSoFar() }.joined(separator: "\n---\n"))")
        }

        /// `sha256sum` of every file in a run folder (hidden files aside), by relative path.
        static func sums(_ folder: String) async throws -> [String: String] {
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { path in
                var isDirectory: ObjCBool = false
                return !path.split(separator: "/").contains { $0.hasPrefix(".") }
                    && FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
            }.sorted()
            let p = try await ChildProcess("/usr/bin/sha256sum", files.map { folder + "/" + $0 })
            #expect(try await p.wait(timeout: 60) == 0)
            var sums: [String: String] = [:]
            for line in p.printed.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1)
                sums[String(parts[1].trimmingCharacters(in: .whitespaces).dropFirst(folder.count + 1))] = String(parts[0])
            }
            return sums
        }

        static func expectIdentical(_ pi: String, _ copy: String) async throws {
            let original = try await sums(pi)
            let collected = try await sums(copy)
            #expect(!original.isEmpty && original.keys.contains("motion.jsonl") && original.keys.contains("taskResult.json"), "\(original)")
            #expect(collected == original, "the collector's copy differs: \(collected) vs \(original)")
        }

        /// Waits until the collector holds `bytes` of the run's motion file (the upload is midway).
        static func collectorHolds(_ root: String, _ run: UUID, atLeast bytes: Int) async throws {
            let partial = "\(root)/.incoming/lab/pi-1/\(run.uuidString)/files/motion.jsonl"
            let holds = try await FileText.until(inDirectory: (partial as NSString).deletingLastPathComponent, timeout: 60) {
                ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) >= bytes
            }
            if holds { return }
            throw FleetHarness.HarnessError(description: "the collector never held \(bytes) bytes of \(partial)")
        }

        static func outboxState(_ pi: FleetHarness, _ run: UUID) -> String? {
            outboxState(pi.dataDirectory, run)
        }

        /// The run's state in the outbox of the data directory `dataDirectory`.
        static func outboxState(_ dataDirectory: String, _ run: UUID) -> String? {
            guard let data = FileManager.default.contents(atPath: "\(dataDirectory)/fleet/outbox/\(run.uuidString).json"),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["state"] as? String
        }

        /// Waits until the Pi's outbox marks the run `state` (each look after a change in the outbox).
        static func outbox(_ pi: FleetHarness, _ run: UUID, is state: String, timeout: Double = 60) async throws -> Bool {
            try await outbox(pi.dataDirectory, run, is: state, timeout: timeout)
        }

        /// Waits until the outbox of the data directory `dataDirectory` marks the run `state`.
        static func outbox(_ dataDirectory: String, _ run: UUID, is state: String, timeout: Double = 60) async throws -> Bool {
            try await FileText.until(inDirectory: "\(dataDirectory)/fleet/outbox", timeout: timeout) { outboxState(dataDirectory, run) == state }
        }

        /// Waits until the Pi's outbox marks the run acknowledged and recorderd has logged so (the
        /// log line follows the outbox's write: a look at the log right after the outbox changed
        /// found it missing in one CI run).
        static func acknowledged(_ pi: FleetHarness, _ run: UUID, timeout: Double = 60) async throws {
            if try await outbox(pi, run, is: "acknowledged", timeout: timeout),
               try await pi.daemon.printed(where: { text in
                   // One line saying both (the whole output names the run earlier, and another run's acknowledgement).
                   text.split(separator: "\n").contains { $0.contains("run acknowledged") && $0.contains(run.uuidString) }
               }, timeout: timeout) != nil {
                return
            }
            throw FleetHarness.HarnessError(description: "run \(run) not acknowledged: \(outboxState(pi, run) ?? "no entry"); \(pi.daemon.printedSoFar())")
        }

        @Test(.timeLimit(.minutes(3)), .ownThread)
        func aFinishedRunArrivesByteForByteAndIsMarkedUploaded() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collector = try await Self.collector(broker, root)
            let pi = try await FleetHarness.start(broker: broker, speed: 10)
            let (run, directory) = try await Self.recordRun(pi, bytes: 600_000)
            let copy = try await Self.collected(root, runDirectory: directory, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            #expect(collector.printedSoFar().contains("run lab/pi-1/walk/\((directory as NSString).lastPathComponent):"), "\(collector.printedSoFar())")
            // The fleet view counts nothing pending, and nothing is left half-way on the collector.
            _ = try await pi.retainedStatus { $0.uploadsPending == 0 }
            #expect((try? FileManager.default.contentsOfDirectory(atPath: root + "/.incoming/lab/pi-1")) ?? [] == [])
            #expect(pi.daemon.printedSoFar().contains("fleet upload: run acknowledged"))
            #expect(try await pi.daemon.stop() == 0)
            // Started again, recorderd does not send an acknowledged run again.
            let again = try await FleetHarness.start(broker: broker, directory: pi.directory)
            _ = try await again.retainedStatus { $0.uploadsPending == 0 && $0.uptimeSeconds ?? 99 < 60 }
            #expect(!again.daemon.printedSoFar().contains("fleet upload queued"))
            #expect(try await again.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }

        /// Compressed and plain: the real walk's motion lines (the replayed mobgap walk, fused) to a
        /// collector that asks for plain chunks (`--plain-chunks`, as one before zstd) and then to
        /// one that accepts zstd: both runs arrive byte for byte; the chunks of the compressed one
        /// take at most a quarter of the bytes on the wire (per byte of the files) that the plain
        /// one's did, by the Pi's count and by the collector's.
        @Test(.timeLimit(.minutes(4)), .ownThread)
        func aRunTravelsCompressedToACollectorThatTakesZstdAndPlainToOneThatDoesNot() async throws {
            let broker = try await MosquittoBroker.start()
            let pi = try await FleetHarness.start(broker: broker, speed: 10)
            var ratios: [Double] = []
            for plain in [true, false] {
                let root = try Fixtures.temporaryDirectory()
                let collector = try await Self.collector(broker, root, arguments: plain ? ["--plain-chunks"] : [])
                let (run, directory) = try await Self.recordRun(pi, bytes: 2_000_000)
                let copy = try await Self.collected(root, runDirectory: directory, while: [collector, pi.daemon])
                try await Self.expectIdentical(directory, copy)
                try await Self.acknowledged(pi, run)
                let line = try #require(pi.daemon.printedSoFar().split(separator: "\n").last { $0.contains("run acknowledged") && $0.contains(run.uuidString) })
                func field(_ name: String) -> Int? {
                    guard let range = line.range(of: " " + name + "=") else { return nil }
                    return Int(line[range.upperBound...].prefix { $0.isNumber })
                }
                let (bytes, wire) = (try #require(field("bytes")), try #require(field("wireBytes")))
                let reported = "checked (\(wire) bytes of chunks on the wire)"
                _ = try await collector.printed(where: { $0.contains(reported) }, timeout: 30)
                #expect(collector.printedSoFar().contains(reported), "the collector counted what the Pi sent: \(collector.printedSoFar())")
                ratios.append(Double(wire) / Double(bytes))
                print("UPLOAD \(plain ? "plain" : "zstd 1"): \(bytes) bytes of files, \(wire) bytes of chunks on the wire (\(Double(wire) / Double(bytes)))")
                _ = try await collector.stop()
            }
            #expect(ratios[0] >= 1 && ratios[1] * 4 <= ratios[0], "\(ratios)")
            #expect(try await pi.daemon.stop() == 0)
            try await broker.stop()
        }

        /// Over MQTT 3.1.1 both sides (a broker of 3.1.1, such as RabbitMQ's plugin before 3.13, as
        /// mosquitto logs it: `(p2`), with a collector for the Pi's site only (`--site`, the way to
        /// share the load without MQTT 5's shared subscriptions): the run arrives byte for byte; a
        /// collector for another site gets nothing.
        @Test(.timeLimit(.minutes(3)), .ownThread)
        func aRunArrivesOverMQTT311ToItsSitesCollector() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory(), elsewhere = try Fixtures.temporaryDirectory()
            let collector = try await Self.collector(broker, root, arguments: ["--protocol", "3.1.1", "--site", "lab"])
            let other = try await Self.collector(broker, elsewhere, arguments: ["--protocol", "3.1.1", "--site", "clinic-b"])
            #expect(collector.printedSoFar().contains("over MQTT 3.1.1") && collector.printedSoFar().contains("recorderd/v1/lab/+/runs/+/manifest"),
                    "\(collector.printedSoFar())")
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.protocolChoice = .v311 }, speed: 10)
            let (run, directory) = try await Self.recordRun(pi, bytes: 600_000)
            let copy = try await Self.collected(root, runDirectory: directory, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            let connections = broker.log.split(separator: "\n").filter { $0.contains("New client connected") }
            #expect(connections.count >= 3 && connections.allSatisfy { $0.contains("(p2,") }, "\(connections)")
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            _ = try await other.stop()
            #expect(((try? FileManager.default.subpathsOfDirectory(atPath: elsewhere)) ?? []).filter { !$0.hasPrefix(".") }.isEmpty,
                    "the other site's collector took nothing")
            try await broker.stop()
        }

        /// deleteAfterUpload: the run leaves the Pi once the collector has acknowledged it (its copy
        /// byte for byte what the Pi had); `recorderctl status` shows the queue.
        @Test(.timeLimit(.minutes(3)), .ownThread)
        func anAcknowledgedRunIsDeletedFromThePiWhenAskedTo() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            // Its clock asked of a chronyd that is not there (a port nobody serves): unknown, whatever this machine runs.
            var clock = ClockConfiguration()
            clock.source = .chrony
            clock.chronyPort = LoopbackTCP.freePort(datagram: true)
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.deleteAfterUpload = true }, speed: 10, clock: clock)
            let (run, directory) = try await Self.recordRun(pi, bytes: 300_000)
            let original = try await Self.sums(directory)
            // No collector yet: the run waits in the outbox, and recorderctl status says so.
            #expect(try await Self.outbox(pi, run, is: "pending", timeout: 30))
            let waiting = try await FleetLinkTests.recorderctl(["status", "--socket", pi.socket])
            #expect(waiting.contains("uploads: 1 pending, 0 acknowledged, 0 refused") && waiting.contains("pending  walk \(run)"), "\(waiting)")
            // The fleet view shows it too (the retained status's count).
            _ = try await pi.retainedStatus { $0.uploadsPending == 1 }
            let fleet = try await FleetLinkTests.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)"])
            let row = fleet.split(separator: "\n").first { $0.hasPrefix("lab ") }?.split(separator: " ")
            #expect(fleet.contains("RUNS  UPLOADS  CLOCK     DEVICES") && row?.count == 8 && row?[5] == "1", "\(fleet)")
            // No time service answered for that Pi: flagged.
            #expect(row?[6] == "unknown" && fleet.contains("warning: clock state unknown on lab/pi-1: chrony: "), "\(fleet)")
            let collector = try await Self.collector(broker, root)
            let copy = try await Self.collected(root, runDirectory: directory, while: [collector, pi.daemon])
            #expect(try await Self.sums(copy) == original)
            try await Self.acknowledged(pi, run)
            try await pi.logged("uploaded run deleted from the Pi")
            #expect(!FileManager.default.fileExists(atPath: directory))
            let done = try await FleetLinkTests.recorderctl(["status", "--socket", pi.socket])
            #expect(done.contains("uploads: 0 pending, 1 acknowledged, 0 refused"), "\(done)")
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }

        /// The broker stopped in the middle of an upload until the Pi has seen its link drop, then
        /// started again (the outage was a fixed 30 s: the event is what matters, and the link's
        /// reconnection back-off is tested by the link's own tests).
        @Test(.timeLimit(.minutes(4)), .ownThread)
        func anUploadOutlastsTheBrokerStoppingMidway() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collector = try await Self.collector(broker, root)
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.uploadBandwidth = 100_000 }, speed: 10)
            let (run, directory) = try await Self.recordRun(pi, bytes: 800_000)
            // Midway: part of the motion file is on the collector's disk.
            try await Self.collectorHolds(root, run, atLeast: 200_000)
            try await broker.stop()
            try await pi.logged("fleet link down; reconnecting")
            let restarted = try await MosquittoBroker.start(port: broker.port)
            let copy = try await Self.collected(root, runDirectory: directory, timeout: 120, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await restarted.stop()
        }

        /// recorderd killed with SIGKILL at 20 moments of one upload, started again each time.
        @Test(.timeLimit(.minutes(6)), .ownThread)
        func anUploadSurvivesTwentyKillsOfRecorderd() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collector = try await Self.collector(broker, root)
            // 6 MB: more than 20 chunks of 256 KiB (a life sends a chunk or two), so that all 20
            // kills fall in the middle of the upload.
            var pi = try await FleetHarness.start(broker: broker, mqtt: { $0.uploadBandwidth = 100_000 }, speed: 40)
            let (run, directory) = try await Self.recordRun(pi, bytes: 6_000_000)
            var generator = SplitMix(seed: 1011)
            var moments: [Int] = []
            // What the collector held of the motion file at each kill: it only grows (each start
            // resumes where the last stopped; nothing starts over from zero).
            let partial = "\(root)/.incoming/lab/pi-1/\(run.uuidString)/files/motion.jsonl"
            var held: [Int] = []
            for _ in 0..<20 {
                let moment = Int.random(in: 0...1200, using: &generator)
                moments.append(moment)
                try await Task.sleep(for: .milliseconds(moment))  // a random moment of the upload, not a synchronisation
                try await pi.daemon.stop(signal: SIGKILL)
                if Self.outboxState(pi, run) == "acknowledged" { break }
                held.append((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0)
                pi = try await FleetHarness.start(broker: broker, mqtt: { $0.uploadBandwidth = 100_000 }, speed: 40, directory: pi.directory)
            }
            if !pi.daemon.isRunning {
                pi = try await FleetHarness.start(broker: broker, speed: 10, directory: pi.directory)
            }
            let copy = try await Self.collected(root, runDirectory: directory, timeout: 180, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            print("FLEET upload: \(moments.count) kills at \(moments) ms; the collector held \(held) bytes of motion.jsonl at each")
            #expect(held == held.sorted(), "the collector's copy shrank between kills: \(held)")
            #expect(held.count == 20 && Set(held).count >= 10, "the kills did not fall in the middle of the upload: \(held)")
            _ = try await pi.daemon.stop()
            _ = try await collector.stop()
            try await broker.stop()
        }

        /// The collector killed in the middle of a run, started again: the run completes.
        @Test(.timeLimit(.minutes(4)), .ownThread)
        func anUploadSurvivesTheCollectorKilledMidway() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            var collector = try await Self.collector(broker, root)
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.uploadBandwidth = 100_000 }, speed: 10)
            let (run, directory) = try await Self.recordRun(pi, bytes: 600_000)
            try await Self.collectorHolds(root, run, atLeast: 150_000)
            try await collector.stop(signal: SIGKILL)
            collector = try await Self.collector(broker, root)
            let copy = try await Self.collected(root, runDirectory: directory, timeout: 120, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }

        /// A forged chunk (a test publisher) overwrites bytes the collector had: the file fails its
        /// SHA-256, is asked for again, and the copy heals.
        @Test(.timeLimit(.minutes(3)), .ownThread)
        func aCorruptedChunkIsRefusedAndHealed() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collector = try await Self.collector(broker, root)
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.uploadBandwidth = 100_000 }, speed: 10)
            let (run, directory) = try await Self.recordRun(pi, bytes: 500_000)
            try await Self.collectorHolds(root, run, atLeast: 100_000)
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(root)/.incoming/lab/pi-1/\(run.uuidString)/state.json"))) as? [String: Any]
            let files = try #require((manifest?["manifest"] as? [String: Any])?["files"] as? [[String: Any]])
            let motion = try #require(files.first { $0["path"] as? String == "motion.jsonl" })
            let header = #"{"file":"motion.jsonl","offset":0,"size":\#(motion["size"]!),"sha256":"\#(motion["sha256"]!)"}"#
            let forged = try Fixtures.temporaryDirectory() + "/forged"
            try Data((header + "\n" + String(repeating: "X", count: 1000)).utf8).write(to: URL(fileURLWithPath: forged))
            try await broker.publish("recorderd/v1/lab/pi-1/runs/\(run.uuidString)/chunk", file: forged)
            let copy = try await Self.collected(root, runDirectory: directory, timeout: 120, while: [collector, pi.daemon])
            try await Self.expectIdentical(directory, copy)
            try await Self.acknowledged(pi, run)
            #expect(collector.printedSoFar().contains("motion.jsonl failed its SHA-256"), "\(collector.printedSoFar())")
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }
    }
}
