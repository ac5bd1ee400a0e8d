import FakeIIO
import Foundation

/// Instructions per scan of the peer, `iio_readdev` (valgrind's callgrind, which unlike times
/// repeats on this noisy VM), reading the fake device through the real libiio at 1 kHz in refills
/// of 20 scans (recorderd's 20 ms) and writing the scans; run twice, short and long, the
/// difference over the difference in scans leaves start-up out. recorderd's side is counted by
/// `scripts/count-instructions.sh iio` (valgrind 3.19 stops with an internal error on any program
/// linking the IIO backend, so there it counts writing the scan's records). Needs root and valgrind.
extension IIOBenchmark {
    static let countRate = 1000.0

    static func instructions() {
        guard geteuid() == 0 else { return Benchmarks.say("iio instructions: skipped (needs root for the namespace)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind") else {
            return Benchmarks.say("iio instructions: skipped (needs valgrind)")
        }
        guard let short = countReaddev(scans: 4000), let long = countReaddev(scans: 12000) else { return }
        Benchmarks.say(String(format: "iio instructions, iio_readdev at %.0f Hz, refills of %d scans of 6 × s16 + s64: %.0f per scan",
                              countRate, Int(countRate * 0.02), Double(long.instructions - short.instructions) / 8000))
    }

    struct Count {
        var instructions: Int
        var scans: Int
    }

    /// "Collected : N" of a valgrind log.
    static func collected(_ log: String) -> Int? {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }) else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }

    static func valgrind(_ tree: FakeIIOTree, _ payload: [String]) -> [String] {
        ["/usr/bin/valgrind", "--tool=callgrind", "--callgrind-out-file=\(tree.root)/callgrind.out", "--log-file=\(tree.root)/valgrind.log"]
            + payload
    }

    /// Waits for the namespace's payload to end (a minute at most), then stops it by its PID.
    static func wait(_ p: Process, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning, Date() < deadline { usleep(20_000) }
        if p.isRunning { stop(p) }
        p.waitUntilExit()
    }

    static func countReaddev(scans: Int) -> Count? {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        try! "\(Int(countRate))\n".write(toFile: tree.directory("iio:device0") + "/sampling_frequency", atomically: false, encoding: .utf8)
        let g = startGenerator(tree, unthrottled: false)
        let output = tree.root + "/readdev.bin"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = FileHandle(forWritingAtPath: output)!
        let p = namespace(tree, valgrind(tree, ["/usr/bin/iio_readdev", "-b", String(Int(countRate * 0.02)), "-s", String(scans), "iio:device0"]),
                          output: handle)
        wait(p, seconds: Double(scans) / countRate + 60)
        try? handle.close()
        _ = stopGenerator(g)
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        guard let total = collected(tree.root + "/valgrind.log"), size == scans * 24 else {
            Benchmarks.say("iio instructions: iio_readdev failed (\(size) bytes)")
            return nil
        }
        return Count(instructions: total, scans: scans)
    }
}
