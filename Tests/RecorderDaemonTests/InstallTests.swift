import Foundation
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing

/// scripts/install.sh into a DESTDIR: the tree, an upgrade that keeps the configuration, and an
/// uninstall that keeps the configuration and the recorded data.
@Suite(.timeLimit(.minutes(20))) struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    func install(_ arguments: [String]) async throws -> String {
        let p = try await ChildProcess("/bin/bash", [Self.repository + "/scripts/install.sh"] + arguments)
        // The first install on a fresh clone compiles swift-argument-parser's generate-manual
        // (release): ~50 s on an idle 2-core machine, minutes on a loaded one.
        let status = try await p.wait(timeout: 600)
        let printed = p.printed
        #expect(status == 0, "install.sh \(arguments.joined(separator: " ")): \(printed)")
        return printed
    }

    func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    @Test(.ownThread) func installUpgradeAndUninstallInADestdir() async throws {
        let destdir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let binaries = URL(fileURLWithPath: ChildProcess.executable("recorderd")).deletingLastPathComponent().path
        let arguments = ["--bin-dir", binaries, "--destdir", destdir, "--prefix", "/opt/recorderd"]
        _ = try await install(arguments)

        let expected: [(String, Int)] = [
            ("/opt/recorderd/bin/recorderd", 0o755), ("/opt/recorderd/bin/recorderd-services", 0o755), ("/opt/recorderd/bin/recorderctl", 0o755),
            ("/opt/recorderd/lib/systemd/system/recorderd.service", 0o644), ("/opt/recorderd/lib/systemd/system/recorderd.socket", 0o644),
            ("/opt/recorderd/lib/sysusers.d/recorderd.conf", 0o644), ("/opt/recorderd/lib/tmpfiles.d/recorderd.conf", 0o644),
            ("/etc/udev/rules.d/90-recorderd-iio.rules", 0o644), ("/etc/recorderd/recorderd.json", 0o644),
            ("/etc/recorderd/recorderd.json.example", 0o644), ("/opt/recorderd/share/doc/recorderd/README.md", 0o644),
            ("/opt/recorderd/share/recorderd/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv", 0o644),
            ("/opt/recorderd/share/recorderd/Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv", 0o644),
            ("/opt/recorderd/share/recorderd/Tests/Fixtures/imu/mobgap/LICENSE", 0o644),
            ("/opt/recorderd/share/man/man1/recorderd-services.1", 0o644),
            ("/opt/recorderd/share/doc/recorderd/docs/configuration.md", 0o644), ("/opt/recorderd/share/doc/recorderd/docs/PROTOCOL.md", 0o644),
            ("/opt/recorderd/share/doc/recorderd/docs/raspberry-pi.md", 0o644),
            ("/opt/recorderd/share/recorderd/overlays/recorderd-bmi160.dts", 0o644), ("/opt/recorderd/share/recorderd/overlays/recorderd-lsm6ds3-polled.dts", 0o644),
        ] + ["gait-balance", "voice", "six-minute-walk", "timed-walk-10m", "timed-walk-25ft", "timed-up-and-go"].map {
            ("/opt/recorderd/share/recorderd/config/tasks/\($0).json", 0o644)
        } + ["recorderd", "recorderctl"].flatMap { b in
            [("/opt/recorderd/share/bash-completion/completions/\(b)", 0o644), ("/opt/recorderd/share/zsh/site-functions/_\(b)", 0o644),
             ("/opt/recorderd/share/fish/vendor_completions.d/\(b).fish", 0o644), ("/opt/recorderd/share/man/man1/\(b).1", 0o644)]
        }
        for (path, wanted) in expected {
            #expect(mode(destdir + path) == wanted, "\(path): mode \(mode(destdir + path).map { String($0, radix: 8) } ?? "missing")")
        }
        let service = try String(contentsOfFile: destdir + "/opt/recorderd/lib/systemd/system/recorderd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/opt/recorderd/bin/recorderd --config /etc/recorderd/recorderd.json"))
        #expect(service.contains("ExecReload=/opt/recorderd/bin/recorderd --check-config /etc/recorderd/recorderd.json\nExecReload=/bin/kill -HUP $MAINPID"))
        // Completions for each shell, produced by the binaries; man pages that man(1) renders.
        let share = destdir + "/opt/recorderd/share"
        #expect(try String(contentsOfFile: share + "/bash-completion/completions/recorderctl", encoding: .utf8).contains("complete -o filenames -F _recorderctl recorderctl"))
        #expect(try String(contentsOfFile: share + "/zsh/site-functions/_recorderctl", encoding: .utf8).hasPrefix("#compdef recorderctl"))
        #expect(try String(contentsOfFile: share + "/fish/vendor_completions.d/recorderd.fish", encoding: .utf8).contains("complete -c 'recorderd'"))
        for (tool, mentions) in [("recorderd", "--check-config"), ("recorderctl", "tail")] {
            let man = try await ChildProcess("/usr/bin/man", ["-P", "cat", "-l", share + "/man/man1/\(tool).1"], environment: ["MANWIDTH": "100"])
            #expect(try await man.wait(timeout: 30) == 0)
            let page = man.printed
            #expect(page.contains(tool.uppercased()) && page.contains(mentions), "\(tool).1 renders as: \(page.prefix(500))")
        }
        // The example configuration is valid and points at the installed replay data.
        let example = try Data(contentsOf: URL(fileURLWithPath: destdir + "/etc/recorderd/recorderd.json.example"))
        let configuration = try DaemonConfiguration.decode(example)
        #expect(String(decoding: example, as: UTF8.self).contains("/opt/recorderd/share/recorderd/Tests/Fixtures"))
        #expect(configuration.devices.first?.kind == "replay")

        // The sysusers.d and tmpfiles.d entries, applied by the real tools to the DESTDIR tree.
        for (tool, arguments) in [("/usr/bin/systemd-sysusers", ["--root=" + destdir, destdir + "/opt/recorderd/lib/sysusers.d/recorderd.conf"]),
                                  ("/usr/bin/systemd-tmpfiles", ["--root=" + destdir, "--create", destdir + "/opt/recorderd/lib/tmpfiles.d/recorderd.conf"])] {
            let p = try await ChildProcess(tool, arguments)
            #expect(try await p.wait(timeout: 30) == 0, "\(tool): \(p.printed)")
        }
        let groups = try String(contentsOfFile: destdir + "/etc/group", encoding: .utf8)
        #expect(groups.contains("\nrecorderd:") || groups.hasPrefix("recorderd:"))
        #expect(groups.contains("\niio:") || groups.hasPrefix("iio:"), "the iio group of SupplementaryGroups= exists")
        #expect(try String(contentsOfFile: destdir + "/etc/passwd", encoding: .utf8).contains("recorderd:x:"))
        #expect(mode(destdir + "/run/recorderd") == 0o750 && mode(destdir + "/var/lib/recorderd") == 0o750)

        // Upgrade: an edited configuration is kept.
        let edited = #"{"devices": []}"#
        try edited.write(toFile: destdir + "/etc/recorderd/recorderd.json", atomically: true, encoding: .utf8)
        let output = try await install(arguments)
        #expect(output.contains("kept the existing /etc/recorderd/recorderd.json"))
        #expect(try String(contentsOfFile: destdir + "/etc/recorderd/recorderd.json", encoding: .utf8) == edited)

        // Uninstall: everything installed goes; the configuration and the data stay.
        let data = destdir + "/var/lib/recorderd/runs/walk/run1"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try "{}".write(toFile: data + "/taskResult.json", atomically: true, encoding: .utf8)
        _ = try await install(["--uninstall", "--destdir", destdir, "--prefix", "/opt/recorderd"])
        for (path, _) in expected where path != "/etc/recorderd/recorderd.json" {
            #expect(!FileManager.default.fileExists(atPath: destdir + path), "\(path) left behind")
        }
        #expect(FileManager.default.fileExists(atPath: destdir + "/etc/recorderd/recorderd.json"))
        #expect(FileManager.default.fileExists(atPath: data + "/taskResult.json"))
    }
}
