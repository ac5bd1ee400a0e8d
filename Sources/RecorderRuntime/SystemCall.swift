import CRecorderRuntime
import Glibc

/// The process and pipe system calls recorderd makes that Swift's Glibc module does not import,
/// from the runtime's C shim (`CRecorderRuntime`): other modules call these, never the shim.
public enum SystemCall {
    /// A pipe whose ends are both non-blocking and closed in any program a child executes (pipe2
    /// with O_CLOEXEC | O_NONBLOCK): a wake-up channel. Nil with `errno` set when it fails.
    public static func nonBlockingPipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard recorderd_pipe_cloexec_nonblocking(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }

    /// Starts the program at `path` with `arguments` (the program's name first) and the caller's
    /// environment (posix_spawn): descriptors from 3 up closed in the child, its signal mask
    /// empty, SIGHUP, SIGINT, SIGTERM, SIGPIPE and SIGCHLD at their defaults. The child's id, or
    /// the errno value of the failure. `report`, when given, is the child's descriptor 3 (the
    /// write end of a pipe it reports on).
    public static func spawn(_ path: String, arguments: [String], report: Int32? = nil) -> Result<pid_t, SystemCallError> {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let result = recorderd_spawn(path, &argv, report ?? -1, &pid)
        return result == 0 ? .success(pid) : .failure(SystemCallError(errno: result))
    }

    /// Starts the program at `path` as `spawn` does, with `environment` (each `NAME=value`; nil:
    /// the caller's), the descriptors `input`, `output` and `errors` as its standard input, output
    /// and error (nil: the caller's own), and, with `newProcessGroup`, a process group of its own
    /// that it leads. The child's id, or the errno value of the failure.
    public static func spawn(_ path: String, arguments: [String], environment: [String]?, input: Int32?, output: Int32?,
                             errors: Int32?, newProcessGroup: Bool) -> Result<pid_t, SystemCallError> {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = (environment ?? []).map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let result = envp.withUnsafeMutableBufferPointer { env in
            recorderd_spawn_child(path, &argv, environment == nil ? nil : env.baseAddress, input ?? -1, output ?? -1,
                                  errors ?? -1, newProcessGroup ? 1 : 0, &pid)
        }
        return result == 0 ? .success(pid) : .failure(SystemCallError(errno: result))
    }

    /// A descriptor that polls readable once the child `pid` has ended (pidfd_open, close-on-exec),
    /// or -1 with `errno` set (a kernel before 5.3).
    public static func processDescriptor(_ pid: pid_t) -> Int32 {
        recorderd_pidfd_open(pid)
    }

    /// Asks for `signal` when the thread that started this process ends (PR_SET_PDEATHSIG), and
    /// returns the parent's id as it is now (1, or a subreaper's, when the parent is gone already);
    /// -1 with `errno` when the request fails. The kernel keeps the request with the *calling*
    /// thread: call it from one that lives as long as the process (`ParentWatch`).
    public static func signalOnParentDeath(_ signal: Int32) -> pid_t {
        recorderd_signal_on_parent_death(signal)
    }

    /// Whether the kernel holds the wall clock synchronised by a time service (adjtimex(2), no
    /// change made); nil when it cannot be asked.
    public static func kernelClockSynchronised() -> Bool? {
        switch recorderd_kernel_clock_synchronised() {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    /// Names the calling thread (PR_SET_NAME; Linux keeps the first 15 bytes). False with `errno`
    /// set when it fails.
    @discardableResult
    public static func setThreadName(_ name: String) -> Bool {
        recorderd_set_thread_name(name) == 0
    }
}

/// A system call failed with this errno value.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public var errno: Int32

    public init(errno: Int32) { self.errno = errno }

    public var description: String { ErrorText.reason(errno) }
}
