//! Upgrades (SPEC section 11) with the real binary in its own process: `arcade
//! upgrade` through the control socket starts the binary now at the server's path,
//! which takes the port over while the old process stays its parent; a class online
//! (every game, two races, watchers, a web page, a password half typed) moves to it
//! and plays on; and every way an upgrade cannot happen leaves the old server
//! serving everyone, with the reason.
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
/// (A tokio mutex: the test of a class online holds it across its awaits.)
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.blocking_lock()
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
        Running::start_prepared(args, |_| {})
    }

    /// [`Running::start`], after `prepare` has had the new data directory.
    fn start_prepared(args: &[&str], prepare: impl FnOnce(&Path)) -> Running {
        let dir = tempfile::tempdir().expect("a folder");
        let bin = dir.path().join("arcade");
        install(&bin, Path::new(env!("CARGO_BIN_EXE_arcade")));
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the data directory");
        prepare(&data);
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
        ask_for_upgrade(&self.data)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM to the first process, and its exit code.
    fn stop(self) -> Option<i32> {
        self.stop_keeping_files().0
    }

    /// [`Running::stop`], keeping its folder (the data directory) for a look after.
    fn stop_keeping_files(mut self) -> (Option<i32>, tempfile::TempDir) {
        let code = self.stop_process();
        (code, self._dir)
    }

    fn stop_process(&mut self) -> Option<i32> {
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

/// `arcade upgrade --data-dir DATA`: whether it succeeded, and what it printed.
fn ask_for_upgrade(data: &Path) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("upgrade")
        .arg("--data-dir")
        .arg(data)
        .output()
        .expect("arcade upgrade");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// `arcade upgrade` from an async test, which must be refused with `why`: the answer.
async fn refused_upgrade(server: &Running, why: &str) -> String {
    let data = server.data.clone();
    let (ok, answer) = tokio::task::spawn_blocking(move || ask_for_upgrade(&data))
        .await
        .expect("the upgrade's answer");
    assert!(!ok && answer.contains(why), "{answer}");
    answer
}

/// Put `from` at `bin` as an operator installs a new version: a new file renamed over
/// the old one (writing into a running binary fails with "Text file busy").
fn install(bin: &Path, from: &Path) {
    let new = bin.with_extension("new");
    std::fs::copy(from, &new).expect("copy the binary");
    std::fs::rename(&new, bin).expect("rename it into place");
}

/// A second build of the test binary at `bin`, as an operator installs a new version:
/// a copy with `tag` written into its build mark (`arcade-build:` and 16 bytes), so that
/// it says `VERSION+TAG` in the hand-over, without compiling it again.
fn install_second_build(bin: &Path, tag: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    const MARK: &[u8] = b"arcade-build:________________";
    assert!(tag.len() <= 16 && !tag.is_empty());
    let mut bytes = std::fs::read(env!("CARGO_BIN_EXE_arcade")).expect("the test binary");
    let mut tagged = b"arcade-build:".to_vec();
    tagged.extend_from_slice(tag.as_bytes());
    tagged.resize(MARK.len(), b'_');
    let mut marks = 0;
    let mut at = 0;
    while let Some(found) = bytes[at..]
        .windows(MARK.len())
        .position(|window| window == MARK)
    {
        let start = at + found;
        bytes[start..start + MARK.len()].copy_from_slice(&tagged);
        at = start + MARK.len();
        marks += 1;
    }
    assert!(marks > 0, "no build mark in the test binary");
    let new = bin.with_extension("new");
    std::fs::write(&new, &bytes).expect("write the second build");
    std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o755)).expect("chmod");
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

/// A player whose game was `before` (its `/look`) after an upgrade that did not
/// happen: the game is the same, and `line` is answered, up to the game's prompt.
fn plays_on(player: &mut TcpStream, before: &str, line: &str) -> String {
    player.write_all(b"/look\r\n").expect("send");
    assert_eq!(read_until(player, "Enter command: "), before);
    player
        .write_all(format!("{line}\r\n").as_bytes())
        .expect("send");
    read_until(player, "Enter command: ")
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
    // A second build is installed: the new process is it, and says so.
    install_second_build(&server.bin, "second");
    let (ok, answer) = server.upgrade();
    assert!(ok, "{answer}\n{}", server.log());
    assert!(
        answer.contains(&format!(
            "({}+second) serves now",
            env!("CARGO_PKG_VERSION")
        )),
        "{answer}"
    );
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

    // Someone is playing. The binary on disk does not run: refused with its exit
    // status, and the player goes on in the old process as if nothing happened.
    let mut player = server.banner();
    player.write_all(b"play 2048 seed=4\r\n").expect("send");
    read_until(&mut player, "Enter command: ");
    player.write_all(b"l\r\n").expect("send");
    read_until(&mut player, "Enter command: ");
    player.write_all(b"/look\r\n").expect("send");
    let before = read_until(&mut player, "Enter command: ");
    install_script(&server.bin, "#!/bin/sh\nexit 3\n");
    let (ok, answer) = server.upgrade();
    assert!(!ok, "{answer}");
    assert!(
        answer.contains("upgrade failed: the new server")
            && answer.contains("exited (exit status: 3) before it took over"),
        "{answer}"
    );
    let moved = plays_on(&mut player, &before, "u");
    assert!(
        moved.ends_with("Enter command: ") && !moved.contains("upgraded"),
        "{moved}"
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
    // Through every refusal, the player was never told of an upgrade and plays on.
    player.write_all(b"r\r\n").expect("send");
    let moved = read_until(&mut player, "Enter command: ");
    assert!(
        moved.ends_with("Enter command: ") && !moved.contains("upgraded"),
        "{moved}"
    );
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

mod common;

use arcade::games::Game as _;
use common::keys::{keys_on, IAC, WILL};
use common::{Client, BACK_OUT, TO_THE_GOLD};

/// Send `line`, read up to `until`.
async fn ask(client: &mut Client, line: &str, until: &str) -> String {
    client.send(line).await;
    client.read_text_until(until).await
}

/// One player of the class: its name, how its game starts, and the lines it plays
/// before and after the upgrade.
struct Player {
    name: String,
    client: Client,
    play: String,
    before: Vec<String>,
    after: Vec<String>,
    /// `/look` before the upgrade: the whole game in words.
    look: String,
}

const PROMPT: &str = "Enter command: ";

/// The 200 players mid-game: 50 of each game.
fn class_plan() -> Vec<(String, String, Vec<String>, Vec<String>)> {
    let owned = |lines: &[&str]| {
        lines
            .iter()
            .map(|line| line.to_string())
            .collect::<Vec<_>>()
    };
    let transcript = common::classic_transcript();
    let mut plan = Vec::new();
    for n in 0..200 {
        let name = format!("p{n:03}");
        let (play, before, after) = match n / 50 {
            0 => (
                String::from("play sokoban classic"),
                transcript.commands[..1 + n % 4].to_vec(),
                transcript.commands[1 + n % 4..3 + n % 4].to_vec(),
            ),
            1 => (
                String::from("play starpusher"),
                owned(&["d", "s", "a"][..1 + n % 3]),
                owned(&["d", "w"]),
            ),
            2 => (
                format!("play 2048 seed={n}"),
                owned(&["l", "u", "r"][..1 + n % 3]),
                owned(&["d", "l"]),
            ),
            _ => (
                String::from("play wumpus classic"),
                owned(&TO_THE_GOLD[..4]),
                TO_THE_GOLD[4..]
                    .iter()
                    .chain(BACK_OUT)
                    .map(|line| line.to_string())
                    .collect(),
            ),
        };
        plan.push((name, play, before, after));
    }
    plan
}

/// `arcade play` of `play`'s game with `lines`: what it answered to each line, with
/// the server's line endings.
fn offline_answers(play: &str, lines: &[String]) -> Vec<String> {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("play")
        .args(play.split_whitespace().skip(1))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("arcade play");
    let mut input = lines.join("\n");
    input.push('\n');
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("arcade play ends");
    let text = String::from_utf8_lossy(&output.stdout).replace('\n', "\r\n");
    text.split_inclusive(PROMPT)
        .skip(1)
        .filter(|answer| answer.ends_with(PROMPT))
        .map(str::to_string)
        .collect()
}

/// The sockets process `pid` holds (none once it handed everything over).
fn sockets_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| std::fs::read_link(entry.path()).ok())
                .filter(|target| target.to_string_lossy().starts_with("socket:"))
                .count()
        })
        .unwrap_or(0)
}

/// The `"total":N` of the web page's first live event: how many are online.
async fn online_on_the_page(http: &reqwest::Client, base: &str) -> (u64, reqwest::Response) {
    let mut response = http
        .get(format!("{base}/events"))
        .send()
        .await
        .expect("GET /events");
    let mut seen = String::new();
    loop {
        let chunk = tokio::time::timeout(common::TIMEOUT, response.chunk())
            .await
            .expect("an event in time")
            .expect("the stream")
            .expect("a chunk");
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if let Some((_, rest)) = seen.split_once("\"total\":") {
            if let Some(total) = rest.split(',').next().and_then(|n| n.parse().ok()) {
                return (total, response);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_class_online_moves_to_the_new_server_and_plays_on() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let web_port = free_port().to_string();
    let server =
        Running::start_prepared(&["--http-port", &web_port, "--admin", "teacher"], |data| {
            let data = data.to_string_lossy().to_string();
            common::set_password_with_cli("teacher", "secret-teacher", &["--data-dir", &data]);
        });
    let first_pid = server.child.id();
    let addr = server.addr();
    let base = format!("http://127.0.0.1:{web_port}");

    // The teacher, on telnet and logged in to the web page.
    let (mut teacher, said) = common::log_in(addr, "teacher", "secret-teacher").await;
    assert!(said.contains("You are now teacher."), "{said}");
    let page = common::http::browser();
    let login = page
        .post(format!("{base}/login"))
        .form(&[("name", "teacher"), ("password", "secret-teacher")])
        .send()
        .await
        .expect("POST /login");
    assert_eq!(login.status(), reqwest::StatusCode::SEE_OTHER);

    // zed is kicked for ten minutes: the ban moves too.
    let mut zed = common::named_at(addr, "zed").await;
    ask(&mut teacher, "kick zed for 10m", "> ").await;
    zed.read_to_end().await;

    // 200 players mid-game, 50 of each game.
    let mut class = Vec::new();
    for (name, play, before, after) in class_plan() {
        let mut client = Client::connect(addr).await;
        assert_eq!(
            ask(&mut client, &format!("name {name}"), "> ").await,
            format!("You are now {name}.\r\n> ")
        );
        ask(&mut client, &play, PROMPT).await;
        for line in &before {
            ask(&mut client, line, PROMPT).await;
        }
        let look = ask(&mut client, "/look", PROMPT).await;
        class.push(Player {
            name,
            client,
            play,
            before,
            after,
            look,
        });
    }

    // Five watchers of Sokoban players: each sees the board at once.
    let mut watchers = Vec::new();
    for n in 0..5 {
        let mut watcher = common::named_at(addr, &format!("w{n}")).await;
        let seen = ask(&mut watcher, &format!("watch p{n:03}"), PROMPT).await;
        assert!(
            seen.starts_with(&format!("You are watching p{n:03}.")),
            "{seen}"
        );
        watchers.push(watcher);
    }

    // Race 1: Sokoban, ann, bob and cy, under way. Race 2: 2048 with a time limit.
    let transcript = common::classic_transcript();
    let solution: Vec<&str> = transcript.commands.iter().map(String::as_str).collect();
    let mut ann = common::named_at(addr, "ann").await;
    let mut bob = common::named_at(addr, "bob").await;
    let mut cy = common::named_at(addr, "cy").await;
    ask(&mut ann, "race sokoban classic", "> ").await;
    ask(&mut bob, "join 1", "> ").await;
    ask(&mut cy, "join 1", "> ").await;
    ask(&mut ann, "start", "> ").await;
    for racer in [&mut ann, &mut bob, &mut cy] {
        racer.read_text_until("Race 1: go!\r\n").await;
        racer.read_text_until(PROMPT).await;
    }
    for line in &solution[..6] {
        ask(&mut ann, line, PROMPT).await;
    }
    for line in &solution[..3] {
        ask(&mut bob, line, PROMPT).await;
    }
    let mut dee = common::named_at(addr, "dee").await;
    let mut eve = common::named_at(addr, "eve").await;
    assert!(ask(&mut dee, "race 2048 seed=9 time=15s", "> ")
        .await
        .starts_with("Race 2 is open"));
    ask(&mut eve, "join 2", "> ").await;
    ask(&mut dee, "start", "> ").await;
    let race_2_started = Instant::now();
    for racer in [&mut dee, &mut eve] {
        racer.read_text_until("Race 2: go!\r\n").await;
        racer.read_text_until(PROMPT).await;
    }
    ask(&mut dee, "l", PROMPT).await;

    // Someone with single keys (the telnet options agreed, a window, a terminal type),
    // half way through a line the server edits.
    let mut kay = common::named_at(addr, "kay").await;
    keys_on(&mut kay).await;
    for key in "play 2048 seed=1".bytes() {
        kay.send_raw(&[key]).await;
    }
    kay.read_text_until("seed=1").await;
    kay.send_raw(b"\r\0").await;
    assert!(kay.read_text_until(PROMPT).await.contains("Step: 0"));
    kay.send_raw(b"/sa").await;
    kay.read_text_until("/sa").await;

    // Someone half way through a password, and someone half way through a line.
    let mut newcomer = common::named_at(addr, "newcomer").await;
    assert!(ask(&mut newcomer, "register", "Choose a password: ")
        .await
        .ends_with("Choose a password: "));
    let mut typing = Client::connect(addr).await;
    typing.send_raw(b"pla").await;

    // The web page follows, 214 sessions.
    let everyone = class.len() + watchers.len() + 9;
    let (online, mut old_stream) = online_on_the_page(&page, &base).await;
    assert_eq!(online, u64::try_from(everyone).unwrap());

    // The teacher upgrades, to a second build. Twenty players type while it happens.
    install_second_build(&server.bin, "class");
    assert_eq!(
        ask(&mut teacher, "upgrade", "> ").await,
        "Upgrading: every session moves to the binary now on disk.\r\n> "
    );
    for player in &mut class[180..] {
        player.client.send("/look").await;
    }
    assert_eq!(
        teacher.read_text_until("> ").await,
        "\r\nThe server was upgraded.\r\n> "
    );
    // The old process holds none of the connections now (a signal pipe at most).
    let deadline = Instant::now() + Duration::from_secs(20);
    while sockets_of(first_pid) > 4 {
        assert!(
            Instant::now() < deadline,
            "the old process still holds sockets"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = server.log();
    assert!(
        log.contains("sessions taken over from the old server sessions=214"),
        "{log}"
    );
    assert!(
        log.contains(&format!("version={}+class", env!("CARGO_PKG_VERSION"))),
        "{log}"
    );

    // The races stood still while they moved, and their clock goes on.
    for racer in [&mut ann, &mut bob, &mut cy, &mut dee, &mut eve] {
        racer
            .read_text_until("The server was upgraded.\r\nEnter command: ")
            .await;
    }
    let standings = ask(&mut eve, "/standings", PROMPT).await;
    assert!(
        standings.contains("Race 2: 2048 seed=9 (time 15s), running for "),
        "{standings}"
    );
    assert!(
        standings.contains("    1. dee ") || standings.contains("    2. dee "),
        "{standings}"
    );

    // Every player: told once, the game exactly as it was, the next lines answered.
    for (index, player) in class.iter_mut().enumerate() {
        let mut seen = player.client.read_text_until(PROMPT).await;
        if index >= 180 {
            // The line typed during the hand-over was answered once, by one process.
            while !(seen.contains("The server was upgraded.")
                && seen.contains(player.look.trim_end_matches(PROMPT)))
            {
                seen.push_str(&player.client.read_text_until(PROMPT).await);
            }
            assert_eq!(
                seen.matches("The server was upgraded.").count(),
                1,
                "{seen}"
            );
            assert_eq!(
                seen.matches(player.look.trim_end_matches(PROMPT)).count(),
                1,
                "{seen}"
            );
        } else {
            assert_eq!(
                seen,
                format!("\r\nThe server was upgraded.\r\n{PROMPT}"),
                "{}",
                player.name
            );
        }
        assert_eq!(
            ask(&mut player.client, "/look", PROMPT).await,
            player.look,
            "{}",
            player.name
        );
        for line in player.after.clone() {
            let answer = ask(&mut player.client, &line, PROMPT).await;
            assert!(
                !answer.contains("Unknown command"),
                "{}: {answer}",
                player.name
            );
        }
    }
    // 2048's tiles come from its generator: the new process's next tiles are those the
    // game would have drawn anyway.
    for player in &mut class[100..105] {
        let mut lines = player.before.clone();
        lines.extend(player.after.clone());
        lines.push(String::from("u"));
        let expected = offline_answers(&player.play, &lines);
        let answer = ask(&mut player.client, "u", PROMPT).await;
        assert_eq!(Some(&answer), expected.last(), "{}", player.name);
    }
    // Where the other games stand at the end, for their recordings' replay below.
    let mut finals = Vec::new();
    for player in &mut class[..150] {
        finals.push(ask(&mut player.client, "/look", PROMPT).await);
    }
    // The wumpus players climb out with the gold: results for recordings that span
    // the upgrade.
    for player in &mut class[150..] {
        let out = ask(&mut player.client, "climb", "> ").await;
        assert!(
            out.starts_with("You are out with the gold."),
            "{}: {out}",
            player.name
        );
    }

    // The watchers are watching again, and see the next move.
    for (n, watcher) in watchers.iter_mut().enumerate() {
        let seen = watcher.read_text_until(PROMPT).await;
        assert!(
            seen.starts_with("\r\nThe server was upgraded.\r\n"),
            "{seen}"
        );
        let moved = watcher.read_text_until(PROMPT).await;
        assert!(moved.contains('#'), "w{n}: {moved}");
    }

    // Race 1 is played to its end after the upgrade, with the right places.
    let won = {
        let mut last = String::new();
        for (index, line) in solution[6..].iter().enumerate() {
            let until = if index + 7 == solution.len() {
                "> "
            } else {
                PROMPT
            };
            last = ask(&mut ann, line, until).await;
        }
        last
    };
    assert!(won.contains("You are done in race 1: solved, "), "{won}");
    for (index, line) in solution[3..].iter().enumerate() {
        let until = if index + 4 == solution.len() {
            "> "
        } else {
            PROMPT
        };
        ask(&mut bob, line, until).await;
    }
    ask(&mut cy, "/leave", "> ").await;
    let places = ann.read_text_until("[race 1] Race over. Places:").await;
    assert!(places.contains("[race 1] bob solved it in "), "{places}");
    let rows = ann.read_text_until("> ").await;
    let rows: Vec<&str> = rows.lines().filter(|line| line.contains(". ")).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(
        rows[0].starts_with("    1. ann ")
            && rows[1].starts_with("    2. bob ")
            && rows[2].starts_with("    3. cy "),
        "{rows:?}"
    );
    // Race 2 ends when its 15 seconds from its start are up, not 15 from the upgrade.
    if let Some(wait) = Duration::from_secs(14).checked_sub(race_2_started.elapsed()) {
        tokio::time::sleep(wait).await;
    }
    let over = dee.read_text_until("Race over.").await;
    let took = race_2_started.elapsed();
    assert!(over.contains("[race 2]"), "{over}");
    assert!(
        took >= Duration::from_secs(15) && took < Duration::from_secs(22),
        "{took:?}"
    );

    // Single keys are still on, with the line half typed: nothing is asked again.
    let after = kay.read_until_bytes(b"The server was upgraded.").await;
    kay.send_raw(b"y hi\r").await;
    let said = kay.read_until_bytes(b"[kay] hi").await;
    kay.read_text_until(PROMPT).await;
    kay.send_raw(b"a").await;
    let moved = kay.read_text_until(PROMPT).await;
    assert!(
        moved.starts_with("a\r\n") && moved.contains("Step: 1"),
        "{moved}"
    );
    let asked_again = [after, said].concat();
    assert!(
        !asked_again.windows(2).any(|pair| pair == [IAC, WILL]),
        "{}",
        String::from_utf8_lossy(&asked_again)
    );

    // The ban from before the upgrade still keeps zed out.
    let mut again = Client::connect(addr).await;
    let refused = ask(&mut again, "name zed", "> ").await;
    assert!(refused.contains("zed was kicked by an admin"), "{refused}");

    // The half-typed password and line go on where they were.
    assert!(ask(&mut newcomer, "secret-newcomer", "Type it again: ")
        .await
        .ends_with("Type it again: "));
    assert!(ask(&mut newcomer, "secret-newcomer", "> ")
        .await
        .contains("newcomer is registered"));
    typing
        .read_text_until("The server was upgraded.\r\n> ")
        .await;
    let started = ask(&mut typing, "y 2048 seed=1", PROMPT).await;
    assert!(started.contains("Score: 0"), "{started}");

    // The web page: the old stream ended, as an EventSource reconnects; the new one
    // shows everyone, and the admin is still logged in: every wumpus result, checked
    // by replay, is in the results.
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(_)) = old_stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the old page's stream did not end");
    let (online, _) = online_on_the_page(&page, &base).await;
    // Everyone, and the connection that asked for zed's name.
    assert_eq!(online, u64::try_from(everyone + 1).unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, csv) = common::http::get(&page, &format!("{base}/results.csv")).await;
        assert_eq!(status, reqwest::StatusCode::OK, "{csv}");
        let checked = class[150..]
            .iter()
            .filter(|player| csv.contains(&format!("{},wumpus", player.name)))
            .count();
        if checked == 50 && csv.contains("ann,sokoban") && csv.contains("bob,sokoban") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{checked} of 50 wumpus results checked:\n{csv}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let log = server.log();
    let data = server.data.clone();
    let (code, _kept) = server.stop_keeping_files();
    assert_eq!(code, Some(0));
    assert!(!log.contains(" ERROR "), "{log}");

    // Every other game's recording, made by two processes, replays to where its
    // player's game stood at the end.
    let store = arcade::store::Store::open(&arcade::store::DbUrl::Sqlite(data.join("arcade.db")))
        .await
        .expect("the store");
    let context = arcade::catalog::table::Context {
        levels: arcade::catalog::levels::Levels::built_in().0,
        data_dir: data.clone(),
    };
    for (index, (player, last)) in class[..150].iter().zip(&finals).enumerate() {
        // Five 2048 players made one move more, checked against `arcade play`.
        let extra = usize::from((100..105).contains(&index));
        let listed = store
            .recordings(Some(&player.name), 5)
            .await
            .expect("the recordings");
        assert_eq!(listed.len(), 1, "{}: {listed:?}", player.name);
        let (_, recording) = arcade::records::recording::load(&store, listed[0].id)
            .await
            .expect("a recording")
            .expect("there");
        assert_eq!(
            recording.inputs.len(),
            player.before.len() + player.after.len() + extra,
            "{}",
            player.name
        );
        let (mut replay, _) =
            arcade::records::recording::Replay::begin(&recording.start, &context).expect("begins");
        for input in &recording.inputs {
            replay.step(&input.line);
        }
        let (game, memory) = replay.into_game();
        let described = game.describe(&memory).replace('\n', "\r\n");
        assert_eq!(last.trim_end(), described.trim_end(), "{}", player.name);
    }
}

/// Read `source` into a shared buffer, on a thread, until it ends.
fn collect(
    mut source: impl std::io::Read + Send + 'static,
) -> std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = source.read(&mut buffer) {
            if read == 0 {
                break;
            }
            into.lock()
                .expect("the buffer")
                .extend_from_slice(&buffer[..read]);
        }
    });
    seen
}

/// Wait until `seen` has `wanted` (10 s): all of it, as text.
fn wait_for(seen: &std::sync::Mutex<Vec<u8>>, wanted: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = String::from_utf8_lossy(&seen.lock().expect("the buffer")).into_owned();
        if text.contains(wanted) {
            return text;
        }
        assert!(Instant::now() < deadline, "no {wanted:?} in {text:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_ssh_session_is_told_and_closed_and_finds_its_game_with_resume() {
    let (Some(ssh), Some(keygen)) = (
        common::program("ssh", "openssh-client"),
        common::program("ssh-keygen", "openssh-client"),
    ) else {
        return;
    };
    let _alone = one_at_a_time();
    let ssh_port = free_port();
    let server = Running::start_prepared(&["--ssh-port", &ssh_port.to_string()], |data| {
        let data = data.to_string_lossy().to_string();
        common::set_password_with_cli("sam", "secret-sam", &["--data-dir", &data]);
    });
    // sam's key, added on telnet.
    let dir = tempfile::tempdir().expect("a folder for the key");
    let key = dir.path().join("id_ed25519");
    let made = Command::new(&keygen)
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "sam@lab", "-f"])
        .arg(&key)
        .status()
        .expect("ssh-keygen");
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("the key");
    let mut telnet = server.banner();
    telnet.write_all(b"name sam\r\n").expect("send");
    read_until(&mut telnet, "Password: ");
    telnet.write_all(b"secret-sam\r\n").expect("send");
    read_until(&mut telnet, "> ");
    telnet
        .write_all(format!("sshkey add {}\r\n", public.trim()).as_bytes())
        .expect("send");
    assert!(read_until(&mut telnet, "> ").contains("Key added"));
    telnet.write_all(b"quit\r\n").expect("send");
    drop(telnet);

    // sam plays 2048 over SSH (no terminal: plain lines).
    let mut child = Command::new(&ssh)
        .args(["-T", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no"])
        .args(["-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"])
        .args(["-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-i"])
        .arg(&key)
        .args(["-p", &ssh_port.to_string(), "sam@127.0.0.1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ssh");
    let mut input = child.stdin.take().expect("ssh's stdin");
    let seen = collect(child.stdout.take().expect("ssh's stdout"));
    wait_for(&seen, "You are now sam.");
    input.write_all(b"play 2048 seed=7\nl\n").expect("type");
    wait_for(&seen, "Step: 1");

    // The upgrade: the SSH session is told, then closed; the telnet port never closes.
    let (ok, answer) = server.upgrade();
    assert!(ok, "{answer}\n{}", server.log());
    let said = wait_for(&seen, "SSH connections cannot move to the new server");
    assert!(
        said.contains("type resume to go on with your game"),
        "{said}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().expect("ssh's status").is_none() {
        assert!(Instant::now() < deadline, "the SSH session was not closed");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(input);

    // sam's game waits for resume on the new server, as it was.
    let mut telnet = server.banner();
    telnet.write_all(b"name sam\r\n").expect("send");
    read_until(&mut telnet, "Password: ");
    telnet.write_all(b"secret-sam\r\n").expect("send");
    let said = read_until(&mut telnet, "> ");
    assert!(said.contains("You have an unfinished 2048 game"), "{said}");
    telnet.write_all(b"resume\r\n").expect("send");
    let resumed = read_until(&mut telnet, "Enter command: ");
    assert!(resumed.contains("Step: 1"), "{resumed}");
    assert_eq!(server.stop(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_being_played_moves_with_its_clock_and_its_results_count() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let server = Running::start_prepared(&["--admin", "teacher"], |data| {
        let data = data.to_string_lossy().to_string();
        common::set_password_with_cli("teacher", "secret-teacher", &["--data-dir", &data]);
    });
    let (mut teacher, said) = common::log_in(server.addr(), "teacher", "secret-teacher").await;
    assert!(said.contains("You are now teacher."), "{said}");
    assert!(
        ask(&mut teacher, "ladder open wumpus seeds=1-2 move=30s", "> ")
            .await
            .contains("Ladder 1")
    );
    let mut ada = common::named_at(server.addr(), "ada").await;
    let entered = ask(&mut ada, "ladder enter 1", PROMPT).await;
    assert!(entered.contains("Ladder 1: seed 1 of 2."), "{entered}");
    ask(&mut ada, "turn left", PROMPT).await;
    // ada is in the middle of a ladder's seed, its move clock running: she moves.
    let (ok, answer) = tokio::task::spawn_blocking({
        let data = server.data.clone();
        move || ask_for_upgrade(&data)
    })
    .await
    .expect("the upgrade's answer");
    assert!(ok, "{answer}\n{}", server.log());
    teacher
        .read_text_until("The server was upgraded.\r\n> ")
        .await;
    ada.read_text_until("The server was upgraded.\r\nEnter command: ")
        .await;
    // The ladder goes on in the new process: the next seed, then the end.
    let next = ask(&mut ada, "climb", PROMPT).await;
    assert!(next.contains("Ladder 1: seed 2 of 2."), "{next}");
    ask(&mut ada, "turn left", PROMPT).await;
    let end = ask(&mut ada, "climb", "> ").await;
    assert!(
        end.contains("You have played every seed of ladder 1"),
        "{end}"
    );
    // Both of ada's results, the first from a game played by two processes, are
    // checked by replay and counted.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let table = ask(&mut teacher, "ladder 1", "> ").await;
        let row = table.lines().find(|line| line.contains(" ada "));
        if row.is_some_and(|row| row.contains(" 2/2 ") && row.trim_end().ends_with(" 0")) {
            break;
        }
        assert!(Instant::now() < deadline, "{table}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(server.stop(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reads_nothing_holds_up_the_upgrade_by_name_and_nobody_is_dropped() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let server = Running::start(&[]);
    let mut ann = common::named_at(server.addr(), "ann").await;
    // A client with a small receive buffer asks for page after page and reads none:
    // its session waits to write, not between two lines.
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.set_recv_buffer_size(4096).expect("a small buffer");
    let mut stuck = Client::from_stream(socket.connect(server.addr()).await.expect("connect"));
    stuck.read_until("> ").await;
    // Far more than the kernel buffers between them (4 MiB by default, and more
    // where it is tuned up): some 60 MB of pages.
    let pages = "help\r\n".repeat(20_000);
    stuck.send_raw(pages.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let answer = refused_upgrade(
        &server,
        "upgrade failed: 1 session did not answer within 10s (guest-",
    )
    .await;
    let stuck_name = answer
        .split_once("within 10s (")
        .and_then(|(_, rest)| rest.split(')').next())
        .expect("the name")
        .to_string();
    // ann, who answered, stayed and plays on; the stuck client is still connected.
    let who = ask(&mut ann, "who", "> ").await;
    assert!(who.contains("ann") && who.contains(&stuck_name), "{who}");
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_game_the_new_server_cannot_rebuild_fails_the_upgrade_and_plays_on_here() {
    let _alone = one_at_a_time();
    let levels = tempfile::tempdir().expect("a levels folder");
    std::fs::create_dir(levels.path().join("starpusher")).expect("starpusher/");
    let level = levels.path().join("starpusher").join("pushes.txt");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/levels/starpusher/pushes.txt"),
        &level,
    )
    .expect("the level");
    let server = Running::start(&["--levels", &levels.path().to_string_lossy()]);
    let mut player = server.banner();
    player
        .write_all(b"play starpusher pushes\r\n")
        .expect("send");
    read_until(&mut player, "Enter command: ");
    player.write_all(b"d\r\n").expect("send");
    read_until(&mut player, "Enter command: ");
    player.write_all(b"/look\r\n").expect("send");
    let before = read_until(&mut player, "Enter command: ");
    // The level's file is gone: the new server cannot replay the game, so nobody moves.
    std::fs::remove_file(&level).expect("remove the level");
    let (ok, answer) = server.upgrade();
    assert!(!ok, "{answer}");
    assert!(
        answer.contains("upgrade failed: the new server could not serve: cannot take the sessions over: the game of session"),
        "{answer}"
    );
    // The player plays on in the old process, the game as it was.
    let moved = plays_on(&mut player, &before, "s");
    assert!(
        moved.contains("Moves: 2") && !moved.contains("upgraded"),
        "{moved}"
    );
    assert_eq!(server.stop(), Some(0));
}
