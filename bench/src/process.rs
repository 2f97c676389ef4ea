//! Figures of this process from `/proc` (Linux; 0 elsewhere): resident
//! memory, minor page faults and threads.

/// A memory figure of this process from `/proc/self/status` (`VmHWM`:
/// peak resident, `VmRSS`: resident now), in MB (Linux; 0 elsewhere).
fn status_mb(key: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| {
                    l.strip_prefix(key)
                        .is_some_and(|rest| rest.starts_with(':'))
                })
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Peak resident memory of this process, in MB.
pub(crate) fn peak_rss_mb() -> f64 {
    status_mb("VmHWM")
}

/// Minor page faults of this process so far (Linux; 0 elsewhere): the
/// pages it touched for the first time, or again after the allocator gave
/// them back.
pub(crate) fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // The fields after the command name, which is in parentheses.
            let rest = &s[s.rfind(')')? + 2..];
            rest.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Resident memory of this process now, in MB.
pub(crate) fn rss_mb() -> f64 {
    status_mb("VmRSS")
}

/// The threads of this process now (Linux; 0 elsewhere).
pub(crate) fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}
