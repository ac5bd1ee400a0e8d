// A deliberate data race (four threads incrementing an unguarded counter): ThreadSanitizer must
// report it, or a clean TSan run proves nothing. TSan names it a "data race" or a "Swift access
// race" (exclusivity instrumentation), whichever access it catches first.
import Foundation

final class Counter: @unchecked Sendable { var value = 0 }
let counter = Counter()
let finished = DispatchSemaphore(value: 0)
let threads = (0..<4).map { _ in
  Thread {
    for _ in 0..<10_000 { counter.value += 1 }
    finished.signal()
  }
}
threads.forEach { $0.start() }
for _ in threads { finished.wait() }
print(counter.value)
