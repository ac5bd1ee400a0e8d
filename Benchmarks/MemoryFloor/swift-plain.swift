// The Swift runtime alone: an executable that prints and waits (memory-floor.sh).
import Glibc

let numbers = (0..<10).map { $0 * 2 }
print(numbers.count)
sleep(3)
