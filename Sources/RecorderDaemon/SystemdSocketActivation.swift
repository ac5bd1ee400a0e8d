import CSystemd
import FoundationEssentials
import Glibc

/// The control socket systemd passes when `recorderd.socket` starts the service.
public enum SystemdSocketActivation {
    /// The first passed file descriptor if it is a listening stream Unix socket (`sd_listen_fds`);
    /// nil when not socket-activated. The environment variables are unset, so children do not
    /// inherit them.
    public static func passedControlSocket() -> Int32? {
        let count = sd_listen_fds(1)
        guard count >= 1 else { return nil }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else { return nil }
        return fd
    }
}
