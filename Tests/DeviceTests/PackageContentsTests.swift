import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

/// The Debian package as a file, without a guest (the gate's packaging check:
/// `RECORDERD_PACKAGE_TESTS=1`, after `scripts/build-deb.sh --debug`; the guest phases run it
/// too, on each architecture's package): what lintian, Debian's own checker, says of it, and the
/// Swift runtime held once for the three executables under /usr/lib/recorderd.
@Suite("The Debian package's contents", .serialized)
struct PackageContentsTests {
    static var package: String? { VMGuest.guestPackage }

    static func enabled(_ name: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard environment["RECORDERD_PACKAGE_TESTS"] == "1" || environment["RECORDERD_GUEST_TESTS"] == "1" else {
            print("SKIP \(name): run after scripts/build-deb.sh: RECORDERD_PACKAGE_TESTS=1 swift test --filter PackageContentsTests (.ci/run's packaging phase)")
            return false
        }
        if package == nil, !Privileges.isCI {
            print("SKIP \(name): needs the package (scripts/build-deb.sh\(VMGuest.architectureOption)); runs under CI")
            return false
        }
        return true
    }

    /// No error, no warning from lintian; the configuration a conffile; the maintainer scripts present.
    @Test(.enabled(if: enabled("PackageContentsTests")), .timeLimit(.minutes(3)), .ownThread)
    func lintianFindsNothingAndTheConfigurationIsAConffile() async throws {
        let deb = try #require(Self.package, "\(VMGuest.noPackage)")
        let lintian = try await ChildProcess("/usr/bin/lintian", ["--tag-display-limit", "0", deb])
        let status = try await lintian.wait(timeout: 150)
        let findings = lintian.printed.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") }
        #expect(status == 0 && findings.isEmpty, "\(lintian.printed)")
        let info = try await ChildProcess("/usr/bin/dpkg-deb", ["--info", deb])
        #expect(try await info.wait(timeout: 30) == 0)
        let control = info.printed
        for part in ["conffiles", "postinst", "prerm", "postrm", "Depends: libasound2", "libiio0", "libgps", "libstdc++6"] {
            #expect(control.contains(part), "\(part) missing: \(control)")
        }
        let listing = try await ChildProcess("/usr/bin/dpkg-deb", ["--info", deb, "conffiles"])
        #expect(try await listing.wait(timeout: 30) == 0)
        #expect(listing.printed.trimmingCharacters(in: .whitespacesAndNewlines) == "/etc/recorderd/recorderd.json")
    }

    /// The shared libraries an ELF file asks for, and its run path (readelf reads either architecture).
    static func dynamicSection(_ path: String) async throws -> (needed: [String], runPath: String?) {
        let (status, printed) = try await ChildProcess.run("/usr/bin/readelf", ["-d", path], timeout: 60)
        #expect(status == 0, "\(printed)")
        func value(_ line: Substring) -> String? {
            guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        let lines = printed.split(separator: "\n")
        return (lines.filter { $0.contains("(NEEDED)") }.compactMap(value), lines.first { $0.contains("(RUNPATH)") || $0.contains("(RPATH)") }.flatMap(value))
    }

    /// The runtime once: each executable's run path is `$ORIGIN/../lib/recorderd`; every library
    /// of the Swift runtime any of them needs (directly or through another) is there and nothing
    /// else is; each executable's closure holds FoundationEssentials and none holds Foundation or
    /// ICU (the package holds neither: 39 MB of ICU's data alone); and the unpacked executables
    /// start from that folder alone (no toolchain beside them).
    @Test(.enabled(if: enabled("PackageContentsTests")), .timeLimit(.minutes(3)), .ownThread)
    func theSwiftRuntimeIsHeldOnceBesideTheExecutables() async throws {
        let deb = try #require(Self.package, "\(VMGuest.noPackage)")
        let unpacked = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: unpacked) }
        let (status, printed) = try await ChildProcess.run("/usr/bin/dpkg-deb", ["-x", deb, unpacked], timeout: 120)
        try #require(status == 0, "\(printed)")
        let libraries = unpacked + "/usr/lib/recorderd"
        let shipped = Set(try FileManager.default.contentsOfDirectory(atPath: libraries))
        #expect(shipped.contains("libswiftCore.so") && shipped.contains("libFoundationEssentials.so"), "\(shipped.sorted())")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!shipped.contains(library), "the package holds \(library)")
        }
        // The closure of each executable's needs within the shipped folder.
        func closure(_ executable: String) async throws -> Set<String> {
            var found = Set<String>(), queue = try await Self.dynamicSection(executable).needed
            while let library = queue.popLast() {
                guard shipped.contains(library), found.insert(library).inserted else { continue }
                queue += try await Self.dynamicSection(libraries + "/" + library).needed
            }
            return found
        }
        var used = Set<String>()
        for executable in ["recorderd", "recorderd-services", "recorderctl"] {
            let path = unpacked + "/usr/bin/" + executable
            let section = try await Self.dynamicSection(path)
            #expect(section.runPath == "$ORIGIN/../lib/recorderd", "\(executable): \(section.runPath ?? "no run path")")
            // Every Swift library it names is shipped (none is left to a toolchain).
            for library in section.needed where library.hasPrefix("libswift") || library.contains("Foundation") || library.hasPrefix("libdispatch") {
                #expect(shipped.contains(library), "\(executable) needs \(library), which the package does not hold")
            }
            let own = try await closure(path)
            used.formUnion(own)
            #expect(own.contains("libFoundationEssentials.so"), "\(executable): \(own.sorted())")
            for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
                #expect(!section.needed.contains(library), "\(executable) would map \(library)")
            }
        }
        #expect(used == shipped, "shipped but needed by none: \(shipped.subtracting(used).sorted())")
        // Started from the unpacked tree: the libraries are found through the run path alone
        // (an arm64 package's under qemu-user, its C library from the toolchain's arm64 root).
        // (`env -i`: nothing of the test process's environment, no LD_LIBRARY_PATH.)
        var environment = ["-i", "PATH=/usr/bin:/bin"]
        if VMGuest.architecture != "amd64" { environment.append("QEMU_LD_PREFIX=" + VMGuest.packageRoot + "/.build-arm64/target") }
        for executable in ["recorderd", "recorderctl", "recorderd-services"] {
            let (status, printed) = try await ChildProcess.run("/usr/bin/env", environment + [unpacked + "/usr/bin/" + executable, "--version"], timeout: 120)
            #expect(status == 0 && printed.contains(RecorderVersion.string), "\(executable) --version: \(printed)")
        }
    }
}
