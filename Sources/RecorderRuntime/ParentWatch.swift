import Glibc

/// Ends this process when the process `parent` ends, watched through its pidfd on a thread of
/// its own — a second guard beside the parent-death signal (`SystemCall.signalOnParentDeath`),
/// which the kernel ties to the *thread* that started this process and which a test once saw not
/// arrive: the services process then outlived its SIGKILLed daemon for good. Without a pidfd (a
/// kernel before 5.3) the parent's id is looked at once a second.
public enum ParentWatch {
    /// Starts the watch; when `parent` ends, the process exits at once with `status` (`_exit`:
    /// nothing of it needs a graceful end once its parent is gone).
    public static func exitWhenEnded(_ parent: pid_t, status: Int32 = 0) {
        let fd = SystemCall.processDescriptor(parent)
        DetachedThread.start {
            if fd >= 0 {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                while poll(&p, 1, -1) < 0, errno == EINTR {}
            } else {
                while getppid() == parent { sleep(1) }
            }
            _exit(status)
        }
    }
}
