import Glibc

/// A detached POSIX thread running a closure: what recorderd's own threads (a device's sampling
/// thread, `BlockingPool`'s, a client's reader) are started with, without Foundation's `Thread`
/// (which would bring all of Foundation, and ICU with it, into every program built on this
/// module).
/// Bridge (→ a thread of its own): sampling loops and pidfd waits block for their whole life,
/// which no pool thread may.
public enum DetachedThread {
    /// Starts a thread that runs `body` and ends with it. Stops the program if the system
    /// refuses a thread (`pthread_create` fails only without resources: `EAGAIN`), as
    /// Foundation's `Thread.start` does.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body
            body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            fatalError("pthread_create failed: error \(result)")
        }
        pthread_detach(thread)
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
