// A deliberate data race (four threads incrementing an unguarded counter): ThreadSanitizer must
// report it, or a clean TSan run proves nothing.
import Foundation

final class Counter: @unchecked Sendable { var value = 0 }
let counter = Counter()
let threads = (0..<4).map { _ in Thread { for _ in 0..<10_000 { counter.value += 1 } } }
threads.forEach { $0.start() }
Thread.sleep(forTimeInterval: 0.5)
print(counter.value)
