import RecorderEngine
import RecorderModel
import Testing
import RecorderTestSupport

/// The descriptor budget: sized from the open-file limit, taken only when it fits, overdrawn only
/// by descriptors already open, given back exactly.
@Suite struct DescriptorBudgetTests {
    @Test func itsSizeIsTheOpenFileLimitLessWhatTheDaemonAndItsDevicesNeed() {
        #expect(DescriptorBudget.capacity(openFileLimit: 160, devices: 1) == 160 - 64 - 8)
        #expect(DescriptorBudget.capacity(openFileLimit: 4096, devices: 3) == 4096 - 64 - 24)
        #expect(DescriptorBudget.capacity(openFileLimit: 50, devices: 0) == 0)
        #expect(DescriptorBudget.capacity(openFileLimit: .max, devices: .max) == .max / 2 - 64 - 800_000)
        #expect(DescriptorBudget.capacity(openFileLimit: 1024, devices: -5) == 1024 - 64)
        let budget = DescriptorBudget()
        budget.setOpenFileLimit(160, devices: 1)
        #expect(budget.limit == 88 && budget.available == 88)
    }

    @Test func takingFitsOrTakesNothingAndOpenedOnesMayOverdraw() {
        let budget = DescriptorBudget(capacity: 5)
        #expect(budget.take(3))
        #expect(!budget.take(3))
        #expect(budget.available == 2)
        #expect(budget.takeOpened())
        #expect(!budget.takeOpened())
        #expect(!budget.takeOpened())
        #expect(budget.available == -1)
        #expect(!budget.take(1))
        budget.give(2)
        #expect(budget.available == 1)
        #expect(budget.take(1) && budget.available == 0)
        budget.give(5)
        #expect(budget.available == 5)
    }

    @Test(.ownThread) func concurrentTakersNeverTakeMoreThanThereIs() async {
        let budget = DescriptorBudget(capacity: 1000)
        let taken = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var n = 0
                    for _ in 0..<500 where budget.take(1) { n += 1 }
                    return n
                }
            }
            return await group.reduce(0, +)
        }
        #expect(taken == 1000 && budget.available == 0)
    }
}
