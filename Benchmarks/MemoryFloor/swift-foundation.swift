// All of Foundation, with ICU in use (an ISO-8601 formatter), then wait (memory-floor.sh).
import Foundation
import Glibc

let data = try! JSONEncoder().encode(["uptime": Date().timeIntervalSince1970])
print(data.count, URL(fileURLWithPath: "/tmp/x.jsonl").lastPathComponent, ISO8601DateFormatter().string(from: Date()))
sleep(3)
