//! The harness of tests/common/cluster.rs proven on what runs today: three instances
//! (SQLite each, `--proxy-protocol`, no bus) behind HAProxy on docker/haproxy.cfg share
//! the players out, one killed with SIGKILL is taken out by the health checks and the
//! others take every new player, and restarted it is taken back; nats-server speaks
//! NATS, stops, and starts again on its port.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use common::cluster::{Instance, Nats, Proxy};
use common::{Client, TIMEOUT};

/// The players' names as `who` on one instance lists them (the asking session, a
/// guest, left out).
async fn players_on(instance: &Instance) -> Vec<String> {
    let mut asking = instance.client().await;
    asking.send("who").await;
    let who = asking.read_text_until("> ").await;
    who.lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with("player"))
        .map(str::to_string)
        .collect()
}

/// Ask `instance` for its open sessions until it says `wanted` (a session is counted
/// once registered, a moment after its banner; uncounted once its task has ended).
async fn sessions_become(instance: &Instance, wanted: u64) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let sessions = instance.sessions().await;
        if sessions == wanted {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} has {sessions} sessions, not {wanted}; its log:\n{}",
            instance.addr(),
            instance.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn three_instances_behind_haproxy_share_players_and_survive_a_kill() {
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::start(&[]).await);
    }
    let Some(proxy) = Proxy::start(&instances.iter().collect::<Vec<_>>()).await else {
        return;
    };
    proxy.wait_for(&[true, true, true]).await;

    // A dozen players through the one address: each instance gets some.
    let mut players = BTreeMap::new();
    for n in 1..=12 {
        let name = format!("player{n:02}");
        let mut player = proxy.client().await;
        player.send(&format!("name {name}")).await;
        assert_eq!(
            player.read_text_until("> ").await,
            format!("You are now {name}.\r\n> ")
        );
        players.insert(name, player);
    }
    let mut placed: Vec<Vec<String>> = Vec::new();
    for instance in &instances {
        placed.push(players_on(instance).await);
    }
    println!("players per instance: {placed:?}");
    let mut everyone: Vec<&String> = placed.iter().flatten().collect();
    everyone.sort();
    assert_eq!(
        everyone,
        players.keys().collect::<Vec<_>>(),
        "each player on exactly one instance"
    );
    for (instance, names) in instances.iter().zip(&placed) {
        assert!(!names.is_empty(), "nobody on {}", instance.addr());
    }
    // HAProxy's count of connections per server agrees with each instance's own.
    for (backend, names) in proxy.backends().await.iter().zip(&placed) {
        assert_eq!(backend.sessions, names.len() as u64, "{backend:?}");
    }

    // The second instance killed: HAProxy marks it down (its checks refused), and
    // its players' connections are closed.
    instances[1].kill();
    let killed = Instant::now();
    proxy.wait_for(&[true, false, true]).await;
    println!(
        "marked down {:?} after the kill (checks every 1 s, 2 failures)",
        killed.elapsed()
    );
    for name in &placed[1] {
        let player = players.get_mut(name).expect("a player");
        let rest = player.read_to_end_bytes().await;
        println!(
            "{name} on the killed instance: closed after {} bytes",
            rest.len()
        );
    }

    // Every new player lands on one of the two live instances.
    let before: Vec<u64> = vec![instances[0].sessions().await, instances[2].sessions().await];
    let mut newcomers = Vec::new();
    for _ in 0..8 {
        newcomers.push(proxy.client().await);
    }
    let after = instances[0].sessions().await + instances[2].sessions().await;
    assert_eq!(after, before.iter().sum::<u64>() + 8, "before: {before:?}");

    // Restarted on the same ports, it is up again for HAProxy and, having the fewest
    // connections (leastconn), takes the next player.
    instances[1].restart().await;
    let restarted = Instant::now();
    proxy.wait_for(&[true, true, true]).await;
    println!("up again {:?} after the restart", restarted.elapsed());
    sessions_become(&instances[1], 0).await;
    let mut next: Client = proxy.client().await;
    next.send("name player13").await;
    next.read_text_until("> ").await;
    sessions_become(&instances[1], 1).await;
    assert_eq!(players_on(&instances[1]).await, ["player13"]);
}

/// Send `PING` on a new NATS connection and read up to `PONG`: what the server says.
async fn ping(nats: &Nats) -> String {
    let mut stream = TcpStream::connect(nats.addr()).await.expect("connect");
    stream
        .write_all(b"CONNECT {\"verbose\":false}\r\nPING\r\n")
        .await
        .expect("send");
    let mut said = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&said).contains("PONG\r\n") {
        let read = tokio::time::timeout(TIMEOUT, stream.read(&mut chunk))
            .await
            .expect("nats-server answers in time")
            .expect("read");
        assert!(read > 0, "closed: {:?}", String::from_utf8_lossy(&said));
        said.extend_from_slice(&chunk[..read]);
    }
    String::from_utf8(said).expect("UTF-8")
}

#[tokio::test]
async fn nats_server_answers_stops_and_comes_back_on_its_port() {
    let Some(mut nats) = Nats::start().await else {
        return;
    };
    let url = nats.url();
    assert_eq!(url, format!("nats://127.0.0.1:{}", nats.addr().port()));
    let said = ping(&nats).await;
    assert!(said.starts_with("INFO {"), "{said:?}");
    assert!(said.ends_with("PONG\r\n"), "{said:?}");

    nats.stop();
    assert!(!nats.is_running());
    assert!(
        TcpStream::connect(nats.addr()).await.is_err(),
        "nothing listens once stopped"
    );

    nats.start_again().await;
    assert_eq!(nats.url(), url);
    assert!(ping(&nats).await.ends_with("PONG\r\n"), "{}", nats.log());
}
