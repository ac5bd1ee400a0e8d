import CTestEnvironment
import Foundation
import Glibc
import RecorderTestSupport

/// A real JACK server (`jackd` with its dummy driver: paced in real time by the system clock, no
/// sound card) and the ALSA configuration (fixture `audio/jack-capture.asound.conf`) whose PCM
/// `recorderd_jack` captures from it through ALSA's jack plugin (`plug` over it converts JACK's
/// float to S16). Unlike the file
/// plugin this input is real time, and the jack plugin reports an overrun (-EPIPE) when the
/// reader falls behind, so recorderd's xrun and failure paths run against the real libasound.
final class JACKServer: @unchecked Sendable {
    // @unchecked: used by one test at a time.
    let name: String
    let directory: String
    private var process: ChildProcess?

    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd") && FileManager.default.isExecutableFile(atPath: "/usr/bin/jack_wait")
            && FileManager.default.fileExists(atPath: "/usr/lib/\(Self.multiarch)/alsa-lib/libasound_module_pcm_jack.so")
    }

    static var multiarch: String {
        #if arch(x86_64)
        return "x86_64-linux-gnu"
        #else
        return "aarch64-linux-gnu"
        #endif
    }

    /// Whether the JACK tests run here: always under CI (they fail if jackd is missing);
    /// elsewhere they are skipped with a printed reason when it is not installed.
    static func enabled(_ test: String) -> Bool {
        if isInstalled || Privileges.isCI { return true }
        print("SKIP \(test): needs jackd2 and libasound2-plugins (scripts/setup.sh installs them); runs under CI")
        return false
    }

    init() throws {
        directory = try Fixtures.temporaryDirectory()
        // One fixed name: JACK keeps 8 server entries in its shared registry and reclaims a dead
        // server's entry only when a server of the same name starts (a killed server leaves one).
        // It is the test process's `JACK_DEFAULT_SERVER` too (set before `main`).
        name = String(cString: recorderd_test_jack_server)
    }

    /// What a JACK client (recorderd, or this process) needs: the ALSA configuration, the server's
    /// name, and no automatic start of a server when it is gone.
    var environment: [String: String] {
        ["ALSA_CONFIG_PATH": Fixtures.root + "/audio/jack-capture.asound.conf", "JACK_DEFAULT_SERVER": name, "JACK_NO_START_SERVER": "1",
         "JACK_NO_AUDIO_RESERVATION": "1"]
    }

    /// Starts jackd (48 kHz, periods of 256 frames, one capture port of silence) and waits until
    /// it accepts clients (`jack_wait -w`, at most 15 s).
    func start() async throws {
        let log = directory + "/jackd.log"
        // exec: the shell becomes jackd (same PID); its output goes to a file, not a pipe that
        // nobody reads. Real time (SCHED_FIFO) where allowed (root, as under CI), as sound servers
        // run: jackd's cycle and each client's process thread (the jack plugin's, in the process
        // under test) then keep pace while the rest of the suite loads both cores. Without it, a
        // client thread that misses JACK cycles loses them unseen, and the capture's frames fall
        // behind real time (measured: 24 busy shell loops beside this suite's overrun test fail
        // it 3 times in 3, at 0.25 – 0.3 s late and 0.69 s lost in a 0.5 s stall).
        let realtime = geteuid() == 0 ? "--realtime" : "--no-realtime"
        process = try await ChildProcess("/bin/sh", ["-c", "exec /usr/bin/jackd \(realtime) -n '\(name)' -d dummy -r 48000 -p 256 -C 1 -P 1 >>'\(log)' 2>&1"],
                                   environment: environment)
        let wait = try await ChildProcess("/usr/bin/jack_wait", ["-s", name, "-w", "-t", "15"], environment: environment)
        let status = try await wait.wait(timeout: 20)
        guard status == 0, process?.isRunning == true else {
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw JACKError(description: "jackd did not start (jack_wait \(status)): \(printed.suffix(500))")
        }
    }

    /// Kills jackd (SIGKILL: a sound server that dies) and waits for it.
    func kill() async throws {
        guard let process else { return }
        try await process.stop(signal: SIGKILL, timeout: 10)
        self.process = nil
    }

    /// Stops jackd (SIGTERM: it then leaves JACK's shared registry clean; SIGKILL if it has not
    /// gone within 10 s, as it once took longer in CI: jackd's own shutdown, not ours) and removes
    /// the directory.
    func stop() async throws {
        if let process {
            Glibc.kill(process.pid, SIGTERM)
            if await process.exitStatus(within: 10) == nil {
                print("JACK: jackd \(process.pid) still running 10 s after SIGTERM; SIGKILL")
                try await process.stop(signal: SIGKILL, timeout: 10)
            }
        }
        process = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct JACKError: Error, CustomStringConvertible {
        var description: String
    }
}
