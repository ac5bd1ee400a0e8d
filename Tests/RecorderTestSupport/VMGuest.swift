import Foundation

/// A fresh Debian guest under `qemu-system-x86_64 -accel tcg` for one test: Debian's own kernel
/// (`linux-image-amd64`, unpacked by `scripts/vm/prepare.sh` into `.build-vm`, never installed on
/// the host) with its modules, a minimal Debian 12 root (debootstrapped once into an ext4 image;
/// qemu discards each guest's writes to it), and systemd as PID 1 (`scripts/vm/init`).
/// The guest runs `script` as root from a folder shared with the host (`/vmtest` inside, with
/// the test's files beside it), writes what it printed and its exit status there, and powers
/// off. Every guest has a wall-clock limit and is killed by its PID past it.
public struct VMGuest: Sendable {
    /// What a guest left: its script's exit status and output, the console (kernel and systemd).
    public struct Outcome: Sendable {
        public var status: Int32?
        public var output: String
        public var console: String
        public var share: String
    }

    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path
    public static let rig = ProcessInfo.processInfo.environment["RECORDERD_VM_RIG"] ?? packageRoot + "/.build-vm"
    public static let qemu = "/usr/bin/qemu-system-x86_64"

    /// True when guest tests run here. They run alone, asked for with `RECORDERD_GUEST_TESTS=1`
    /// (`.ci/run`'s guest phase): a TCG guest keeps both cores of this machine busy, and beside the
    /// parallel suite it starved the real-time audio tests. Then always under CI (where they fail
    /// if the rig is missing); elsewhere with root, qemu and the prepared rig. Skipped otherwise,
    /// with the reason printed.
    public static func testsEnabled(_ name: String) -> Bool {
        guard ProcessInfo.processInfo.environment["RECORDERD_GUEST_TESTS"] == "1" else {
            print("SKIP \(name): guest tests run alone: RECORDERD_GUEST_TESTS=1 swift test --filter DeviceTests (.ci/run's guest phase)")
            return false
        }
        if Privileges.isCI { return true }
        guard Privileges.isRoot else {
            print("SKIP \(name): needs root (the rig's debootstrap and the 9p shares); runs under CI")
            return false
        }
        guard FileManager.default.isExecutableFile(atPath: qemu), FileManager.default.fileExists(atPath: rig + "/initramfs.cpio.gz"),
              FileManager.default.fileExists(atPath: rig + "/root.ext4") else {
            print("SKIP \(name): needs qemu-system-x86 and scripts/vm/prepare.sh (scripts/setup.sh does both); runs under CI")
            return false
        }
        return true
    }

    /// Boots a guest that runs `script` (a shell script, run as root by `/bin/sh`) with `files`
    /// (name → host path, copied) beside it in `/vmtest`; returns once the guest powered off,
    /// or kills it after `timeout` s (a test issue).
    public static func run(_ script: String, files: [String: String] = [:], memory: Int = 1024, timeout: Double = 420) async throws -> Outcome {
        let share = try Fixtures.temporaryDirectory()
        for (name, path) in files {
            try FileManager.default.copyItem(atPath: path, toPath: share + "/" + name)
        }
        try ("#!/bin/sh\n" + script).write(toFile: share + "/script", atomically: true, encoding: .utf8)
        chmod(share + "/script", 0o755)
        // scripts/vm/run.sh execs qemu: the PID the limit stops is qemu's.
        let run = packageRoot + "/scripts/vm/run.sh"
        let guest = try await ChildProcess("/bin/bash", [run, share, String(memory)], environment: ["RECORDERD_VM_RIG": rig])
        let exit = try await guest.wait(timeout: timeout)
        let read = { (name: String) in (try? String(contentsOfFile: share + "/" + name, encoding: .utf8)) ?? "" }
        let outcome = Outcome(status: Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)), output: read("output"),
                              console: read("console.log"), share: share)
        if exit != 0 { print("qemu exited with \(exit): \(guest.printed)") }
        return outcome
    }
}
