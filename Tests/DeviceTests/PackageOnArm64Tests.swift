import Foundation
import RecorderTestSupport
import Testing

/// The arm64 package (`scripts/build-deb.sh --arch arm64`, cross-built by Debian's Swift) in a
/// clean Debian 13 arm64 root (`scripts/arm64/root.sh`), its programs run as arm64 code under
/// qemu-user: `apt install ./recorderd_…_arm64.deb` resolves its dependencies from Debian's arm64
/// packages, `recorderctl demo` finishes its task with the gait summary the amd64 build prints,
/// and the exports of the demo's run directory are those of the amd64 build, byte for byte.
@Suite("The arm64 package in a Debian 13 arm64 root", .serialized)
struct PackageOnArm64Tests {
    static let arm64Folder = VMGuest.packageRoot + "/.build-arm64"
    static let rootTarball = arm64Folder + "/trixie-arm64.tar"

    /// The arm64 package build-deb.sh made.
    static var package: String? { VMGuest.builtPackage(architecture: "arm64") }

    static func enabled(_ name: String) -> Bool {
        guard ProcessInfo.processInfo.environment["RECORDERD_ARM64_TESTS"] == "1" else {
            print("SKIP \(name): arm64 tests run alone: RECORDERD_ARM64_TESTS=1 swift test --filter PackageOnArm64Tests (.ci/run's arm64 phase)")
            return false
        }
        if Privileges.isCI { return true }
        guard Privileges.isRoot else {
            print("SKIP \(name): needs root (chroot, mounts); runs under CI")
            return false
        }
        guard package != nil, FileManager.default.fileExists(atPath: rootTarball) else {
            print("SKIP \(name): needs scripts/build-deb.sh --arch arm64 and scripts/arm64/root.sh; runs under CI")
            return false
        }
        return true
    }

    /// What the script inside the root prints, `key=value` per line, and the rest.
    static func facts(_ output: String) -> [String: String] {
        var facts: [String: String] = [:]
        for line in output.split(whereSeparator: \.isNewline) where line.hasPrefix("fact ") {
            let pair = line.dropFirst(5)
            guard let eq = pair.firstIndex(of: "=") else { continue }
            facts[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        return facts
    }

    /// A demo's gait summary: the lines under the run directory naming a step's gait or balance.
    static func gaitSummary(_ demo: String) -> [String] {
        let lines = demo.split(whereSeparator: \.isNewline).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("run directory: ") }) else { return [] }
        return lines[start...].filter { $0.hasPrefix("    gait-balance/") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The export formats and their options (MORK needs its form's identifiers).
    static let exports: [(name: String, arguments: [String])] = [
        ("run.csv", ["--format", "csv"]), ("run.mcap", ["--format", "mcap"]), ("run.sage", ["--format", "sage"]),
        ("run.fhir", ["--format", "fhir", "--subject", "Patient/arm64"]),
        ("run.mork", ["--format", "mork", "--subject-name", "S-001", "--study-uuid", "5B0F1A86-6C69-4E5C-9B0C-2A4E8C1D0A01",
                      "--folder-oid", "SCREENING", "--form-oid", "GAIT", "--site-oid", "SITE-1"]),
    ]

    @Test(.enabled(if: enabled("PackageOnArm64Tests")), .timeLimit(.minutes(20)), .ownThread)
    func installsInACleanRootAndRunsTheDemoAsOnAmd64() async throws {
        let deb = try #require(Self.package, "no .build-deb/recorderd_*_arm64.deb: run scripts/build-deb.sh --arch arm64")
        let root = try Fixtures.temporaryDirectory() + "/root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["RECORDERD_KEEP_TEST_FILES"] == nil { try? FileManager.default.removeItem(atPath: root) } }
        let exportArguments = Self.exports.map { "recorderctl export \"$run\" -o /tmp/arm64-exports/\($0.name) \($0.arguments.joined(separator: " "))" }
        // In a mount namespace of its own (the mounts end with it); apt and the demo in the root.
        let script = """
            set -eu
            root=\(root)
            tar -xf \(Self.rootTarball) -C "$root"
            cp /etc/resolv.conf "$root/etc/resolv.conf"
            cp \(deb) "$root/tmp/recorderd.deb"
            mount -t proc proc "$root/proc"
            mount --bind /dev "$root/dev"
            in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
            echo "fact arch=$(in_root dpkg --print-architecture)"
            echo "fact machine=$(in_root uname -m)"
            in_root apt-get update -qq
            in_root apt-get install -y -qq /tmp/recorderd.deb > /tmp/arm64-apt.$$ 2>&1 || { cat /tmp/arm64-apt.$$; exit 1; }
            rm -f /tmp/arm64-apt.$$
            echo "fact installed=$(in_root dpkg-query -W -f='${Status} ${Architecture}' recorderd)"
            echo "fact binary=$(in_root sh -c 'od -An -tx1 -j18 -N2 /usr/bin/recorderd' | tr -d ' ')"
            in_root recorderctl demo
            run=$(ls -d "$root"/tmp/recorderd-demo-*/data/runs/gait-balance/*/ | head -1)
            echo "fact run=${run#$root}"
            in_root sh -c 'set -e; run=$1; mkdir -p /tmp/arm64-exports; \(exportArguments.joined(separator: "; "))' sh "${run#$root}" > /dev/null
            echo "fact exported=yes"
            """
        let inRoot = try await ChildProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script])
        let status = try await inRoot.wait(timeout: 1_100)
        let output = inRoot.printed
        let facts = Self.facts(output)
        #expect(status == 0, "\(output.suffix(4000))")
        #expect(facts["arch"] == "arm64" && facts["machine"] == "aarch64", "\(facts)")
        #expect(facts["installed"] == "install ok installed arm64", "\(facts)\n\(output.suffix(2000))")
        // e_machine 0xb7 (EM_AARCH64), little-endian: the installed program is arm64 code.
        #expect(facts["binary"] == "b700", "\(facts)")
        let arm64Gait = Self.gaitSummary(output)
        #expect(arm64Gait.count == 3, "\(output.suffix(3000))")

        // The same demo on this machine's build. The demo is paced by the wall clock (the replay
        // runs from the daemon's start, the steps from the client's timers), so two runs on one
        // machine already differ by a sample or two at each step's edges: the summaries agree in
        // their step counts and within that spread (docs/raspberry-pi.md, "The same output").
        let demo = try await ChildProcess(ChildProcess.executable("recorderctl"), ["demo"])
        #expect(try await demo.wait(timeout: 300) == 0, "\(demo.printed.suffix(3000))")
        let amd64Gait = Self.gaitSummary(demo.printed)
        #expect(amd64Gait.count == 3, "\(demo.printed.suffix(3000))")
        #expect(Self.agree(arm64Gait, amd64Gait), "arm64: \(arm64Gait)\namd64: \(amd64Gait)")

        // The arm64 exports of the arm64 run directory, and this machine's of the same directory:
        // with this machine's compression libraries (Debian 12's zstd 1.5.4 and zlib 1.2.13), the
        // same content; with Debian 13's (the arm64 package's: zstd 1.5.7, zlib 1.3.1, from the
        // cross toolchain's amd64 target root), the same bytes.
        let run = try #require(facts["run"], "\(output.suffix(2000))")
        #expect(facts["exported"] == "yes", "\(output.suffix(2000))")
        // What the arm64 build recorded: every line of every JSON-lines file a JSON object (the
        // exports of a garbled file are garbled alike on both machines; Swift 6.2's encoder path
        // once copied a repeated record prefix from the wrong memory).
        let recorded = (FileManager.default.enumerator(atPath: root + run)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jsonl") }
        #expect(recorded.count >= 2, "\(recorded)")
        for name in recorded {
            let lines = try Data(contentsOf: URL(fileURLWithPath: root + run + "/" + name)).split(separator: UInt8(ascii: "\n"))
            let bad = lines.filter { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] == nil }
            #expect(!lines.isEmpty && bad.isEmpty,
                    "\(name): \(bad.count) of \(lines.count) lines not JSON objects, the first: \(String(decoding: bad.first ?? Data(), as: UTF8.self).prefix(200))")
        }
        let arm64Files = try Self.files(under: root + "/tmp/arm64-exports")
        #expect(arm64Files.count >= 9, "\(arm64Files.keys.sorted())")
        let here = try await Self.export(root + run)
        let amd64Files = try Self.files(under: here)
        #expect(arm64Files.keys.sorted() == amd64Files.keys.sorted())
        for (name, bytes) in amd64Files.sorted(by: { $0.key < $1.key }) where arm64Files[name] != bytes && name != "run.sage" {
            #expect(name == "run.mcap", "\(name) differs between arm64 and amd64 (\(arm64Files[name]?.count ?? -1) and \(bytes.count) bytes)")
            #expect(try await Self.mcapDump(root + "/tmp/arm64-exports/run.mcap") == (try await Self.mcapDump(here + "/run.mcap")), "run.mcap: content differs")
        }
        // The Sage archive names the machine that exported it (its kernel and architecture,
        // SageExporter's default device description): that, and only that, differs.
        let arm64Sage = try await Self.sageEntries(root + "/tmp/arm64-exports/run.sage")
        #expect(arm64Sage.machine.allSatisfy { $0.hasSuffix("aarch64") } && arm64Sage.machine.count == 3, "\(arm64Sage.machine)")
        #expect(arm64Sage.entries == (try await Self.sageEntries(here + "/run.sage")).entries, "run.sage: entries differ")
        let trixieLibraries = try Self.trixieCompressionLibraries()
        let withTrixie = try await Self.export(root + run, libraries: trixieLibraries)
        let trixieFiles = try Self.files(under: withTrixie)
        for (name, bytes) in trixieFiles.sorted(by: { $0.key < $1.key }) where name != "run.sage" {
            #expect(arm64Files[name] == bytes, "\(name) differs between arm64 and amd64 with Debian 13's zstd and zlib (\(arm64Files[name]?.count ?? -1) and \(bytes.count) bytes)")
        }
        #expect(arm64Sage.entries == (try await Self.sageEntries(withTrixie + "/run.sage")).entries, "run.sage: entries differ with Debian 13's zlib")
    }

    /// Two demo summaries agree: the same steps in each walk, cadence within 3 steps/min,
    /// distance within 0.2 m, speed within 0.05 m/s, sway within 2 mg and path within 2 %
    /// (what five runs of the demo on one amd64 machine spread over).
    static func agree(_ a: [String], _ b: [String]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        for (x, y) in zip(a, b) {
            let nx = numbers(x), ny = numbers(y)
            guard x.split(separator: ":").first == y.split(separator: ":").first, nx.count == ny.count else { return false }
            if x.contains("steps/min") {
                guard nx.count == 4, nx[0] == ny[0], abs(nx[1] - ny[1]) <= 3, abs(nx[2] - ny[2]) <= 0.2, abs(nx[3] - ny[3]) <= 0.05 else { return false }
            } else if x.contains("sway") {
                guard nx.count == 3, abs(nx[0] - ny[0]) <= 2, abs(nx[1] - ny[1]) <= 2, abs(nx[2] - ny[2]) <= 0.02 * max(nx[2], ny[2]) else { return false }
            } else if nx != ny {
                return false
            }
        }
        return true
    }

    /// The numbers of a summary line after its step's name.
    static func numbers(_ line: String) -> [Double] {
        let text = line.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
        return text.split(whereSeparator: { !($0.isNumber || $0 == ".") }).compactMap { Double($0) }
    }

    /// This machine's exports of `run` in every format, in a new folder; with `libraries`, the
    /// dynamic loader looks there first.
    static func export(_ run: String, libraries: String? = nil) async throws -> String {
        let folder = try Fixtures.temporaryDirectory()
        for export in exports {
            let exporter = try await ChildProcess(ChildProcess.executable("recorderctl"), ["export", run, "-o", folder + "/" + export.name] + export.arguments,
                                                  environment: libraries.map { ["LD_LIBRARY_PATH": $0] } ?? [:])
            #expect(try await exporter.wait(timeout: 120) == 0, "\(exporter.printed)")
        }
        return folder
    }

    /// A folder holding Debian 13's amd64 libzstd and libz (the cross toolchain's target root).
    static func trixieCompressionLibraries() throws -> String {
        let source = arm64Folder + "/target/usr/lib/x86_64-linux-gnu"
        let folder = try Fixtures.temporaryDirectory()
        for name in ["libzstd.so.1", "libz.so.1"] {
            #expect(FileManager.default.fileExists(atPath: source + "/" + name), "no \(source)/\(name): run scripts/arm64/toolchain.sh")
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: source + "/" + name)
        }
        return folder
    }

    /// The MCAP file's content as PyPI mcap reads it (`check_mcap.py --dump`: no compressed bytes).
    static func mcapDump(_ path: String) async throws -> String {
        let (status, printed) = try await ChildProcess.run("/usr/bin/env", ["python3", MCAPCheck.checker, "--dump", path], timeout: 120)
        #expect(status == 0, "\(printed.suffix(1000))")
        return printed
    }

    /// The Sage archive's entries as Python's zipfile extracts them, the JSON ones decoded, with
    /// the machine's description taken out (`machine`: its values).
    static func sageEntries(_ path: String) async throws -> (entries: [String: String], machine: [String]) {
        let folder = try Fixtures.temporaryDirectory()
        let checker = VMGuest.packageRoot + "/Tests/Tools/check_sage.py"
        let (status, printed) = try await ChildProcess.run("/usr/bin/env", ["python3", checker, path, folder], timeout: 120)
        #expect(status == 0, "\(printed.suffix(1000))")
        var entries: [String: String] = [:], machine: [String] = []
        for (name, bytes) in try files(under: folder) {
            guard name == "info.json" || name == "metadata.json", var object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
                entries[name] = bytes.base64EncodedString()
                continue
            }
            for key in ["phoneInfo", "deviceInfo", "deviceTypeIdentifier"] {
                if let value = object.removeValue(forKey: key) as? String { machine.append(value) }
            }
            entries[name] = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        return (entries, machine.sorted())
    }

    /// Every file under `folder`, by its path below it.
    static func files(under folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
        }
        return files
    }
}
