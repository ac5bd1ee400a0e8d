import RecorderModel

/// Tells how well the wall clock is synchronised (a time service is asked): the task runs
/// record it at their start and end. Implementations ask off the cooperative pool.
public protocol ClockSynchronisationSource: Sendable {
    /// The clock's state now (an `unknown` one, with why, when no service answers in time).
    func current() async -> ClockSynchronisation

    /// The latest state known, at once (nil before the first answer); may ask again in the
    /// background when it is old. For `daemon.status`, which never waits for a service.
    func recent() -> ClockSynchronisation?
}
