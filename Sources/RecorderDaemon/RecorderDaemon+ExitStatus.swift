import FoundationEssentials
import Glibc
import NIOCore
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime

extension RecorderDaemon {
    /// The sysexits status for an error that stopped the daemon: reading or writing failed (the
    /// data directory, the control socket) is I/O; anything else is internal.
    public static func exitStatus(for error: any Error) -> SysexitStatus {
        switch error {
        case is ConfigurationError: return .configuration
        case is IOError, is CocoaError, is POSIXError, is ChannelError, is StorageError: return .ioError
        default: return .software
        }
    }
}
