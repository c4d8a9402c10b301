//! Shared helpers for tests over real TCP: a server on port 0 inside the test, and a
//! client that reads up to a marker with a timeout; [`browser`], a headless Chromium
//! for tests of the web page; [`cluster`], several instances as processes behind
//! HAProxy, and nats-server; [`postgres`], a throwaway PostgreSQL; [`screen`], a
//! terminal in tmux to type into and read.
#![allow(dead_code)] // each test binary uses its own subset

pub mod bot;
pub mod browser;
pub mod cluster;
pub mod http;
pub mod keys;
pub mod postgres;
pub mod screen;
pub mod test_server;

pub use test_server::{TestServer, TIMEOUT};

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `../shared/data/levels`, the public collections beside the repository. Without it
/// a test says `skipped: ...` and passes, except under `CI=true`, where it fails: CI
/// always has `../shared`.
pub fn shared_levels() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/levels");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|ci| ci == "true") {
        panic!(
            "{}: not found (CI=true: ../shared must be there)",
            dir.display()
        );
    }
    eprintln!("skipped: {} not found", dir.display());
    None
}

/// `arcade serve` as its own process on 127.0.0.1 and a free port, with a temporary
/// data directory and `args` added: the process, its address, its log (stderr), read
/// up to the line that says where it listens (drop it to close the pipe), and the data
/// directory (removed when dropped).
pub fn spawn_server_process(
    args: &[&str],
) -> (
    std::process::Child,
    SocketAddr,
    std::io::BufReader<std::process::ChildStderr>,
    tempfile::TempDir,
) {
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (child, addr, log) = spawn_server_in(data.path(), args);
    (child, addr, log, data)
}

/// [`spawn_server_process`] with its data in `data_dir`.
pub fn spawn_server_in(
    data_dir: &Path,
    args: &[&str],
) -> (
    std::process::Child,
    SocketAddr,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let (child, addr, log, _) = spawn_server_logged(data_dir, args);
    (child, addr, log)
}

/// [`spawn_server_in`], and the log up to the line that says where it listens.
pub fn spawn_server_logged(
    data_dir: &Path,
    args: &[&str],
) -> (
    std::process::Child,
    SocketAddr,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(data_dir)
        .args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arcade serve");
    let mut log = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    let mut seen = String::new();
    let port = loop {
        line.clear();
        if log.read_line(&mut line).expect("read the log") == 0 {
            // The server ended before listening: say how, and what it logged.
            let status = child.wait();
            panic!("no listening line; the server exited with {status:?} after logging:\n{seen}");
        }
        seen.push_str(&line);
        if let Some(rest) = line.split("address=127.0.0.1:").nth(1) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            break digits.parse::<u16>().expect("a port");
        }
    };
    (
        child,
        SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        log,
        seen,
    )
}

/// A TCP connection to `server` from the loopback address `source` (any 127.x.y.z
/// reaches a server on 127.0.0.1): another desk, as far as the server can tell.
/// Nothing is read.
pub async fn stream_from(source: [u8; 4], server: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::from((source, 0)))
        .expect("bind a loopback address");
    socket.connect(server).await.expect("connect")
}

/// The resident memory of process `pid` in bytes, from `/proc`.
pub fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .expect("VmRSS");
    kib * 1024
}

/// A client that keeps what it has received but not yet consumed.
pub struct Client {
    stream: TcpStream,
    received: Vec<u8>,
}

impl Client {
    /// Connect and consume the banner, up to and including the lobby prompt.
    pub async fn connect(addr: SocketAddr) -> Client {
        let mut client = Client::connect_raw(addr).await;
        let banner = client.read_until("> ").await;
        assert!(banner.starts_with("Welcome to arcade!"), "{banner:?}");
        client
    }

    /// Connect without reading anything.
    pub async fn connect_raw(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).await.expect("connect");
        Client::from_stream(stream)
    }

    /// A client on a stream connected elsewhere (from a chosen source address, say).
    pub fn from_stream(stream: TcpStream) -> Client {
        Client {
            stream,
            received: Vec::new(),
        }
    }

    /// Send a line with a CR LF ending.
    pub async fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\r\n").as_bytes()).await;
    }

    /// Send bytes as they are.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("send");
    }

    /// Close the sending side (end of file for the server).
    pub async fn shutdown_write(&mut self) {
        self.stream.shutdown().await.expect("shutdown");
    }

    /// Everything up to and including the first `marker`, as text.
    pub async fn read_until(&mut self, marker: &str) -> String {
        let bytes = self.read_until_bytes(marker.as_bytes()).await;
        String::from_utf8(bytes).expect("UTF-8 from the server")
    }

    /// Everything up to and including the first `marker`, as text without the telnet
    /// commands in it (the `IAC WILL ECHO` / `IAC WONT ECHO` around a password, checked
    /// byte for byte where they matter).
    pub async fn read_text_until(&mut self, marker: &str) -> String {
        let bytes = self.read_until_bytes(marker.as_bytes()).await;
        let mut kept = Vec::new();
        let mut rest = &bytes[..];
        while let Some((&first, tail)) = rest.split_first() {
            if first == 0xff && tail.len() >= 2 {
                rest = &tail[2..];
            } else {
                kept.push(first);
                rest = tail;
            }
        }
        String::from_utf8(kept).expect("UTF-8 from the server")
    }

    /// Everything up to and including the first `marker`, as bytes.
    pub async fn read_until_bytes(&mut self, marker: &[u8]) -> Vec<u8> {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            if let Some(at) = find(&self.received, marker) {
                let rest = self.received.split_off(at + marker.len());
                return std::mem::replace(&mut self.received, rest);
            }
            let mut chunk = [0u8; 4096];
            let read = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await;
            match read {
                Ok(Ok(0)) => panic!(
                    "connection closed before {:?}; received {:?}",
                    String::from_utf8_lossy(marker),
                    String::from_utf8_lossy(&self.received)
                ),
                Ok(Ok(n)) => self.received.extend_from_slice(&chunk[..n]),
                Ok(Err(error)) => panic!("read failed: {error}"),
                Err(_) => panic!(
                    "timed out waiting for {:?}; received {:?}",
                    String::from_utf8_lossy(marker),
                    String::from_utf8_lossy(&self.received)
                ),
            }
        }
    }

    /// Everything until the server closes the connection.
    pub async fn read_to_end(&mut self) -> String {
        String::from_utf8(self.read_to_end_bytes().await).expect("UTF-8 from the server")
    }

    /// Everything until the server closes the connection, as bytes (telnet refusals
    /// included).
    pub async fn read_to_end_bytes(&mut self) -> Vec<u8> {
        let mut rest = Vec::new();
        tokio::time::timeout(TIMEOUT, self.stream.read_to_end(&mut rest))
            .await
            .expect("server closes in time")
            .expect("read to end");
        let mut all = std::mem::take(&mut self.received);
        all.extend_from_slice(&rest);
        all
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The classic level's transcript from the seed: the commands typed, and the exact
/// output with `\n` endings (what `arcade play` prints; the server sends `\r\n`).
pub struct Transcript {
    pub commands: Vec<String>,
    pub output: String,
}

/// Split the seed transcript into typed commands and server output.
pub fn classic_transcript() -> Transcript {
    let text = include_str!("../data/classic_transcript.txt");
    let mut commands = Vec::new();
    let mut output = String::new();
    for line in text.lines() {
        match line.strip_prefix(arcade::games::PROMPT) {
            Some(command) => {
                output.push_str(arcade::games::PROMPT);
                commands.push(command.to_string());
            }
            None => {
                output.push_str(line);
                output.push('\n');
            }
        }
    }
    Transcript { commands, output }
}

/// `\n` to `\r\n`, as the server sends it.
pub fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

/// A new connection that registers `name` with `password`.
pub async fn registered(addr: SocketAddr, name: &str, password: &str) -> Client {
    let mut client = Client::connect(addr).await;
    client.send(&format!("name {name}")).await;
    assert_eq!(
        client.read_text_until("> ").await,
        format!("You are now {name}.\r\n> ")
    );
    register(&mut client, password).await;
    client
}

/// A new connection logged in as the admin `name`, whose password is set out of band
/// first (nobody can `register` an `--admin` name).
pub async fn admin(server: &TestServer, name: &str, password: &str) -> Client {
    server.set_password(name, password).await;
    let (client, said) = log_in(server.addr, name, password).await;
    assert!(said.contains(&format!("You are now {name}.")), "{said}");
    client
}

/// `arcade admin set-password NAME ARGS...` with `password` on its standard input, as
/// a teacher's script would run it; what it printed.
pub fn set_password_with_cli(name: &str, password: &str, args: &[&str]) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["admin", "set-password", name])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start arcade admin set-password");
    child
        .stdin
        .take()
        .expect("its stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("write the password");
    let output = child
        .wait_with_output()
        .expect("arcade admin set-password ends");
    assert!(
        output.status.success(),
        "arcade admin set-password failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `register` the name `client` has, with `password`.
pub async fn register(client: &mut Client, password: &str) {
    client.send("register").await;
    client.read_text_until("Choose a password: ").await;
    client.send(password).await;
    client.read_text_until("Type it again: ").await;
    client.send(password).await;
    assert!(client.read_text_until("> ").await.contains("is registered"));
}

/// A new connection logged in as `name`; what the login said.
pub async fn log_in(addr: SocketAddr, name: &str, password: &str) -> (Client, String) {
    let mut client = Client::connect(addr).await;
    client.send(&format!("name {name}")).await;
    client.read_text_until("Password: ").await;
    client.send(password).await;
    let said = client.read_text_until("> ").await;
    (client, said)
}

/// Ask `line` until the answer contains `wanted` (results enter the leaderboards once
/// the server has replayed them, a moment after the game).
pub async fn eventually(client: &mut Client, line: &str, wanted: &str) -> String {
    for _ in 0..50 {
        client.send(line).await;
        let answer = client.read_text_until("> ").await;
        if answer.contains(wanted) {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{line} never showed {wanted:?}");
}

/// The program `name` on PATH, or why a test cannot run: without it a test prints
/// `skipped: ...` and passes, except under `CI=true`, where it fails (`.ci/run`
/// installs Debian's `package`).
pub fn program(name: &str, package: &str) -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|ci| ci == "true") {
            panic!("{name}: not found on PATH (CI=true: .ci/run installs Debian's {package})");
        }
        println!("skipped: {name} is not installed (apt-get install {package})");
    }
    found
}

/// A guest connection that took `name`.
pub async fn named(server: &TestServer, name: &str) -> Client {
    named_at(server.addr, name).await
}

/// [`named`], on the server at `addr`.
pub async fn named_at(addr: SocketAddr, name: &str) -> Client {
    let mut client = Client::connect(addr).await;
    client.send(&format!("name {name}")).await;
    assert_eq!(
        client.read_text_until("> ").await,
        format!("You are now {name}.\r\n> ")
    );
    client
}

/// `resume` a wumpus game left at the gold ([`TO_THE_GOLD`]): it comes back as it was
/// left, and [`BACK_OUT`] and `climb` finish it, out with the gold.
pub async fn resume_at_the_gold_and_climb(player: &mut Client) {
    player.send("resume").await;
    let resumed = player.read_text_until("Enter command: ").await;
    assert_eq!(
        resumed,
        "Your wumpus game, as you left it.\r\nYou smell a wumpus.\r\nEnter command: "
    );
    for line in BACK_OUT {
        player.send(line).await;
        player.read_text_until("Enter command: ").await;
    }
    player.send("climb").await;
    let out = player.read_text_until("> ").await;
    assert!(out.starts_with("You are out with the gold.\r\n"), "{out:?}");
}

/// From the start of the classic wumpus world to the gold: 8 actions.
pub const TO_THE_GOLD: &[&str] = &[
    "move forward",
    "move forward",
    "move forward",
    "turn left",
    "move forward",
    "move forward",
    "move forward",
    "grab",
];

/// From the gold back to the exit, before the `climb`: 9 actions.
pub const BACK_OUT: &[&str] = &[
    "turn left",
    "turn left",
    "move forward",
    "move forward",
    "move forward",
    "turn right",
    "move forward",
    "move forward",
    "move forward",
];

/// A new registered player who plays the classic wumpus world out with the gold (18
/// actions), waiting `before_climbing` before the last line (a pause the recording
/// keeps), until the result is checked by replay and on the leaderboard.
pub async fn won_wumpus(
    server: &TestServer,
    name: &str,
    password: &str,
    before_climbing: Duration,
) -> Client {
    let mut player = registered(server.addr, name, password).await;
    player.send("play wumpus").await;
    player.read_text_until("Enter command: ").await;
    for line in TO_THE_GOLD.iter().chain(BACK_OUT) {
        player.send(line).await;
        player.read_text_until("Enter command: ").await;
    }
    tokio::time::sleep(before_climbing).await;
    player.send("climb").await;
    assert!(player
        .read_text_until("> ")
        .await
        .starts_with("You are out with the gold.\r\n"));
    eventually(&mut player, "top wumpus", name).await;
    player
}
