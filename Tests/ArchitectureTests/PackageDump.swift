import Foundation
import RecorderTestSupport

/// The package as SwiftPM reads it (`swift package dump-package`): targets, their paths and
/// dependencies. Read with a scratch path of its own, so that it needs no lock of the build
/// directory the running tests came from.
struct PackageDump: Decodable {
    struct Target: Decodable {
        struct Dependency: Decodable {
            var byName: [String?]?
            var target: [String?]?
            var product: [String?]?
        }

        var name: String
        var type: String
        var path: String?
        var dependencies: [Dependency]

        /// The package's own modules it depends on (products of other packages left out).
        func internalDependencies(in package: PackageDump) -> [String] {
            dependencies.compactMap { ($0.byName ?? $0.target)?.first ?? nil }.filter { package.names.contains($0) }
        }

        /// The products of other packages it depends on, by name (a product's name is the name of
        /// the module it is imported as, for every product this package uses).
        var productDependencies: [String] {
            dependencies.compactMap { $0.product?.first ?? nil }
        }

        /// Where its sources are: its own path, or SwiftPM's default for its type.
        var sourcePath: String {
            path ?? (type == "test" ? "Tests/" : "Sources/") + name
        }
    }

    var targets: [Target]
    var names: Set<String> { Set(targets.map(\.name)) }

    /// The modules the rule is about: sources and executables under Sources/ (tests, benchmarks and
    /// their support are not).
    var modules: [Target] {
        targets.compactMap { target in
            guard ["regular", "executable", "system"].contains(target.type), target.path == nil else { return nil }
            var module = target
            module.path = "Sources/" + target.name
            return module
        }
    }

    /// `name` and every module it reaches through its dependencies.
    func closure(of name: String) -> Set<String> {
        var reached: Set<String> = []
        var next = [name]
        while let current = next.popLast() {
            guard let target = targets.first(where: { $0.name == current }) else { continue }
            for dependency in target.internalDependencies(in: self) where reached.insert(dependency).inserted { next.append(dependency) }
        }
        return reached
    }

    /// This package's dump, made once for every test that reads it: `swift package dump-package`
    /// compiles the manifest (and resolves into its own scratch folder), about 20 s of both cores
    /// under the parallel suite; three at once starved every other test for 25–40 s (a recording
    /// test's ring overflowed while its waiting task could not run).
    static let ofThisPackage = Task { try await load(root: ArchitectureTests.root) }

    static func load(root: String) async throws -> PackageDump {
        let scratch = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Into a file: the dump is larger than a pipe holds (64 KiB), and the pipe is read only once
        // the process has ended.
        let file = scratch + "/package.json"
        let swift = try await ChildProcess("/usr/bin/env", ["swift", "package", "--package-path", root, "--scratch-path", scratch, "dump-package"],
                                           output: .file(file))
        let status = try await swift.wait(timeout: 120)
        let output = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        guard status == 0 else { throw DumpFailed(output: output) }
        guard let start = output.firstIndex(of: "{") else { throw DumpFailed(output: output) }
        return try JSONDecoder().decode(PackageDump.self, from: Data(output[start...].utf8))
    }

    struct DumpFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { "swift package dump-package failed: \(output)" }
    }
}
