import Foundation
import RecorderTestSupport
import Testing

/// The IIO udev rules parse cleanly in the real udev. `udevadm test` writes udev's state, so it runs
/// in a private mount namespace with tmpfs over the rules directory and /run/udev, and a
/// `recorderd` group added to a private copy of /etc/group.
struct IIOUdevRulesTests {
    static let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../udev/90-recorderd-iio.rules").standardized.path

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread) func rulesLoadWithoutErrors() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let groups = try String(contentsOfFile: "/etc/group", encoding: .utf8) + "recorderd:x:64999:\niio:x:64998:\n"
        try groups.write(toFile: dir + "/group", atomically: true, encoding: .utf8)
        let script = """
        set -e
        mount -t tmpfs tmpfs /etc/udev/rules.d
        cp '\(Self.rules)' /etc/udev/rules.d/
        mkdir -p /run/udev && mount -t tmpfs tmpfs /run/udev
        mount --bind '\(dir)/group' /etc/group
        udevadm test /sys/class/net/lo 2>&1
        """
        let p = try await ChildProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/bash", "-c", script])
        let status = try await p.wait(timeout: 30)
        let output = p.printed
        #expect(status == 0, "\(output.suffix(2000))")
        let mentions = output.split(separator: "\n").filter { $0.contains("90-recorderd-iio.rules") }
        #expect(mentions.contains { $0.hasPrefix("Reading rules file") }, "udev did not read the rules")
        #expect(mentions.allSatisfy { $0.hasPrefix("Reading rules file") }, "\(mentions.joined(separator: "\n"))")
    }
}
