import Foundation
import RecorderTestSupport
import Testing

/// The Raspberry Pi's IMU overlays (config/overlays, docs/raspberry-pi.md) compile with the
/// device-tree compiler as overlays (`dtc -@`), attach to the Pi's I2C bus 1, name the kernel
/// drivers' compatible strings, and declare an interrupt exactly when they are not the polled ones.
@Suite("Raspberry Pi overlays")
struct PiOverlayTests {
    static let folder = ArchitectureTests.root + "/config/overlays"
    static let dtc = "/usr/bin/dtc"

    static var dtcPresent: Bool {
        if FileManager.default.isExecutableFile(atPath: dtc) { return true }
        if Privileges.isCI { return true }
        print("SKIP PiOverlayTests: needs dtc (device-tree-compiler: scripts/setup.sh)")
        return false
    }

    @Test(.enabled(if: dtcPresent), .ownThread)
    func overlaysCompileAndDescribeTheirBoards() async throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".dts") }.sorted()
        #expect(sources == ["recorderd-bmi160-polled.dts", "recorderd-bmi160.dts", "recorderd-lsm6ds3-polled.dts", "recorderd-lsm6ds3.dts"])
        let output = try Fixtures.temporaryDirectory()
        for source in sources {
            let blob = output + "/" + source.replacingOccurrences(of: ".dts", with: ".dtbo")
            let (status, printed) = try await ChildProcess.run(Self.dtc, ["-@", "-q", "-I", "dts", "-O", "dtb", "-o", blob, Self.folder + "/" + source], timeout: 60)
            #expect(status == 0, "\(source): \(printed)")
            // Back to source: what the firmware will read.
            let (back, text) = try await ChildProcess.run(Self.dtc, ["-q", "-I", "dtb", "-O", "dts", blob], timeout: 60)
            #expect(back == 0, "\(source): \(text)")
            #expect(text.contains("i2c1 = \"/fragment@0:target:0\""), "\(source): not on i2c1\n\(text)")
            let compatible = source.contains("bmi160") ? "compatible = \"bosch,bmi160\"" : "compatible = \"st,lsm6ds3\""
            #expect(text.contains(compatible), "\(source)\n\(text)")
            #expect(text.contains("interrupts = <") == !source.contains("polled"), "\(source)\n\(text)")
            #expect(text.contains("addr = <"), "\(source): no addr parameter\n\(text)")
        }
    }
}
