import Testing

/// Runs a test on a thread of its own (`DedicatedExecutor`), not the cooperative pool: for a test
/// that computes for seconds (it would hold one of the pool's threads, two on the CI machine, which
/// in-process daemons and other tests wait for), or whose assertions depend on how soon its
/// `await`s resume (a step change timed against a replay's rows, a log played in real time),
/// which on the pool have waited behind the suite's synchronous tests for over ten seconds.
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
