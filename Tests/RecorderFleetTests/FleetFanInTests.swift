import Foundation
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing
@testable import RecorderFleet

extension FleetTests {
    /// 50 simulated Pis (each recorderd's fleet link, `FleetAgent`, with a run of its own queued in
    /// its outbox; all 50 in one `FanInPis` process) upload at once through one real mosquitto to
    /// two `recorderctl collect` sharing the load through an MQTT 5 shared subscription: every run
    /// arrives exactly once, byte for byte.
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

        @Test(.timeLimit(.minutes(4)), .ownThread)
        func fiftyPisThroughOneBrokerToTwoSharedCollectorsArriveExactlyOnce() async throws {
            let broker = try await MosquittoBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collectors = [try await RunUploadTests.collector(broker, root, share: "collectors"),
                              try await RunUploadTests.collector(broker, root, share: "collectors")]
            let base = try Fixtures.temporaryDirectory()
            var runs: [(device: String, data: String, entry: RunOutbox.Entry)] = []
            for i in 0..<Self.devices {
                let data = "\(base)/pi-\(i)/data"
                let entry = try Self.makeRun(in: data, seed: i, bytes: 100_000 + 7_919 * i)
                // Queued in the Pi's outbox, as recorderd queues an ended run.
                try RunOutbox(dataDirectory: data).save(entry)
                runs.append(("pi-\(i)", data, entry))
            }
            let started = ContinuousClock.now
            // The 50 Pis' fleet links (recorderd's own FleetAgent each, no recorderd behind them) in a
            // process of their own: in this one, other suites' tests hold a thousand files at times,
            // and libmosquitto cannot wait on a socket numbered 1024 or more (select()). (`swift build
            // --build-tests` builds it with every target; a test target naming it breaks the
            // package's `--product` builds, which resolve executables as products.)
            let pis = try await ChildProcess(ChildProcess.executable("FanInPis"),
                                             ["mqtt://127.0.0.1:\(broker.port)", "5", "1", "\(Self.devices)", base])
            for r in runs {
                #expect(try await RunUploadTests.outbox(r.data, r.entry.taskRunUUID, is: "acknowledged", timeout: 120), "\(r.device): \(pis.printedSoFar())")
            }
            let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
            #expect(try await pis.stop() == 0)
            for r in runs {
                #expect(RunOutbox(dataDirectory: r.data).entry(r.entry.taskRunUUID)?.state == .acknowledged, "\(r.device)")
                let copy = "\(root)/site-0/\(r.device)/walk/\((r.entry.runDirectory as NSString).lastPathComponent)"
                #expect(try await RunUploadTests.sums(copy) == RunUploadTests.sums(r.entry.runDirectory), "\(r.device)")
                #expect(FileManager.default.fileExists(atPath: copy + "/extra/empty.txt"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/site-0/\(r.device)/walk").count == 1)
            }
            // Each run reported complete once, by one of the two; both took a share.
            let reports = collectors.map { c in c.printedSoFar().split(separator: "\n").filter { $0.hasPrefix("run site-0/") } }
            #expect(reports.map(\.count).reduce(0, +) == Self.devices, "\(reports.map(\.count))")
            #expect(Set(reports.joined().map { $0.split(separator: ":")[0] }).count == Self.devices)
            #expect(reports.allSatisfy { !$0.isEmpty }, "one collector did all the work: \(reports.map(\.count))")
            print("FLEET fan-in: \(Self.devices) Pis, \(reports.map(\.count)) runs completed by each collector, \(seconds) s")
            for c in collectors { _ = try await c.stop() }
            try await broker.stop()
        }
    }
}
