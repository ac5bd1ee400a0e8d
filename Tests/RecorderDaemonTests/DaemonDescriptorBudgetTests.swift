import Foundation
@testable import RecorderDaemon
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderConfiguration

/// recorderd's descriptor budget with the web page on: the page runs in `recorderd-services`, with
/// descriptors of its own, so it takes nothing of what recorderd's clients and task runs share.
@Suite struct DaemonDescriptorBudgetTests {
    @Test(.ownThread) func theWebPageTakesNothingOfTheDaemonsBudget() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let http = try JSONDecoder().decode(HTTPConfiguration.self, from: Data(#"{"listen": "127.0.0.1:8080"}"#.utf8))
        var budgets: [Int] = []
        for page in [nil, http] {
            var configuration = DaemonConfiguration()
            configuration.socket = directory + "/control.sock"
            configuration.dataDirectory = directory + "/data"
            configuration.devices = [Fixtures.replayDevice()]
            configuration.http = page
            let daemon = RecorderDaemon(configuration: configuration, components: .recorderd, baseDirectory: directory, logger: Fixtures.logger)
            try await daemon.recoverAndProbe()
            budgets.append(daemon.descriptors.limit)
            await daemon.shutdown()
        }
        #expect(budgets[0] == DescriptorBudget.capacity(openFileLimit: OpenFileLimit.soft, devices: 1))
        #expect(budgets[1] == budgets[0], "with the web page on, recorderd's budget shrank by \(budgets[0] - budgets[1])")
    }
}
