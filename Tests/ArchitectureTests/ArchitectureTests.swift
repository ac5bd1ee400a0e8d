import Foundation
import RecorderTestSupport
import Testing

/// The dependency rule of the package (README, "Architecture"), checked against what the package
/// declares (`swift package dump-package`), what each module imports, and what the executables
/// link: a wrong arrow fails here.
@Suite("Architecture: dependencies point one way")
struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("every declared arrow of a module points down and stays on its side")
    func declaredArrowsFollowTheRule() async throws {
        let package = try await PackageDump.ofThisPackage.value
        var wrong: [String] = []
        for target in package.modules {
            guard let from = ModuleRule.table[target.name] else {
                wrong.append("\(target.name): a module the rule does not place (add it to ModuleRule.table and the README)")
                continue
            }
            for dependency in target.internalDependencies(in: package) {
                guard let to = ModuleRule.table[dependency] else { continue }  // reported as a module of its own
                if let problem = ModuleRule.problem(from: (target.name, from), to: (dependency, to)) { wrong.append(problem) }
            }
        }
        #expect(wrong == [], "\(wrong.joined(separator: "\n"))")
    }

    @Test("every module imports only what it declares (no module reached through another's)")
    func importsAreDeclared() async throws {
        let package = try await PackageDump.ofThisPackage.value
        let names = Set(package.targets.map(\.name))
        var undeclared: [String] = []
        for target in package.modules {
            let declared = Set(target.internalDependencies(in: package))
            for (file, module) in try Self.imports(under: Self.root + "/" + (target.path ?? "Sources/" + target.name)) where names.contains(module) && !declared.contains(module) {
                undeclared.append("\(file): imports \(module), which \(target.name) does not declare")
            }
        }
        #expect(undeclared == [], "\(undeclared.joined(separator: "\n"))")
    }

    @Test("recorderd-services and recorderctl reach no sensor backend, engine or daemon, even through others")
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

    @Test("the linked libraries: recorderd-services and recorderctl load no libiio, libasound or libgps", arguments: ["recorderd-services", "recorderctl"])
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
    ])
    func wrongArrowsAreCaught(from: String, to: String) throws {
        let source = try #require(ModuleRule.table[from]), target = try #require(ModuleRule.table[to])
        #expect(ModuleRule.problem(from: (from, source), to: (to, target)) != nil)
    }

    /// `import X` lines of the Swift files under `directory`: (file relative to the root, X).
    static func imports(under directory: String) throws -> [(String, String)] {
        guard let files = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                      words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal", "private"].contains($0) }) else { continue }
                found.append((String(directory.dropFirst(root.count + 1)) + "/" + file, String(words[index + 1])))
            }
        }
        return found
    }
}
