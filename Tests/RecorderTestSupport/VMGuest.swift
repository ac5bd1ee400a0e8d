import Foundation

/// A fresh Debian guest under `qemu-system-x86_64 -accel tcg` for one test: Debian's own kernel
/// (`linux-image-amd64`, unpacked by `scripts/vm/prepare.sh` into `.build-vm`, never installed on
/// the host) with its modules, a minimal Debian 12 root (debootstrapped once into an ext4 image;
/// qemu discards each guest's writes to it), and systemd as PID 1 (`scripts/vm/init`). With
/// `RECORDERD_VM_ARCH=arm64` the guests are arm64 ones instead: `qemu-system-aarch64 -M virt
/// -cpu cortex-a72`, Debian 13's arm64 kernel (with i2c-stub and hci_vhci built for it) and an
/// arm64 Debian 13 root (`scripts/vm/prepare.sh --arch arm64`, `.build-vm-arm64`).
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
    /// The newest Debian package of `architecture` (`amd64`, `arm64`) that `scripts/build-deb.sh`
    /// left in `.build-deb` (CI builds both before the tests that install them).
    public static func builtPackage(architecture: String) -> String? {
        let folder = packageRoot + "/.build-deb"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("recorderd_") && $0.hasSuffix("_\(architecture).deb") }.sorted().last.map { folder + "/" + $0 }
    }

    /// The guests' architecture, `amd64` or `arm64` (`RECORDERD_VM_ARCH`; amd64 unless set): their
    /// rig, their emulator and the package they install.
    public static let architecture = ProcessInfo.processInfo.environment["RECORDERD_VM_ARCH"] ?? "amd64"
    public static let rig = ProcessInfo.processInfo.environment["RECORDERD_VM_RIG"]
        ?? packageRoot + (architecture == "amd64" ? "/.build-vm" : "/.build-vm-\(architecture)")
    public static let qemu = architecture == "amd64" ? "/usr/bin/qemu-system-x86_64" : "/usr/bin/qemu-system-aarch64"
    /// The Debian package of the guests' architecture that `scripts/build-deb.sh` built.
    public static var guestPackage: String? { builtPackage(architecture: architecture) }
    /// The option the rig's and the package's scripts take for the guests' architecture.
    public static var architectureOption: String { architecture == "amd64" ? "" : " --arch \(architecture)" }
    /// What a test says when there is none.
    public static var noPackage: String { "no .build-deb/recorderd_*_\(architecture).deb: run scripts/build-deb.sh\(architectureOption)" }

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
            print("SKIP \(name): needs \(qemu) and scripts/vm/prepare.sh\(architectureOption) (scripts/setup.sh); runs under CI")
            return false
        }
        return true
    }

    /// Boots a guest that runs `script` (a shell script, run as root by `/bin/sh`) with `files`
    /// (name → host path, copied) beside it in `/vmtest`; returns once the guest powered off,
    /// or kills it after `timeout` s (a test issue).
    public static func run(_ script: String, files: [String: String] = [:], memory: Int = 1024, timeout: Double = 420) async throws -> Outcome {
        let share = try prepare(Setup(script: script, files: files, memory: memory))
        let guest = try await boot(share, memory: memory)
        return outcome(of: guest, in: share, exit: try await guest.wait(timeout: timeout))
    }

    /// One guest of a joined pair (`runJoined`): its script, the files beside it, its memory.
    public struct Setup: Sendable {
        public var script: String
        public var files: [String: String]
        public var memory: Int

        public init(script: String, files: [String: String] = [:], memory: Int = 1024) {
            self.script = script
            self.files = files
            self.memory = memory
        }
    }

    /// Boots two guests whose serial ports from ttyS1 on are joined, `lines` of them: byte
    /// streams between the guests, as a cable between two boards would be (the first guest's
    /// qemu serves each on a Unix socket, the second's connects, retrying each second until it
    /// is there; a byte the second guest sends reaches the first's port once joined). Returns
    /// once both powered off; the first is killed by its PID after `timeout` s (a test issue),
    /// the second once the first is gone and it has not powered off within 120 s (a script that
    /// waits on the first, whose end it cannot see on a serial port).
    public static func runJoined(_ first: Setup, _ second: Setup, lines: Int, timeout: Double) async throws -> (Outcome, Outcome) {
        let sockets = try Fixtures.temporaryDirectory()
        func arguments(serving: Bool) -> [String] {
            (1...lines).flatMap { line in
                let path = "\(sockets)/line\(line).sock"
                return ["-chardev", "socket,id=line\(line),path=\(path)" + (serving ? ",server=on,wait=off" : ",reconnect=1"),
                        "-serial", "chardev:line\(line)"]
            }
        }
        let firstShare = try prepare(first), secondShare = try prepare(second)
        let firstGuest = try await boot(firstShare, memory: first.memory, qemuArguments: arguments(serving: true))
        let secondGuest = try await boot(secondShare, memory: second.memory, qemuArguments: arguments(serving: false))
        let firstExit = try await firstGuest.wait(timeout: timeout)
        var secondExit = await secondGuest.exitStatus(within: 120)
        if secondExit == nil {
            print("the second guest had not powered off 120 s after the first: stopped")
            secondExit = try await secondGuest.stop(signal: SIGKILL)
        }
        return (outcome(of: firstGuest, in: firstShare, exit: firstExit), outcome(of: secondGuest, in: secondShare, exit: secondExit ?? -1))
    }

    /// A shared folder with the setup's script and files.
    static func prepare(_ setup: Setup) throws -> String {
        let share = try Fixtures.temporaryDirectory()
        for (name, path) in setup.files {
            try FileManager.default.copyItem(atPath: path, toPath: share + "/" + name)
        }
        try ("#!/bin/sh\n" + setup.script).write(toFile: share + "/script", atomically: true, encoding: .utf8)
        chmod(share + "/script", 0o755)
        return share
    }

    /// The guest booting: scripts/vm/run.sh execs qemu, so the PID a limit stops is qemu's.
    static func boot(_ share: String, memory: Int, qemuArguments: [String] = []) async throws -> ChildProcess {
        let run = packageRoot + "/scripts/vm/run.sh"
        return try await ChildProcess("/bin/bash", [run, share, String(memory)] + qemuArguments, environment: ["RECORDERD_VM_RIG": rig])
    }

    static func outcome(of guest: ChildProcess, in share: String, exit: Int32) -> Outcome {
        let read = { (name: String) in (try? String(contentsOfFile: share + "/" + name, encoding: .utf8)) ?? "" }
        if exit != 0 { print("qemu exited with \(exit): \(guest.printed)") }
        return Outcome(status: Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)), output: read("output"),
                       console: read("console.log"), share: share)
    }
}
