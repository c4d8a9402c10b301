//! SSH (SPEC section 11) with the real OpenSSH client: Debian's `ssh` and
//! `ssh-keygen` (package `openssh-client`), driven inside `tmux` where a terminal is
//! needed (a pty, a password typed), and as a plain program for exec requests. Each
//! server is started by the test, on port 0. Without the programs the tests print
//! `skipped: ...`; under `CI=true` they fail (`.ci/run` installs them).

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use arcade::server::Options;
use common::screen::Screen;
use common::{Client, TestServer};
use tokio::io::AsyncReadExt;

/// `ssh`'s options for a test server: no known_hosts, no agent, no config of the
/// machine's user, a short connect timeout, errors only.
fn ssh_args(addr: SocketAddr, user: &str) -> Vec<String> {
    [
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "-o",
        "ConnectTimeout=10",
        "-o",
        "IdentityAgent=none",
        "-p",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .chain([addr.port().to_string(), format!("{user}@{}", addr.ip())])
    .collect()
}

/// A command's words as one shell line for tmux, each quoted.
fn shell(words: &[String]) -> String {
    words
        .iter()
        .map(|word| format!("'{word}'"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The programs, or `None` (skipped, or a failure under CI).
fn programs() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let ssh = common::program("ssh", "openssh-client")?;
    let keygen = common::program("ssh-keygen", "openssh-client")?;
    let tmux = common::program("tmux", "tmux")?;
    Some((ssh, keygen, tmux))
}

/// A server with SSH on.
async fn ssh_server(options: Options) -> (TestServer, SocketAddr) {
    let server = TestServer::start_with(Options {
        ssh_port: Some(0),
        ..options
    })
    .await;
    let addr = server.ssh_addr.expect("the SSH port");
    (server, addr)
}

/// Run `ssh` with `args` to the end, `input` on its standard input: its output and
/// whether it succeeded.
fn run_ssh(ssh: &Path, args: &[String], input: &str) -> (String, bool) {
    let mut child = Command::new(ssh)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ssh");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write as _;
        let _ = stdin.write_all(input.as_bytes());
    }
    let output = child.wait_with_output().expect("ssh ends");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (text, output.status.success())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guest_plays_sokoban_with_arrow_keys_in_colour_and_the_window_size_follows() {
    let Some((ssh, _, tmux)) = programs() else {
        return;
    };
    let (server, addr) = ssh_server(Options::default()).await;
    let fingerprint_file = server.data_dir().join("ssh_host_ed25519_key");
    tokio::task::spawn_blocking(move || {
        let screen = Screen::open(
            &tmux,
            "guest",
            &shell(&{
                let mut command = vec![ssh.display().to_string(), String::from("-tt")];
                command.extend(ssh_args(addr, "guest"));
                command
            }),
        );
        let text = screen.wait_for("Welcome to arcade!");
        assert!(text.contains("You are a guest"), "{text}");
        // Keys and colour with no `set`: the pty gave them.
        screen.keys(&["play sokoban", "Enter"]);
        let before = screen.wait_for("Enter command:");
        assert!(
            screen.colours().contains("\u{1b}[48;5;"),
            "no colour:\n{:?}",
            screen.colours()
        );
        // One arrow key, no Enter, moves the player.
        screen.keys(&["Up"]);
        screen.wait_until("a move", |text| {
            text != before && text.contains("Enter command:")
        });
        // A narrow window: the next board says it does not fit.
        screen.tmux(&["resize-window", "-t", "t", "-x", "5", "-y", "30"]);
        std::thread::sleep(Duration::from_millis(300));
        screen.keys(&["Down"]);
        // (Wrapped by the 5-column terminal: read without its spaces and line ends.)
        screen.wait_until("the window's width", |text| {
            let joined: String = text.split_whitespace().collect();
            joined.contains("is7columnswideandyourwindow5")
        });
    })
    .await
    .expect("the screen test");
    assert!(
        fingerprint_file.is_file(),
        "the host key is in the data directory"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_registered_player_logs_in_by_password_adds_a_key_then_needs_no_password() {
    let Some((ssh, keygen, tmux)) = programs() else {
        return;
    };
    let (server, addr) = ssh_server(Options::default()).await;
    drop(common::registered(server.addr, "ann", "pw-ann-1234").await);
    let dir = tempfile::tempdir().expect("a folder for the key");
    let key = dir.path().join("id_ed25519");
    let made = Command::new(&keygen)
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "ann@lab", "-f"])
        .arg(&key)
        .status()
        .expect("run ssh-keygen");
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("the .pub file");
    let listed = Command::new(&keygen)
        .arg("-lf")
        .arg(key.with_extension("pub"))
        .output()
        .expect("ssh-keygen -lf");
    let fingerprint = String::from_utf8_lossy(&listed.stdout)
        .split_whitespace()
        .nth(1)
        .expect("a fingerprint")
        .to_owned();
    let (ssh2, key2) = (ssh.clone(), key.clone());
    tokio::task::spawn_blocking(move || {
        let mut command = vec![
            ssh.display().to_string(),
            String::from("-tt"),
            String::from("-o"),
            String::from("PubkeyAuthentication=no"),
        ];
        command.extend(ssh_args(addr, "ann"));
        let screen = Screen::open(&tmux, "ann", &shell(&command));
        screen.wait_for("password:");
        screen.type_text("pw-ann-1234");
        screen.keys(&["Enter"]);
        screen.wait_for("You are now ann.");
        screen.type_text(&format!("sshkey add {}", public.trim()));
        screen.keys(&["Enter"]);
        screen.wait_for("Key added");
        screen.keys(&["sshkey list", "Enter"]);
        let text = screen.wait_for("Your SSH keys:");
        let text = screen
            .wait_until("the list", |text| text.contains(&fingerprint))
            .to_owned()
            + &text;
        assert!(
            text.contains(&format!("1. ssh-ed25519 {fingerprint} ann@lab")),
            "{text}"
        );
        screen.keys(&["quit", "Enter"]);
    })
    .await
    .expect("the password login");
    // The key alone, no password possible (BatchMode): an exec request.
    let mut args = vec![
        String::from("-o"),
        String::from("BatchMode=yes"),
        String::from("-o"),
        String::from("IdentitiesOnly=yes"),
        String::from("-i"),
        key2.display().to_string(),
    ];
    args.extend(ssh_args(addr, "ann"));
    args.push(String::from("who"));
    let (text, ok) = tokio::task::spawn_blocking(move || run_ssh(&ssh2, &args, ""))
        .await
        .expect("ssh by key");
    assert!(ok, "{text}");
    assert!(text.contains("You are now ann."), "{text}");
    assert!(text.contains("1 player online:"), "{text}");
    assert!(!text.contains("Welcome to arcade!"), "{text}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_password_is_refused_and_counted_as_on_telnet() {
    let Some((ssh, _, tmux)) = programs() else {
        return;
    };
    let (server, addr) = ssh_server(Options::default()).await;
    drop(common::registered(server.addr, "bob", "pw-bob-1234").await);
    tokio::task::spawn_blocking(move || {
        let mut command = vec![
            ssh.display().to_string(),
            String::from("-o"),
            String::from("PubkeyAuthentication=no"),
            String::from("-o"),
            String::from("NumberOfPasswordPrompts=5"),
        ];
        command.extend(ssh_args(addr, "bob"));
        let screen = Screen::open(&tmux, "bob", &shell(&command));
        for attempt in 1..=5 {
            screen.wait_until("a password prompt", |text| {
                text.matches("password:").count() == attempt
            });
            screen.type_text("wrong-guess");
            screen.keys(&["Enter"]);
        }
        screen.wait_for("Permission denied");
    })
    .await
    .expect("the wrong passwords");
    // The same counters as telnet's: the right password is now refused there too.
    let mut client = Client::connect(server.addr).await;
    client.send("name bob").await;
    client.read_text_until("Password: ").await;
    client.send("pw-bob-1234").await;
    let answer = client.read_text_until("> ").await;
    assert!(answer.contains("Too many login attempts"), "{answer}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_runs_one_command_and_a_game_plays_on_standard_input() {
    let Some((ssh, keygen, _)) = programs() else {
        return;
    };
    let (server, addr) = ssh_server(Options::default()).await;
    let args = |command: &[&str]| {
        let mut args = ssh_args(addr, "guest");
        args.extend(command.iter().map(|word| (*word).to_owned()));
        args
    };
    let (who, play) = (args(&["who"]), args(&["play", "2048", "seed=1"]));
    let ssh2 = ssh.clone();
    let (text, ok) = tokio::task::spawn_blocking(move || run_ssh(&ssh, &who, ""))
        .await
        .unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("1 player online:"), "{text}");
    // Once the server answers: the fingerprint the log gives is the one ssh-keygen reads from the key file.
    let listed = Command::new(&keygen)
        .arg("-lf")
        .arg(server.data_dir().join("ssh_host_ed25519_key"))
        .output()
        .expect("ssh-keygen -lf");
    let key = arcade::net::ssh::host_key::load_or_create(
        &server
            .data_dir()
            .join(arcade::net::ssh::host_key::HOST_KEY_FILE),
    )
    .expect("the key");
    let key = arcade::net::ssh::host_key::fingerprint(&key);
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&listed.stdout),
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(shown.contains(&key), "{key} {shown}");
    let (text, ok) = tokio::task::spawn_blocking(move || run_ssh(&ssh2, &play, "a\nq\n"))
        .await
        .unwrap();
    assert!(ok, "{text}");
    assert!(
        text.contains("Step: 0") && text.contains("Step: 1"),
        "{text}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_telnet_player_and_an_ssh_player_chat_and_watch_each_other() {
    let Some((ssh, _, tmux)) = programs() else {
        return;
    };
    let (server, addr) = ssh_server(Options::default()).await;
    let mut tel = common::named(&server, "tel").await;
    let mut command = vec![ssh.display().to_string(), String::from("-tt")];
    command.extend(ssh_args(addr, "sam"));
    let screen = tokio::task::spawn_blocking(move || {
        let screen = Screen::open(&tmux, "sam", &shell(&command));
        screen.wait_for("You are now sam.");
        screen
    })
    .await
    .unwrap();
    tel.send("say hi from telnet").await;
    tel.read_text_until("> ").await;
    let screen = tokio::task::spawn_blocking(move || {
        screen.wait_for("[tel] hi from telnet");
        screen.keys(&["say hello from ssh", "Enter"]);
        screen
    })
    .await
    .unwrap();
    common::eventually(&mut tel, "", "[sam] hello from ssh").await;
    // The telnet player watches the SSH player's game.
    let screen = tokio::task::spawn_blocking(move || {
        screen.keys(&["play 2048 seed=1", "Enter"]);
        screen.wait_for("Step: 0");
        screen
    })
    .await
    .unwrap();
    tel.send("watch sam").await;
    tel.read_until("Step: 0").await;
    let screen = tokio::task::spawn_blocking(move || {
        screen.type_text("a");
        screen.wait_for("Step: 1");
        screen.type_text("q");
        screen.wait_for("Bye!");
        screen
    })
    .await
    .unwrap();
    tel.read_until("Step: 1").await;
    // And the SSH player watches the telnet player's.
    tel.send("").await;
    tel.send("play 2048 seed=2").await;
    tel.read_until("Step: 0").await;
    tokio::task::spawn_blocking(move || {
        screen.keys(&["watch tel", "Enter"]);
        screen.wait_for("Step: 0");
        screen
    })
    .await
    .unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn a_stalled_handshake_is_closed_and_the_limits_hold() {
    let (server, addr) = ssh_server(Options {
        login_timeout: Duration::from_secs(1),
        max_sessions: 2,
        ..Options::default()
    })
    .await;
    // A client that never speaks SSH is closed after the login timeout.
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut seen = Vec::new();
    tokio::time::timeout(common::TIMEOUT, silent.read_to_end(&mut seen))
        .await
        .expect("closed within the login timeout")
        .expect("read");
    assert!(
        seen.starts_with(b"SSH-2.0-arcade"),
        "{:?}",
        String::from_utf8_lossy(&seen)
    );
    // --max-sessions counts SSH connections with telnet ones.
    let _one = Client::connect(server.addr).await;
    let _two = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut third = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut seen = Vec::new();
    tokio::time::timeout(common::TIMEOUT, third.read_to_end(&mut seen))
        .await
        .expect("turned away at once")
        .expect("read");
    assert_eq!(
        String::from_utf8_lossy(&seen),
        "Server full, try again later.\r\n"
    );
    server.shutdown().await;
}

/// [`ssh_args`], but from the source address `source` and checking the host key
/// against `known_hosts` (a changed key fails the connection).
fn strict_ssh_args(
    addr: SocketAddr,
    user: &str,
    known_hosts: &Path,
    source: std::net::Ipv4Addr,
) -> Vec<String> {
    let mut args: Vec<String> = ssh_args(addr, user)
        .into_iter()
        .map(|arg| match arg.as_str() {
            "StrictHostKeyChecking=no" => "StrictHostKeyChecking=yes".to_owned(),
            "UserKnownHostsFile=/dev/null" => {
                format!("UserKnownHostsFile={}", known_hosts.display())
            }
            _ => arg,
        })
        .collect();
    args.splice(0..0, ["-b".to_owned(), source.to_string()]);
    args
}

/// The address `instance` logged for its SSH port (`listening for SSH`), waited for.
async fn ssh_port_of(instance: &common::cluster::Instance) -> SocketAddr {
    let deadline = tokio::time::Instant::now() + common::TIMEOUT;
    loop {
        let log = instance.log();
        let found = log
            .lines()
            .filter(|line| line.contains("listening for SSH"))
            .find_map(|line| line.split("address=").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|address| address.parse().ok());
        if let Some(address) = found {
            return address;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no `listening for SSH` in the log:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Wait until `instance`'s log has a session opened from `source`.
async fn opened_from(instance: &common::cluster::Instance, source: std::net::Ipv4Addr) -> bool {
    let wanted = format!("peer={source}:");
    let deadline = tokio::time::Instant::now() + common::TIMEOUT;
    while tokio::time::Instant::now() < deadline {
        if instance
            .log()
            .lines()
            .any(|line| line.contains("connection opened") && line.contains(&wanted))
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// docker/haproxy.cfg's SSH frontend in front of two instances given one host key
/// file (`--ssh-host-key`): a player's ssh, checking the key strictly, gets in on
/// either instance, and each instance sees the player's own address from the PROXY
/// header on its SSH port.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn behind_haproxy_every_instance_shows_one_host_key_and_the_players_address() {
    use common::cluster::{Instance, Proxy};
    use std::net::Ipv4Addr;
    let Some((ssh, _, _)) = programs() else {
        return;
    };
    let keys = tempfile::tempdir().expect("a folder for the shared key");
    let key_file = keys.path().join("shared_host_key");
    let key_arg = key_file.display().to_string();
    // Port 0: each instance's SSH port is the one it logs (a port picked free
    // beforehand could be taken by a parallel test before the instance binds it).
    let first = Instance::start(&["--ssh-port", "0", "--ssh-host-key", &key_arg]).await;
    let second = Instance::start(&["--ssh-port", "0", "--ssh-host-key", &key_arg]).await;
    let ssh_ports = [ssh_port_of(&first).await, ssh_port_of(&second).await];
    let backends = [
        (first.addr(), first.http_addr().port()),
        (second.addr(), second.http_addr().port()),
    ];
    let Some(proxy) = Proxy::start_with_ssh(&backends, &ssh_ports).await else {
        return;
    };
    proxy.wait_for(&[true, true, false]).await;
    let entry = proxy.ssh_addr().expect("the SSH frontend");

    // The one key both instances read: made by the first, read by the second.
    let key = arcade::net::ssh::host_key::load_or_create(&key_file).expect("the shared key");
    let known_hosts = keys.path().join("known_hosts");
    std::fs::write(
        &known_hosts,
        format!(
            "[{}]:{} {}\n",
            entry.ip(),
            entry.port(),
            arcade::net::ssh::host_key::public_line(&key)
        ),
    )
    .expect("write known_hosts");

    // One player stays in the lobby (ssh -T: plain lines), so that leastconn sends
    // the next one to the other instance.
    let (ann, bob) = (Ipv4Addr::new(127, 0, 0, 7), Ipv4Addr::new(127, 0, 0, 8));
    let mut staying = tokio::process::Command::new(&ssh)
        .arg("-T")
        .args(strict_ssh_args(entry, "ann", &known_hosts, ann))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run ssh");
    let mut lobby = Vec::new();
    let mut out = staying.stdout.take().expect("ssh's output");
    let prompt = arcade::console::lobby::PROMPT.as_bytes();
    let read = tokio::time::timeout(common::TIMEOUT, async {
        let mut chunk = [0u8; 1024];
        while !lobby.ends_with(prompt) {
            let n = out.read(&mut chunk).await.expect("read ssh's output");
            if n == 0 {
                break;
            }
            lobby.extend_from_slice(&chunk[..n]);
        }
    })
    .await;
    let mut problem = Vec::new();
    if let Some(mut errors) = staying.stderr.take() {
        if read.is_err() || !lobby.ends_with(prompt) {
            let _ = tokio::time::timeout(Duration::from_secs(2), errors.read_to_end(&mut problem))
                .await;
        }
    }
    assert!(
        lobby.ends_with(prompt),
        "ann's ssh did not reach the lobby: {}{}",
        String::from_utf8_lossy(&lobby),
        String::from_utf8_lossy(&problem)
    );
    let (ann_first, ann_second) = (
        opened_from(&first, ann).await,
        opened_from(&second, ann).await,
    );
    assert!(
        ann_first != ann_second,
        "ann's session is on exactly one instance"
    );

    let who = strict_ssh_args(entry, "bob", &known_hosts, bob)
        .into_iter()
        .chain(["who".to_owned()])
        .collect::<Vec<_>>();
    let (text, ok) = tokio::task::spawn_blocking(move || run_ssh(&ssh, &who, ""))
        .await
        .unwrap();
    assert!(
        ok,
        "bob's ssh failed (a host key that differs would fail it): {text}"
    );
    assert!(text.contains("bob"), "{text}");
    let (other, other_name) = if ann_first {
        (&second, "the second")
    } else {
        (&first, "the first")
    };
    assert!(
        opened_from(other, bob).await,
        "bob, through the proxy while ann holds one instance, is on {other_name}: its log:\n{}",
        other.log()
    );
    drop(staying);
}
