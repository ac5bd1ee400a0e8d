/// The exit statuses of `recorderd` and `recorderctl`: sysexits(3), so that scripts and systemd
/// can tell a mistyped command from a daemon that is not running.
public enum SysexitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    /// The command line is wrong (with the usage text).
    case usage = 64
    /// What was given is wrong: a malformed task file, a request the daemon refused as invalid.
    case dataError = 65
    /// An input file does not exist or cannot be read.
    case noInput = 66
    /// The daemon is not running or not reachable, or a device is missing or unavailable.
    case unavailable = 69
    /// An internal error (a bug: an answer that does not decode, an internal error reply).
    case software = 70
    /// An output file cannot be created (it exists, or is inside the run an export reads).
    case cannotCreate = 73
    /// Reading or writing failed: the socket, the data directory, a full disk.
    case ioError = 74
    /// The configuration file is wrong.
    case configuration = 78

}
