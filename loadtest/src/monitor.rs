//! What the run watches while its sessions play: a progress line every second, and
//! with `--server-pid` the server's memory and CPU time, read from /proc.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use crate::options::{Error, Options};
use crate::plan::Plan;
use crate::report::ServerMemory;
use crate::stats::{self, Recorder};

/// What `--server-pid` found out about the server.
#[derive(Default)]
pub(crate) struct ServerSamples {
    /// Memory when the measured window began.
    pub(crate) memory: Option<ServerMemory>,
    /// CPU seconds used in the measured window.
    pub(crate) cpu: Option<f64>,
}

/// Until the end of the run: a progress line every second, and with `--server-pid`
/// the server's memory when the measured window begins and its CPU time across it.
pub(crate) async fn watch(
    plan: &Plan,
    recorder: &Recorder,
    options: &Options,
    rss_before: Option<u64>,
) -> ServerSamples {
    let mut ticker =
        tokio::time::interval_at(plan.start + Duration::from_secs(1), Duration::from_secs(1));
    let mut samples = ServerSamples::default();
    let mut cpu_at_start = None;
    let mut sampled = options.server_pid.is_none();
    loop {
        tokio::select! {
            _ = ticker.tick() => {
                let now = Instant::now();
                let interval = recorder.take_interval();
                if !options.quiet {
                    let phase = if now < plan.start + plan.ramp {
                        "ramp"
                    } else if now < plan.measure_start {
                        "warm-up"
                    } else {
                        "measure"
                    };
                    eprintln!("{}", stats::progress_line(now - plan.start, phase, recorder, plan.total(), &interval));
                }
            }
            () = tokio::time::sleep_until(plan.measure_start), if !sampled => {
                sampled = true;
                if let (Some(pid), Some(before)) = (options.server_pid, rss_before) {
                    samples.memory = sample_memory(pid, before, recorder);
                    cpu_at_start = note_failure(read_cpu_seconds(pid));
                }
            }
            () = tokio::time::sleep_until(plan.end) => {
                if let (Some(pid), Some(start)) = (options.server_pid, cpu_at_start) {
                    samples.cpu = note_failure(read_cpu_seconds(pid)).map(|end| end - start);
                }
                return samples;
            }
        }
    }
}

/// A sample that could not be read is left out of the report, with a note why.
fn note_failure<T>(sample: Result<T, Error>) -> Option<T> {
    sample.map_err(|error| eprintln!("note: {error}")).ok()
}

fn sample_memory(pid: u32, before: u64, recorder: &Recorder) -> Option<ServerMemory> {
    let after = note_failure(read_rss(pid))?;
    let sessions_in_game = recorder.ready.load(Ordering::Relaxed);
    let grown = after.saturating_sub(before) as f64 * 1024.0;
    Some(ServerMemory {
        pid,
        rss_before_kib: before,
        rss_after_kib: after,
        sessions_in_game,
        bytes_per_session: grown / sessions_in_game.max(1) as f64,
    })
}

/// The CPU time (user and system) process `pid` has used so far, in seconds, from
/// `/proc/PID/stat`.
#[allow(unsafe_code)] // the clock tick rate has no safe std call; see SAFETY below
pub(crate) fn read_cpu_seconds(pid: u32) -> Result<f64, Error> {
    read_proc(pid, "stat", |stat| {
        let ticks = parse_cpu_ticks(stat).ok_or("no utime/stime")?;
        // SAFETY: sysconf only reads a configuration value.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if per_second <= 0 {
            return Err("no clock tick rate");
        }
        Ok(ticks as f64 / per_second as f64)
    })
}

/// utime + stime from a `/proc/PID/stat` line, in clock ticks. The command name (the
/// second field) may hold spaces and parentheses, so fields are counted after its
/// closing parenthesis: utime and stime are fields 14 and 15 of the line.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// The resident set size of process `pid`, in KiB, from `/proc/PID/status`.
pub(crate) fn read_rss(pid: u32) -> Result<u64, Error> {
    read_proc(pid, "status", |status| {
        parse_vm_rss(status).ok_or("no VmRSS line")
    })
}

/// Reads `/proc/PID/FILE` and takes what `parse` finds in it.
fn read_proc<T>(
    pid: u32,
    file: &'static str,
    parse: impl FnOnce(&str) -> Result<T, &'static str>,
) -> Result<T, Error> {
    let error = |reason: String| Error::Server { pid, file, reason };
    let text =
        std::fs::read_to_string(format!("/proc/{pid}/{file}")).map_err(|e| error(e.to_string()))?;
    parse(&text).map_err(|reason| error(String::from(reason)))
}

/// The `VmRSS:   1234 kB` line of a `/proc/PID/status` text, in KiB.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_kib() {
        let status = "Name:\tarcade\nVmPeak:\t  9000 kB\nVmRSS:\t    4242 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss(status), Some(4242));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
    }

    #[test]
    fn cpu_ticks_are_utime_plus_stime() {
        // A command name with a space and a parenthesis, as /proc allows.
        let stat = "4242 (my (server)) S 1 4242 4242 0 -1 4194560 500 0 0 0 120 34 0 0 20 0 3 0";
        assert_eq!(parse_cpu_ticks(stat), Some(154));
        assert_eq!(parse_cpu_ticks("4242 (x) S 1"), None);
    }

    #[test]
    fn own_cpu_time_is_readable() {
        let before = read_cpu_seconds(std::process::id()).unwrap();
        // Burn a little CPU so the reading can only go up.
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let after = read_cpu_seconds(std::process::id()).unwrap();
        assert!(after >= before && x != 1);
    }

    #[test]
    fn own_memory_is_readable() {
        let rss = read_rss(std::process::id()).unwrap();
        assert!(rss > 0);
    }
}
