//! Upgrades (SPEC section 11) with the real binary in its own process: `arcade
//! upgrade` through the control socket starts the binary now at the server's path,
//! which takes the port over while the old process stays its parent; and every way an
//! upgrade cannot happen leaves the old server serving, with the reason.
//!
//! Each server runs a copy of the test build from a folder of its own, so that a test
//! can put another program at that path, as an operator installs a new version.

use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Held by each test for its whole length. A binary being copied is open for writing,
/// and a child forked meanwhile by another test's thread holds that descriptor until
/// its exec: starting the copy then fails with "Text file busy". One test at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A server process on a port of its own, from a binary in a folder of its own.
struct Running {
    child: Child,
    port: u16,
    data: PathBuf,
    bin: PathBuf,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Running {
    /// The test build, copied, serving `args` as well.
    fn start(args: &[&str]) -> Running {
        let dir = tempfile::tempdir().expect("a folder");
        let bin = dir.path().join("arcade");
        install(&bin, Path::new(env!("CARGO_BIN_EXE_arcade")));
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the data directory");
        let port = free_port();
        let log = dir.path().join("server.log");
        let child = Command::new(&bin)
            .args(["serve", "--bind", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--data-dir")
            .arg(&data)
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the log"))
            .spawn()
            .expect("start arcade serve");
        let running = Running {
            child,
            port,
            data,
            bin,
            log,
            _dir: dir,
        };
        running.banner();
        running
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// Connect and read the banner, up to the lobby prompt: the server serves.
    fn banner(&self) -> TcpStream {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(mut stream) = TcpStream::connect(self.addr()) {
                let said = read_until(&mut stream, "> ");
                assert!(said.contains("> "), "{said}");
                return stream;
            }
            assert!(
                Instant::now() < deadline,
                "no server on {}: {}",
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `arcade upgrade --data-dir DATA`: whether it succeeded, and what it printed.
    fn upgrade(&self) -> (bool, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
            .arg("upgrade")
            .arg("--data-dir")
            .arg(&self.data)
            .output()
            .expect("arcade upgrade");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.success(), text)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM to the first process, and its exit code.
    fn stop(mut self) -> Option<i32> {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "did not stop: {}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Put `from` at `bin` as an operator installs a new version: a new file renamed over
/// the old one (writing into a running binary fails with "Text file busy").
fn install(bin: &Path, from: &Path) {
    let new = bin.with_extension("new");
    std::fs::copy(from, &new).expect("copy the binary");
    std::fs::rename(&new, bin).expect("rename it into place");
}

/// A script at `bin`, executable.
fn install_script(bin: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let new = bin.with_extension("new");
    std::fs::write(&new, script).expect("write the script");
    std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::rename(&new, bin).expect("rename it into place");
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Read until `end` has come (or 10 s, or the end of the stream).
fn read_until(stream: &mut TcpStream, end: &str) -> String {
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("a timeout");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut said = Vec::new();
    let mut buffer = [0u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                said.extend_from_slice(&buffer[..read]);
                if String::from_utf8_lossy(&said).ends_with(end) {
                    break;
                }
            }
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&said).into_owned()
}

/// The process id in `upgraded: process P ...`.
fn new_pid(answer: &str) -> u32 {
    answer
        .split_once("upgraded: process ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no process in {answer:?}"))
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .is_ok_and(|status| !status.contains("State:\tZ"))
}

#[test]
fn an_upgrade_hands_the_port_to_the_binary_now_on_disk_twice_over() {
    let _alone = one_at_a_time();
    let server = Running::start(&[]);
    let first = server.child.id();
    let (ok, answer) = server.upgrade();
    assert!(ok, "{answer}\n{}", server.log());
    let second = new_pid(&answer);
    assert_ne!(second, first);
    assert!(alive(second), "{answer}");
    // The same port, answered by the new process; the old one is still its parent.
    server.banner();
    assert!(alive(first));
    let lock = std::fs::read_to_string(server.data.join("arcade.lock")).expect("the lock");
    assert!(lock.contains(&format!("process {second}")), "{lock}");
    // The lock itself was handed over: a second server still cannot take the directory.
    let refused = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["serve", "--bind", "127.0.0.1", "--port"])
        .arg(free_port().to_string())
        .arg("--data-dir")
        .arg(&server.data)
        .output()
        .expect("a second arcade serve");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && said.contains("another arcade server is using it"),
        "{said}"
    );
    // The new server upgrades in turn, through the control socket it was handed.
    let (ok, answer) = server.upgrade();
    assert!(ok, "{answer}\n{}", server.log());
    let third = new_pid(&answer);
    assert!(third != second && alive(third), "{answer}");
    server.banner();
    assert!(server.log().contains("upgraded: the new server serves"));
    // A SIGTERM to the first process reaches the server through the chain: all stop.
    let log = server.log.clone();
    assert_eq!(server.stop(), Some(0));
    // The old processes' own tasks stopped with them: nothing went wrong meanwhile.
    let log = std::fs::read_to_string(log).unwrap_or_default();
    assert!(!log.contains(" ERROR "), "{log}");
    for pid in [second, third] {
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(pid) {
            assert!(Instant::now() < deadline, "process {pid} still runs");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn an_upgrade_that_cannot_happen_leaves_the_old_server_serving() {
    let _alone = one_at_a_time();
    let server = Running::start(&[]);
    let pid = server.child.id();

    // Someone is connected: refused, and the session goes on.
    let mut player = server.banner();
    let (ok, answer) = server.upgrade();
    assert!(!ok, "{answer}");
    assert!(
        answer.contains("upgrade failed: 1 session is connected"),
        "{answer}"
    );
    player.write_all(b"who\r\n").expect("send");
    let said = read_until(&mut player, "> ");
    assert!(said.contains("guest-"), "{said}");
    drop(player);
    // The registry lets the session go a moment after its socket closes.
    std::thread::sleep(Duration::from_millis(300));

    // The binary on disk does not run: refused with its exit status.
    install_script(&server.bin, "#!/bin/sh\nexit 3\n");
    let (ok, answer) = server.upgrade();
    assert!(!ok, "{answer}");
    assert!(
        answer.contains("upgrade failed: the new server")
            && answer.contains("exited (exit status: 3) before it took over"),
        "{answer}"
    );
    server.banner();

    // A new server that reads another hand-over format: refused, and it is stopped.
    match python3() {
        Ok(python) => {
            install_script(
                &server.bin,
                &format!(
                    "#!{python}\nimport json, os, socket, struct, time\ns = socket.socket(socket.AF_UNIX)\ns.connect(os.environ['ARCADE_TAKE_OVER'])\nhello = json.dumps({{'format': 999, 'version': '9.9.9', 'pid': os.getpid()}}).encode()\ns.sendall(struct.pack('>I', len(hello)) + hello)\ntime.sleep(30)\n"
                ),
            );
            let (ok, answer) = server.upgrade();
            assert!(!ok, "{answer}");
            assert!(
                answer.contains("the new server (9.9.9) reads hand-over format 999"),
                "{answer}"
            );
        }
        Err(why) => println!("skipped the format's refusal: {why}"),
    }
    server.banner();

    // SIGUSR2 asks the same; the answer goes to the log.
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&server.child),
        rustix::process::Signal::USR2,
    )
    .expect("SIGUSR2");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.log().contains("by=SIGUSR2") {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    server.banner();
    assert_eq!(server.child.id(), pid);
    assert!(server.log().contains("upgrade failed: this server goes on"));
    assert_eq!(server.stop(), Some(0));
}

/// python3's path, or why a test cannot use it (CI=true fails instead: `.ci/run`
/// installs it).
fn python3() -> Result<String, String> {
    let found = Command::new("sh")
        .args(["-c", "command -v python3"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    match found {
        Some(path) if !path.is_empty() => Ok(path),
        _ if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("python3 is not installed, and CI=true")
        }
        _ => Err(String::from("python3 is not installed")),
    }
}
