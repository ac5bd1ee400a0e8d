/// A value guarded by a `pthread_mutex_t` (`PThreadLock`): the lock recorderd's modules share
/// state through.
///
/// Not `Synchronization.Mutex`: on Linux that locks through raw futex calls, which
/// ThreadSanitizer cannot see, so every access under it is reported as a race and real races
/// drown in the noise. pthread mutexes are intercepted by TSan; with this lock every TSan report
/// is real. (NIO's `NIOLockedValueBox` is the same idea; the model and client modules do not
/// depend on NIO.)
///
/// `@unchecked Sendable`: the value is only ever reached inside `withLock`, under the mutex.
public final class LockedValue<Value>: @unchecked Sendable {
    private let lock = PThreadLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        try lock.withLock { () throws(E) -> Result in try body(&value) }
    }
}
