import CSystemd
import FoundationEssentials
import Glibc

/// The control socket systemd passes when `recorderd.socket` starts the service.
public enum SystemdSocketActivation {
    /// The first passed file descriptor if it is a listening stream Unix socket (`sd_listen_fds`);
    /// nil when not socket-activated. The environment is left as it is: unsetting `LISTEN_PID` and
    /// `LISTEN_FDS` here would race every thread reading the environment (glibc moves `environ`'s
    /// entries under them), and a child gains nothing from them — `LISTEN_PID` names this
    /// process, and the services process is spawned with descriptors from 3 up closed.
    public static func passedControlSocket() -> Int32? {
        let count = sd_listen_fds(0)
        guard count >= 1 else { return nil }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else { return nil }
        return fd
    }
}
