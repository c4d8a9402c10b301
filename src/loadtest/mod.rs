//! `arcade loadtest`: many concurrent players against a server, measured.
//!
//! Each session connects (spread over several loopback source addresses), reads the
//! banner, starts a game from the lobby and plays it with real commands from a
//! [`Script`], timing every command from the moment it is due to the next prompt.
//!
//! - **Open loop** (`--rate R`, R > 0): each session sends R commands a second on a
//!   fixed schedule, with a random phase so sessions do not fire together. A command
//!   is timed from its send to the next prompt; when a slow reply made it go out late,
//!   from when it was *due*, so the wait counts against the latency instead of hiding
//!   it (no coordinated omission).
//! - **Closed loop** (`--rate 0`): each session sends its next command as soon as the
//!   previous reply is complete; this measures throughput.
//! - **Idle** (`--idle`): sessions start their game and then sit; with
//!   `--server-pid` this measures the server's memory per in-game session.
//!
//! With `--server-pid` (a server on this machine) the report also gives the CPU time
//! the server used in the measured window, per command: a cost that a noisy machine
//! disturbs far less than it disturbs latency.
//!
//! The timeline: connects are spread over the ramp (`--ramp`, by default 1 ms per
//! session; `--burst` connects all at once), then a warm-up (`--warmup`) whose
//! commands are not counted, then the measured window (`--duration`). Sessions stay
//! connected until the window ends: a disconnect inside it would be timed along with
//! the commands. A progress line goes to stderr every second; the [`Report`] is the
//! summary.

mod connection;
mod driver;
mod script;
mod stats;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::server;
use connection::Waiting;
use stats::Recorder;

pub use script::Script;
pub use stats::{Latency, Report, ServerCpu, ServerMemory};

/// Everything `arcade loadtest` can be told.
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// The server to test.
    #[arg(long, default_value = "127.0.0.1:4000")]
    pub addr: SocketAddr,
    /// How many sessions at once (capped by the open-file limit, which is raised to
    /// its hard maximum first).
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    /// Commands per second per session; 0 sends each command as soon as the previous
    /// reply arrives (closed loop).
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Start the game and send nothing more (for measuring memory per session).
    #[arg(long, conflicts_with = "rate")]
    pub idle: bool,
    /// How long to measure, after the ramp and the warm-up, e.g. 30s, 2m.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub duration: Duration,
    /// How long to play before measuring (not counted).
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pub warmup: Duration,
    /// Spread the connects evenly over this long [default: 1 ms per session].
    #[arg(long, value_parser = humantime::parse_duration, conflicts_with = "burst")]
    pub ramp: Option<Duration>,
    /// Open every connection at once.
    #[arg(long)]
    pub burst: bool,
    /// The game to play.
    #[arg(long, default_value = "sokoban", value_parser = Script::value_parser())]
    pub game: Script,
    /// Spread connections over this many source addresses, 127.0.0.1 to 127.0.0.N
    /// (only when --addr is an IPv4 loopback address).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..))]
    pub sources: u8,
    /// Give up on a session whose reply (or banner) takes longer than this.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// A server on this machine: report its resident memory per session (from
    /// /proc/PID/status, before the sessions and when the measured window begins) and
    /// the CPU time it used in the measured window (from /proc/PID/stat).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            sessions: 100,
            rate: 1.0,
            idle: false,
            duration: Duration::from_secs(30),
            warmup: Duration::from_secs(5),
            ramp: None,
            burst: false,
            game: Script::default(),
            sources: 8,
            timeout: Duration::from_secs(10),
            server_pid: None,
            json: false,
            quiet: false,
        }
    }
}

/// Options that cannot make a load test.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--rate` is negative, NaN or infinite.
    #[error("--rate must be a number of commands per second, 0 or more (got {0})")]
    Rate(f64),
    /// `--sessions 0`.
    #[error("--sessions must be at least 1")]
    NoSessions,
    /// `--duration 0s`.
    #[error("--duration must be longer than zero")]
    NoDuration,
    /// `--server-pid` names a process whose /proc files cannot be read.
    #[error(
        "cannot read /proc/{pid}/{file} (is --server-pid a process on this machine?): {reason}"
    )]
    Server {
        /// The process.
        pid: u32,
        /// The file under /proc/PID.
        file: &'static str,
        /// What went wrong.
        reason: String,
    },
}

/// Why one session failed; its text is the reason the report counts.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The TCP connect failed.
    #[error("connect: {0}")]
    Connect(std::io::Error),
    /// The server turned the session away.
    #[error("server full")]
    ServerFull,
    /// Nothing (or no prompt) within `--timeout`.
    #[error("timed out waiting for {0}")]
    Timeout(Waiting),
    /// The server closed the connection.
    #[error("closed by the server while waiting for {waiting}{}", last_line(.last))]
    Closed {
        /// What we were waiting for.
        waiting: Waiting,
        /// The last line received, if any.
        last: String,
    },
    /// The lobby prompt came instead of the game's, or the other way round.
    #[error("got the {got} prompt while waiting for {waiting}")]
    WrongPrompt {
        /// What we were waiting for.
        waiting: Waiting,
        /// The prompt that came.
        got: String,
    },
    /// A reply grew past any board without a prompt.
    #[error("no prompt in 64 KiB while waiting for {0}")]
    TooLong(Waiting),
    /// Reading failed (e.g. reset by the server).
    #[error("read: {0}")]
    Read(std::io::Error),
    /// Writing failed.
    #[error("write: {0}")]
    Write(std::io::Error),
}

fn last_line(last: &str) -> String {
    if last.is_empty() {
        String::new()
    } else {
        format!(" (last line: {last:?})")
    }
}

/// How sessions send commands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// One command every this long.
    Open(Duration),
    /// The next command on each reply.
    Closed,
    /// No commands.
    Idle,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Open(_) => "open",
            Mode::Closed => "closed",
            Mode::Idle => "idle",
        }
    }
}

/// The fixed facts of one run, shared by its sessions.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) target: SocketAddr,
    pub(crate) sources: Vec<Ipv4Addr>,
    pub(crate) script: Script,
    pub(crate) mode: Mode,
    pub(crate) timeout: Duration,
    pub(crate) sessions: usize,
    pub(crate) start: Instant,
    pub(crate) ramp: Duration,
    pub(crate) measure_start: Instant,
    pub(crate) end: Instant,
}

impl Plan {
    /// When session `index` connects: evenly over the ramp.
    pub(crate) fn connect_at(&self, index: usize) -> Instant {
        let fraction = index as f64 / self.sessions as f64;
        self.start + self.ramp.mul_f64(fraction)
    }

    /// The source address of session `index`, if connections are spread.
    pub(crate) fn source(&self, index: usize) -> Option<Ipv4Addr> {
        (!self.sources.is_empty()).then(|| self.sources[index % self.sources.len()])
    }

    /// Whether a command due at `due` falls in the measured window.
    pub(crate) fn is_measured(&self, due: Instant) -> bool {
        due >= self.measure_start && due < self.end
    }
}

/// Run a load test as `options` say, printing progress lines to stderr unless quiet,
/// and return the report. Must run inside a tokio runtime (multi-thread, preferably).
///
/// # Errors
/// The options are out of range, or `--server-pid` cannot be read.
pub async fn run(options: &Options) -> Result<Report, Error> {
    if !options.rate.is_finite() || options.rate < 0.0 {
        return Err(Error::Rate(options.rate));
    }
    if options.sessions == 0 {
        return Err(Error::NoSessions);
    }
    if options.duration.is_zero() {
        return Err(Error::NoDuration);
    }
    let capacity = server::session_capacity();
    let sessions = options.sessions.min(capacity);
    let capped = (sessions < options.sessions).then_some(capacity);
    let mode = if options.idle {
        Mode::Idle
    } else if options.rate == 0.0 {
        Mode::Closed
    } else {
        Mode::Open(Duration::from_secs_f64(1.0 / options.rate))
    };
    let rss_before = options.server_pid.map(read_rss).transpose()?;
    let ramp = if options.burst {
        Duration::ZERO
    } else {
        options
            .ramp
            .unwrap_or(Duration::from_millis(1).saturating_mul(saturate(sessions)))
    };
    let start = Instant::now();
    let measure_start = start + ramp + options.warmup;
    let plan = Arc::new(Plan {
        target: options.addr,
        sources: connection::sources(options.addr, options.sources),
        script: options.game,
        mode,
        timeout: options.timeout,
        sessions,
        start,
        ramp,
        measure_start,
        end: measure_start + options.duration,
    });
    let recorder = Arc::new(Recorder::new(!options.quiet));
    let mut tasks = JoinSet::new();
    for index in 0..sessions {
        tasks.spawn(driver::session(
            index,
            Arc::clone(&plan),
            Arc::clone(&recorder),
        ));
    }
    let server = watch(&plan, &recorder, options, rss_before).await;
    // Sessions waiting for a reply at the end get their timeout to finish.
    let grace = plan.end + options.timeout + Duration::from_secs(1);
    while let Ok(Some(_)) = tokio::time::timeout_at(grace, tasks.join_next()).await {}
    let stragglers = tasks.len();
    if stragglers > 0 {
        tasks.abort_all();
        for _ in 0..stragglers {
            recorder.failure(String::from("still running after the end"));
        }
    }
    let measured = recorder.measured();
    let seconds = options.duration.as_secs_f64();
    let server_cpu = server.cpu.map(|seconds| ServerCpu {
        seconds,
        us_per_command: (!measured.is_empty()).then(|| seconds * 1e6 / measured.len() as f64),
    });
    Ok(Report {
        addr: options.addr.to_string(),
        game: options.game,
        mode: mode.name(),
        rate: if matches!(mode, Mode::Open(_)) {
            options.rate
        } else {
            0.0
        },
        sessions_requested: options.sessions,
        sessions,
        capped_by_open_files: capped,
        source_addresses: plan.sources.len(),
        connected: recorder.connected.load(Ordering::Relaxed),
        failures: recorder.failed.load(Ordering::Relaxed),
        failure_reasons: recorder.failure_reasons(),
        commands: measured.len(),
        measured_seconds: seconds,
        commands_per_second: measured.len() as f64 / seconds,
        latency: Latency::of(&measured),
        connect: Latency::of(&recorder.connects()),
        server_memory: server.memory,
        server_cpu,
        latency_histogram: stats::buckets(&measured),
    })
}

fn saturate(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// What `--server-pid` found out about the server.
#[derive(Default)]
struct ServerSamples {
    /// Memory when the measured window began.
    memory: Option<ServerMemory>,
    /// CPU seconds used in the measured window.
    cpu: Option<f64>,
}

/// Until the end of the run: a progress line every second, and with `--server-pid`
/// the server's memory when the measured window begins and its CPU time across it.
async fn watch(
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
                    eprintln!("{}", stats::progress_line(now - plan.start, phase, recorder, plan.sessions, &interval));
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
    let sessions_in_game = recorder.in_game.load(Ordering::Relaxed);
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
fn read_cpu_seconds(pid: u32) -> Result<f64, Error> {
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
fn read_rss(pid: u32) -> Result<u64, Error> {
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

    #[test]
    fn connects_are_spread_over_the_ramp_and_sources() {
        let start = Instant::now();
        let plan = Plan {
            target: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            sources: connection::sources(SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)), 2),
            script: Script::default(),
            mode: Mode::Closed,
            timeout: Duration::from_secs(1),
            sessions: 4,
            start,
            ramp: Duration::from_secs(4),
            measure_start: start + Duration::from_secs(5),
            end: start + Duration::from_secs(6),
        };
        assert_eq!(plan.connect_at(0), start);
        assert_eq!(plan.connect_at(3), start + Duration::from_secs(3));
        assert_eq!(plan.source(0), Some(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(plan.source(3), Some(Ipv4Addr::new(127, 0, 0, 2)));
        assert!(!plan.is_measured(start + Duration::from_millis(4999)));
        assert!(plan.is_measured(start + Duration::from_secs(5)));
        assert!(!plan.is_measured(start + Duration::from_secs(6)));
    }

    #[tokio::test]
    async fn bad_options_are_refused() {
        let options = Options {
            rate: -1.0,
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::Rate(_))));
        let options = Options {
            sessions: 0,
            ..Options::default()
        };
        assert!(matches!(run(&options).await, Err(Error::NoSessions)));
    }
}
