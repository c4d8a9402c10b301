//! What the examples read of a process from /proc, for their CPU and I/O figures:
//! shared by `bus_rate` (nats-server's CPU) and `store_seconds` (its own), included
//! with `#[path]` (an example is a crate of its own, and the load tester's copy is
//! private to its crate).

/// user + system CPU seconds of `process` (a pid, or `self`): fields 14 and 15 of
/// /proc/PROCESS/stat, in clock ticks of 1/100 s (USER_HZ, which Linux fixes at 100 for
/// what /proc shows); None if unreadable.
pub fn cpu_seconds(process: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{process}/stat")).ok()?;
    // The command name may hold spaces; the fields after it are counted from its ')'.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / 100.0)
}

/// The bytes `process` (a pid, or `self`) has written by system calls (`wchar` of
/// /proc/PROCESS/io); None if unreadable.
#[allow(dead_code)] // bus_rate reads only the CPU.
pub fn written_bytes(process: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{process}/io"))
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("wchar: "))
        .and_then(|n| n.trim().parse().ok())
}
