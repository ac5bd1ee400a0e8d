import Glibc

/// Ends this process when the process `parent` (the one that started it) ends, from a thread of
/// its own that lives as long as the process: it asks for SIGKILL on the parent's death
/// (`SystemCall.signalOnParentDeath`) and watches the parent's pidfd.
///
/// Why its own thread: the kernel keeps the parent-death signal per *thread* of the child and
/// sends it only while the thread that asked for it exists. Asked for from an async function —
/// a cooperative-pool thread, which libdispatch ends when it idles — the request went with that
/// thread, and the services process once outlived its SIGKILLed daemon for good. The pidfd watch
/// is the second guard; without a pidfd (a kernel before 5.3) the parent's id is looked at once a
/// second.
public enum ParentWatch {
    /// Starts the watch; when `parent` ends — or already has, `parent` no longer being this
    /// process's parent — the process ends (`_exit(status)`, or SIGKILL: nothing of it needs a
    /// graceful end once its parent is gone).
    public static func exitWhenEnded(_ parent: pid_t, status: Int32 = 0) {
        DetachedThread.start {
            let now = SystemCall.signalOnParentDeath(SIGKILL)
            if now != parent { _exit(status) }
            let fd = SystemCall.processDescriptor(parent)
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
