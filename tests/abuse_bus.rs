//! Issue 28, item 9: the bus between instances, attacked as a student on the class's
//! network would. With the real programs: a throwaway PostgreSQL (the store the
//! instances share), nats-server started with a user and password, and `arcade serve`
//! as a process.
//!
//! - An instance without the credentials, or with a wrong password, does not start:
//!   it says the NATS server refused it, naming the URL with its password masked.
//!   With them in the URL it is on the bus; its log never shows the password.
//! - A forger on the bus (a leaked credential, or a bus without any) plays an
//!   instance with a player in a game: the board it sends a watcher reaches the
//!   watcher without its escape sequences and C1 controls, and a `Close` naming no
//!   instance heard on the bus closes nobody.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use futures::StreamExt as _;
use serde_json::{json, Value};
use tokio::time::Instant;

use common::cluster::{Instance, Nats, START_TIMEOUT};
use common::postgres::Postgres;
use common::{eventually, TIMEOUT};

/// The bus's user (docker/nats.conf's) and password (nats-server `--user`, `--pass`,
/// or ARCADE_BUS_PASSWORD for docker/nats.conf).
const USER: &str = "arcade";
const PASSWORD: &str = "Pw-7xQ2zK9";

/// The instance number the forger claims.
const FORGED: u64 = 99;

/// The forger's player: its session number on the forged instance.
const PIA: u64 = 99_000_001;

/// `arcade serve` with `args`, expected to refuse to start: what it printed. Panics
/// if it is still running after [`START_TIMEOUT`] (it started on a bus that should
/// have refused it).
async fn refused_start(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("arcade.log");
    let output = std::fs::File::create(&log).expect("the log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(dir.path())
        .args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(output.try_clone().expect("the log"))
        .stderr(output)
        .spawn()
        .expect("start arcade serve");
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            assert!(!status.success(), "arcade exited with success");
            return std::fs::read_to_string(&log).unwrap_or_default();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "arcade still runs on a bus that refuses it; its log:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A NATS client of the test's own, with the bus's credentials.
async fn client_of(nats: &Nats) -> async_nats::Client {
    async_nats::ConnectOptions::with_user_and_password(USER.into(), PASSWORD.into())
        .connect(nats.addr().to_string())
        .await
        .expect("the test's own NATS client")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bus_takes_credentials_and_never_shows_the_password() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let Some(nats) = Nats::start_with(&["--user", USER, "--pass", PASSWORD], &[]).await else {
        return;
    };
    let db = postgres.database("arcade");
    let port = nats.addr().port();

    // Without credentials, then with a wrong password: no start, and why, and where.
    let bare = format!("nats://127.0.0.1:{port}");
    let said = refused_start(&["--db", &db, "--bus", &bare]).await;
    assert!(
        said.contains(&format!(
            "--bus {bare}: the NATS server refused this instance"
        )),
        "{said}"
    );
    let wrong = format!("nats://{USER}:not-{PASSWORD}@127.0.0.1:{port}");
    let said = refused_start(&["--db", &db, "--bus", &wrong]).await;
    assert!(
        said.contains(&format!(
            "--bus nats://{USER}:***@127.0.0.1:{port}: the NATS server refused this instance"
        )),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");

    // With them in the URL: on the bus, its heartbeat heard by a client that holds
    // them too.
    let listener = client_of(&nats).await;
    let mut presence = listener
        .subscribe("arcade.presence")
        .await
        .expect("subscribe");
    let url = format!("nats://{USER}:{PASSWORD}@127.0.0.1:{port}");
    let instance = Instance::start(&["--db", &db, "--bus", &url]).await;
    let heard = tokio::time::timeout(TIMEOUT, async {
        while let Some(message) = presence.next().await {
            if message.payload.starts_with(b"{\"Heartbeat\"") {
                return;
            }
        }
    })
    .await;
    assert!(
        heard.is_ok(),
        "no heartbeat on the bus; the instance's log:\n{}",
        instance.log()
    );
    let log = instance.log();
    assert!(
        log.contains(&format!("nats://{USER}:***@127.0.0.1:{port}")),
        "{log}"
    );
    assert!(!log.contains(PASSWORD), "{log}");
}

/// What instance [`FORGED`] says every half second: it is alive, and pia plays the
/// wumpus there.
async fn pretend_to_be_an_instance(forger: async_nats::Client) {
    let heartbeat = json!({"Heartbeat": {"from": FORGED, "races": []}});
    let sessions = json!({"Sessions": {"from": FORGED, "gone": [], "changed": [[PIA, {
        "name": "pia",
        "place": {"Game": {"game": "wumpus", "label": ""}},
        "idle": 0, "watchers": 0, "chat": true
    }]]}});
    loop {
        for what in [&heartbeat, &sessions] {
            let _ = forger
                .publish("arcade.presence", what.to_string().into())
                .await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_instance_cannot_paint_a_watchers_screen_nor_close_sessions() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    // Compose's own configuration of the bus, its password from the environment.
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/docker/nats.conf");
    let Some(nats) = Nats::start_with(&["-c", config], &[("ARCADE_BUS_PASSWORD", PASSWORD)]).await
    else {
        return;
    };
    let db = postgres.database("arcade");
    // The credentials as options this time (the URL has none).
    let instance = Instance::start(&[
        "--db",
        &db,
        "--bus",
        &nats.url(),
        "--bus-user",
        USER,
        "--bus-password",
        PASSWORD,
    ])
    .await;

    let forger = client_of(&nats).await;
    let mut inbox = forger
        .subscribe(format!("arcade.to.{FORGED}"))
        .await
        .expect("subscribe");
    let pretending = tokio::spawn(pretend_to_be_an_instance(forger.clone()));

    let mut watcher = instance.client().await;
    eventually(&mut watcher, "who", "pia").await;
    watcher.send("watch pia").await;
    watcher.read_text_until("Type anything to stop.").await;

    // The instance asks the forged one for pia's board: who watches, and from where.
    let (here, session) = tokio::time::timeout(TIMEOUT, async {
        while let Some(message) = inbox.next().await {
            let Ok(read) = serde_json::from_slice::<Value>(&message.payload) else {
                continue;
            };
            let watch = &read["Deliver"]["message"]["Watch"];
            if let (Some(here), Some(session)) =
                (watch["instance"].as_u64(), watch["session"].as_u64())
            {
                return (here, session);
            }
        }
        panic!("the forger's subscription ended");
    })
    .await
    .expect("the instance asks the forged instance for pia's board");
    let to_watcher = |message: Value, from: Option<u64>| {
        json!({"Deliver": {"to": [session], "message": message, "from": from}}).to_string()
    };
    let subject = format!("arcade.to.{here}");

    // A board with a screen clear, a window title, a bell and a C1 CSI in it.
    let board = "+----+\n|\u{1b}[2J\u{1b}]0;pwned\u{7}@\u{9b}31m |\r\n+----+\nend of board\n";
    forger
        .publish(
            subject.clone(),
            to_watcher(json!({"Frame": board}), Some(FORGED)).into(),
        )
        .await
        .expect("publish");
    let shown = watcher.read_until_bytes(b"end of board").await;
    let text = String::from_utf8_lossy(&shown);
    assert!(
        !shown.contains(&0x1b) && !shown.contains(&0x07) && !text.contains('\u{9b}'),
        "{text:?}"
    );
    assert!(text.contains("|[2J]0;pwned@31m |"), "{text:?}");

    // A Close naming no instance: nobody is closed (the line after it still comes).
    for (message, from) in [
        (json!({"Close": "You were kicked."}), None),
        (json!({"Line": "still here"}), Some(FORGED)),
    ] {
        forger
            .publish(subject.clone(), to_watcher(message, from).into())
            .await
            .expect("publish");
    }
    watcher.read_text_until("still here").await;
    watcher.send("").await;
    eventually(&mut watcher, "who", "pia").await;

    // The same from an instance heard on the bus is taken: with credentials, only
    // instances speak there (docs/operating.md, "The bus").
    forger
        .publish(
            subject,
            to_watcher(json!({"Close": "Closed by instance 99."}), Some(FORGED)).into(),
        )
        .await
        .expect("publish");
    let last = watcher.read_to_end().await;
    assert!(last.contains("Closed by instance 99."), "{last:?}");
    pretending.abort();
}
