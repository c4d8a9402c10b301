//! A throwaway PostgreSQL for tests: `initdb` into a temporary directory, a free
//! loopback port, its unix socket in that directory, `pg_ctl -w start`; stopped with
//! its files removed when dropped. PostgreSQL refuses to run as root, so as root the
//! programs run as Debian's `postgres` user, the directory given to it. The programs
//! are looked for on PATH, then in /usr/lib/postgresql/*/bin (Debian's place). Without
//! them a test prints `skipped: ...` and passes, except under `CI=true`, where it fails
//! (`.ci/run` installs Debian's `postgresql`).

use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A running throwaway PostgreSQL cluster; its superuser is `arcade`, trusted on
/// loopback (no password).
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// The user the programs run as (`postgres` when the test runs as root).
    user: Option<&'static str>,
}

/// The directory of `initdb` and `pg_ctl`, if PostgreSQL is installed.
fn binaries() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).find(|dir| {
            ["initdb", "pg_ctl", "createdb"]
                .iter()
                .all(|program| dir.join(program).is_file())
        })
    });
    if on_path.is_some() {
        return on_path;
    }
    // Debian keeps them out of PATH, one directory per major version: the newest.
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

impl Postgres {
    /// Start one, or `None` (after printing `skipped: ...`) when PostgreSQL is not
    /// installed; under `CI=true` that fails the test instead.
    pub fn start() -> Option<Postgres> {
        let Some(bin) = binaries() else {
            if std::env::var("CI").is_ok_and(|ci| ci == "true") {
                panic!("initdb: not found on PATH nor in /usr/lib/postgresql/*/bin (CI=true: .ci/run installs Debian's postgresql)");
            }
            println!("skipped: PostgreSQL is not installed (apt-get install postgresql)");
            return None;
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = std::fs::metadata("/proc/self")
            .map(|meta| meta.uid() == 0)
            .unwrap_or(false);
        let user = root.then_some("postgres");
        if let Some(user) = user {
            let status = Command::new("chown")
                .arg(format!("{user}:"))
                .arg(dir.path())
                .status()
                .expect("run chown");
            assert!(
                status.success(),
                "chown {user} {}: {status}",
                dir.path().display()
            );
        }
        let postgres = Postgres {
            dir,
            bin,
            port: free_port(),
            user,
        };
        postgres.run(
            "initdb",
            &[
                "-D",
                &postgres.data(),
                "-U",
                "arcade",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        postgres.start_again();
        Some(postgres)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// Run one of PostgreSQL's programs (as `postgres` when root), which must succeed.
    fn run(&self, program: &str, args: &[&str]) {
        let path = self.bin.join(program);
        let mut command = match self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(&path);
                command
            }
            None => Command::new(&path),
        };
        let output = command
            .args(args)
            .output()
            .unwrap_or_else(|error| panic!("run {program}: {error}"));
        assert!(
            output.status.success(),
            "{program} {args:?}: {}\n{}{}\nits log:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `name`, created empty now.
    pub fn database(&self, name: &str) -> String {
        self.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "arcade",
                name,
            ],
        );
        self.url(name)
    }

    /// The URL of database `name` (which must exist).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://arcade@127.0.0.1:{}/{name}", self.port)
    }

    /// Stop it (fast: the connections are cut as a crash would).
    pub fn stop(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    /// Start it (again) on the same port, waiting until it accepts connections.
    pub fn start_again(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").display().to_string();
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log,
                "-o",
                &options,
                "-w",
                "start",
            ],
        );
    }

    /// The postmaster and its children: every process of the cluster.
    fn processes(&self) -> Vec<u32> {
        let pid_file = Path::new(&self.data()).join("postmaster.pid");
        let Some(postmaster) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|text| text.lines().next()?.trim().parse::<u32>().ok())
        else {
            return Vec::new();
        };
        let mut pids = vec![postmaster];
        for entry in std::fs::read_dir("/proc")
            .expect("/proc")
            .filter_map(Result::ok)
        {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `PID (COMM) STATE PPID ...`: the command may hold spaces, so after its `)`.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse::<u32>().ok());
            if parent == Some(postmaster) {
                pids.push(pid);
            }
        }
        pids
    }

    fn signal(&self, signal: &str) {
        let pids: Vec<String> = self.processes().iter().map(u32::to_string).collect();
        assert!(!pids.is_empty(), "PostgreSQL is not running");
        // A child may end between the listing and the signal: kill says so on
        // stderr and signals the others.
        Command::new("kill")
            .arg(format!("-{signal}"))
            .args(&pids)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("run kill");
    }

    /// Freeze every process of the cluster (SIGSTOP): a database that answers nothing.
    pub fn freeze(&self) {
        self.signal("STOP");
    }

    /// Let it go on (SIGCONT).
    pub fn thaw(&self) {
        self.signal("CONT");
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // A frozen cluster would not stop: let it go on first. Errors are moot here.
        let pids = self.processes();
        if !pids.is_empty() {
            let _ = Command::new("kill")
                .arg("-CONT")
                .args(pids.iter().map(u32::to_string))
                .stderr(std::process::Stdio::null())
                .status();
        }
        let path = self.bin.join("pg_ctl");
        let data = self.data();
        let args = ["-D", data.as_str(), "-m", "immediate", "-w", "stop"];
        let _ = match self.user {
            Some(user) => Command::new("runuser")
                .args(["-u", user, "--"])
                .arg(&path)
                .args(args)
                .output(),
            None => Command::new(&path).args(args).output(),
        };
    }
}
