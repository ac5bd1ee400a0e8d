import Foundation
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

@Suite("A full disk")
struct FullDiskTests {
    @Test(.enabled(if: Privileges.rootTestsEnabled("FullDiskTests")), .timeLimit(.minutes(1)), .ownThread)
    func stopsTheRecordingWithAnErrorAndKeepsEveryWholeLine() async throws {
        let data = try Fixtures.temporaryDirectory()
        try #require(Privileges.mountTmpfs(at: data, size: "1m"))
        defer { Privileges.unmount(data) }
        let (devices, runs) = replayRegistries(data: data, speed: 50)
        let start = try await runs.start(taskIdentifier: "t", asyncActions: [.motion("m")])
        // 1 MiB holds ~3,500 samples of two records: wait for 10,000 frames (2 s at 5 kHz).
        let device = try devices.device(named: "imu0")
        // Holds a lease: the recording lets go of the device when it stops on the full disk.
        try await Fixtures.waitForFrames(device, 10_000)
        let result = try await runs.finish(start.taskRunUUID)
        let error = try #require(result.asyncResults.compactMap(\.error).first)
        #expect(error.identifier == "m_error")
        #expect(error.errorDescription.contains("No space left on device"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: start.runDirectory + "/m.jsonl"))
        #expect(bytes.count > 100_000)
        #expect(bytes.last == UInt8(ascii: "\n"))
        let records = try Fixtures.records(start.runDirectory + "/m.jsonl")
        let file = try #require(result.asyncResults.compactMap(\.file).first)
        #expect(file.sampleCount == records.filter(\.isSample).count)
        #expect(file.sha256 == SHA256.hex(bytes))
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        // The manifest was written despite the full disk (the run's reserve was freed for it).
        let stored = try TaskResultStore.read(directory: start.runDirectory)
        #expect(stored.status == .finished)
        #expect(stored.asyncResults.compactMap(\.error).first?.identifier == "m_error")
    }
}
