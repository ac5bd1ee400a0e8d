import Foundation
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import ReplaySensors
import Testing

struct DeviceRegistryReloadTests {
    @Test func reloadKeepsUnchangedDevicesAndReportsTheRest() throws {
        var configuration = DaemonConfiguration()
        let a = Fixtures.replayDevice(name: "a")
        let b = Fixtures.replayDevice(name: "b")
        configuration.devices = [a, b]
        let registry = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        let originalA = try registry.device(named: "a")
        let originalB = try registry.device(named: "b")

        let faster = Fixtures.replayDevice(name: "b", speed: 2)
        let c = Fixtures.replayDevice(name: "c")
        let bad = DeviceConfiguration(name: "d", kind: "nope", json: .object(["name": .string("d"), "kind": .string("nope")]))
        let summary = registry.reload([a, faster, c, bad])
        #expect(summary.unchanged == ["a"])
        #expect(summary.changed == ["b"])
        #expect(summary.added == ["c", "d"])
        #expect(summary.removed == [])
        #expect(try registry.device(named: "a") === originalA, "an unchanged device keeps its Device")
        #expect(try registry.device(named: "b") !== originalB, "a changed device is made anew")
        #expect(registry.invalid.map(\.name) == ["d"])

        let removal = registry.reload([c])
        #expect(removal.removed == ["a", "b", "d"])
        #expect(registry.devices.map(\.name) == ["c"])
        #expect(registry.invalid.isEmpty)
    }
}
