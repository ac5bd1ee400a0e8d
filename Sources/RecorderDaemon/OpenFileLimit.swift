import FoundationEssentials
import Glibc
import Logging
import RecorderModel

/// The process's open-file limit (RLIMIT_NOFILE) against what the configured limits need.
enum OpenFileLimit {
    /// Raises the soft limit to what `needed` asks for (up to the hard limit) and warns when even
    /// the hard limit is below it; returns the soft limit now in force.
    @discardableResult
    static func ensure(_ needed: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
        let wanted = rlim_t(needed)
        if limit.rlim_cur < wanted, limit.rlim_max > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, max(wanted, limit.rlim_cur))
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let soft = Int(clamping: limit.rlim_cur)
        if soft < needed {
            logger.warning("the open-file limit is below what the configured limits need; connections and task runs beyond what it allows are refused before a limit is reached (raise LimitNOFILE)",
                           metadata: ["limit": "\(soft)", "needed": "\(needed)"])
        }
        return soft
    }

    /// The soft limit in force.
    static var soft: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max / 2 }
        return Int(clamping: limit.rlim_cur)
    }
}
