import Foundation
import RecorderTestSupport
import Testing

/// The dependency rule of the package (docs/architecture.md), checked against what the package
/// declares (`swift package dump-package`), what each module imports, and what the executables
/// link: a wrong arrow fails here.
@Suite("Architecture: dependencies point one way")
struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("every declared arrow of a module points down and stays on its side", .ownThread)
    func declaredArrowsFollowTheRule() async throws {
        let package = try await PackageDump.ofThisPackage.value
        var wrong: [String] = []
        for target in package.modules {
            guard let from = ModuleRule.table[target.name] else {
                wrong.append("\(target.name): a module the rule does not place (add it to ModuleRule.table and docs/architecture.md)")
                continue
            }
            for dependency in target.internalDependencies(in: package) {
                guard let to = ModuleRule.table[dependency] else { continue }  // reported as a module of its own
                if let problem = ModuleRule.problem(from: (target.name, from), to: (dependency, to)) { wrong.append(problem) }
            }
        }
        #expect(wrong == [], "\(wrong.joined(separator: "\n"))")
    }

    /// What the toolchain itself provides: importable by every target without a declaration.
    static let toolchainModules: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Dispatch",
                                                "Synchronization", "Testing", "XCTest", "_Concurrency", "Observation"]

    @Test("every target imports only what it declares: the package's modules and other packages' products (none reached through another's)", .ownThread)
    func importsAreDeclared() async throws {
        let package = try await PackageDump.ofThisPackage.value
        let names = Set(package.targets.map(\.name))
        var undeclared: [String] = []
        for target in package.targets {
            let declared = Set(target.internalDependencies(in: package)).union(target.productDependencies)
            for (file, module) in try Self.imports(under: Self.root + "/" + target.sourcePath)
            where module != target.name && !declared.contains(module) && !Self.toolchainModules.contains(module) {
                let what = names.contains(module) ? "a module of this package" : "a product of another package, or a module no product offers"
                undeclared.append("\(file): imports \(module) (\(what)), which \(target.name) does not declare")
            }
        }
        #expect(undeclared == [], "\(undeclared.joined(separator: "\n"))")
    }

    @Test("no module the executables are made of imports all of Foundation (FoundationEssentials only): none needs ICU's 39 MB of data")
    func noSourceModuleImportsFoundation() throws {
        let found = try Self.imports(under: Self.root + "/Sources").filter { ["Foundation", "FoundationNetworking", "FoundationXML"].contains($0.1) }
        #expect(found.isEmpty, "\(found.map { "\($0.0): imports \($0.1)" }.joined(separator: "\n"))")
    }

    @Test("the import check itself: an import a target does not declare is caught", .ownThread)
    func anUndeclaredImportIsCaught() async throws {
        let package = try await PackageDump.ofThisPackage.value
        let daemon = try #require(package.targets.first { $0.name == "RecorderDaemon" })
        let declared = Set(daemon.internalDependencies(in: package)).union(daemon.productDependencies)
        #expect(declared.contains("NIOCore") && declared.contains("RecorderEngine"))
        #expect(!declared.contains("Hummingbird") && !declared.contains("IIOSensors"))
    }

    @Test("libzstd is linked only where something compresses: the exports and the fleet link, not the recording process", .ownThread)
    func zstdIsLinkedWhereSomethingCompresses() async throws {
        let package = try await PackageDump.ofThisPackage.value
        #expect(!package.closure(of: "recorderd").contains("CZstd"), "recorderd reaches CZstd")
        #expect(package.closure(of: "recorderctl").contains("CZstd"))
        // What the executable itself asks the dynamic linker for (libsystemd may bring libzstd in
        // on its own: that is systemd's choice, not a module of ours).
        for (executable, links) in [("recorderd", false), ("recorderctl", true), ("recorderd-services", true)] {
            let readelf = try await ChildProcess("/usr/bin/readelf", ["-d", ChildProcess.executable(executable)])
            #expect(try await readelf.wait(timeout: 60) == 0)
            let needed = readelf.printed.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(!needed.isEmpty, "readelf listed nothing: \(readelf.printed)")
            #expect(needed.contains { $0.contains("libzstd") } == links, "\(executable): \(needed.joined(separator: "\n"))")
            #expect(needed.contains { $0.contains("[libz.so") } == links, "zlib: \(executable): \(needed.joined(separator: "\n"))")
        }
    }

    @Test("recorderd-services and recorderctl reach no sensor backend, engine or daemon, even through others", .ownThread)
    func clientExecutablesReachNoRecordingModule() async throws {
        let package = try await PackageDump.ofThisPackage.value
        for executable in ["recorderd-services", "recorderctl"] {
            let reached = package.closure(of: executable)
            let recording = reached.filter { ModuleRule.table[$0].map { $0.side == .recording } ?? false }
            #expect(recording.isEmpty, "\(executable) reaches \(recording.sorted())")
            for library in ["CLibIIO", "CALSA", "CLibGPS"] { #expect(!reached.contains(library), "\(executable) reaches \(library)") }
        }
        #expect(package.closure(of: "RecorderFleet").contains("RecorderEngine") == false)
    }

    @Test("the linked libraries: recorderd-services and recorderctl load no libiio, libasound or libgps", .ownThread, arguments: ["recorderd-services", "recorderctl"])
    func clientExecutablesLinkNoSensorLibrary(executable: String) async throws {
        let ldd = try await ChildProcess("/usr/bin/ldd", [ChildProcess.executable(executable)])
        #expect(try await ldd.wait(timeout: 60) == 0)
        let libraries = ldd.printed
        #expect(libraries.contains("libc.so"), "ldd listed nothing: \(libraries)")
        for library in ["libiio", "libasound", "libgps"] { #expect(!libraries.contains(library), "\(executable) links \(library)") }
    }

    @Test("the rule itself: a wrong arrow is caught", arguments: [
        ("RecorderFleet", "RecorderEngine"), ("RecorderDaemon", "IIOSensors"), ("RecorderEngine", "RecorderClient"),
        ("RecorderModel", "RecorderProtocol"), ("GaitAnalysis", "MotionFusion"), ("RecorderWeb", "CLibIIO"), ("recorderctl", "RecorderEngine"),
        ("RecorderEngine", "RecorderProtocol"), ("IIOSensors", "RecorderProtocol"), ("BLESensors", "RecorderProtocol"),
        ("RecorderConfiguration", "RecorderProtocol"), ("RecorderProtocol", "RecorderEngine"), ("RecorderRuntime", "CZstd"),
    ])
    func wrongArrowsAreCaught(from: String, to: String) throws {
        let source = try #require(ModuleRule.table[from]), target = try #require(ModuleRule.table[to])
        #expect(ModuleRule.problem(from: (from, source), to: (to, target)) != nil)
    }

    /// An attribute such as `@testable` or `@preconcurrency` (not `@Test("…`).
    static func isAttribute(_ word: Substring) -> Bool {
        word.count > 1 && word.first == "@" && word.dropFirst().allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// `import X` lines of the Swift files under `directory`: (file relative to the root, X).
    static func imports(under directory: String) throws -> [(String, String)] {
        guard let files = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            var inMultilineString = false
            for line in text.split(separator: "\n") {
                // Lines of a multi-line string literal (a Python script a test runs) import nothing.
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle() }
                if inMultilineString { continue }
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                      words[..<index].allSatisfy({ Self.isAttribute($0) || ["public", "package", "internal", "private", "fileprivate"].contains($0) }) else { continue }
                // `import struct Module.Type`: the module is the path's first part.
                let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias", "actor"]
                let path = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
                found.append((String(directory.dropFirst(root.count + 1)) + "/" + file, String(path.split(separator: ".").first ?? path)))
            }
        }
        return found
    }
}
