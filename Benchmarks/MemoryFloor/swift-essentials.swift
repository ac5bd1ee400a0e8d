// FoundationEssentials (no ICU): JSON, dates and paths, then wait (memory-floor.sh).
import FoundationEssentials
import Glibc

let data = try! JSONEncoder().encode(["uptime": Date().timeIntervalSince1970])
print(data.count, URL(fileURLWithPath: "/tmp/x.jsonl").lastPathComponent)
sleep(3)
