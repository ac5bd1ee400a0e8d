import Testing

/// Runs a test on a thread of its own (`DedicatedExecutor`), not the cooperative pool. Every
/// `async` test carries it (`TestThreadTests` checks): on the pool (two threads on the CI machine)
/// a test's resumptions wait behind whatever computes there — once for two minutes, and CI's gate
/// lost 12 tests to their time limits — and its own bursts (an export, a fixture parsed, a run
/// compared with its replay) hold a thread that in-process daemons and other tests wait for.
/// The synchronous tests stay on the pool, which keeps them two at a time.
/// `@Test(.ownThread)`; each test case gets a thread of its own.
public struct OwnThreadTrait: TestTrait, TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let executor = DedicatedExecutor(label: "test." + test.name)
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// The test runs on a thread of its own: see `OwnThreadTrait`.
    public static var ownThread: Self { OwnThreadTrait() }
}
