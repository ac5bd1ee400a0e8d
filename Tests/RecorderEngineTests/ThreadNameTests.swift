import Foundation
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

@Suite("Thread names as Linux keeps them")
struct ThreadNameTests {
    @Test func namesAreCutToFifteenBytesAtACharacterBoundary() {
        #expect(ThreadName.sampling("iio", device: "imu0") == "iio.imu0")
        #expect(ThreadName.sampling("replay", device: "left-ankle-imu-0") == "replay.left-ank")
        // "ü" is two bytes: it does not fit in the 15th byte alone.
        #expect(ThreadName.fitted("replay.abcdefgü") == "replay.abcdefg")
        #expect(ThreadName.fitted("replay.abcdefü") == "replay.abcdefü")
        for name in ["gpsd.Gerät-über-Dach", "alsa.🎙️🎙️🎙️🎙️", String(repeating: "é", count: 20)] {
            let fitted = ThreadName.fitted(name)
            #expect(fitted.utf8.count <= ThreadName.maximumLength)
            #expect(name.hasPrefix(fitted))
            #expect(!fitted.isEmpty)
        }
    }

    /// The names of this process's threads, from `/proc/self/task/*/comm` (a thread that ends
    /// between the listing and the read is left out: the other suites' threads come and go).
    static func threadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
            try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        }
    }

    /// Before, the sampling thread was named through Foundation's `Thread.name`, which does not
    /// reach Linux (and `recorderd.replay.imu0` was longer than Linux keeps anyway): it kept the
    /// name of the dispatch worker that started it. (Device names no other test uses: the suites
    /// share this process's threads.)
    @Test(.timeLimit(.minutes(3)), .ownThread)  // the replay files load slowly while the whole suite starts (27 s seen)
    func aSamplingThreadCarriesItsDevicesName() async throws {
        var configuration = DaemonConfiguration()
        configuration.devices = [Fixtures.replayDevice(name: "tn0"), Fixtures.replayDevice(name: "thread-name-imu-0")]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 2)
        #expect(try !Self.threadNames().contains("replay.tn0"))
        let first = try devices.device(named: "tn0"), second = try devices.device(named: "thread-name-imu-0")
        let leases = [try first.acquire(), try second.acquire()]
        defer { for lease in leases { lease.release() } }
        try await Fixtures.waitForFrames(first, 5)
        try await Fixtures.waitForFrames(second, 5)
        let names = try Self.threadNames()
        #expect(names.contains("replay.tn0"))
        #expect(names.contains("replay.thread-n"))
    }
}
