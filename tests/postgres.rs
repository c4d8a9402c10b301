//! The server on PostgreSQL (`--db postgres://...`, SPEC section 11), end to end over
//! TCP with a throwaway PostgreSQL (tests/common/postgres.rs): what is kept outlives a
//! restart of the server; the server plays on while the database restarts or stops
//! answering, and catches up after; a killed instance's player resumes on another.

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::postgres::Postgres;
use common::{Client, TestServer, TO_THE_GOLD};

fn on(url: &str) -> Options {
    Options {
        db: Some(url.parse().expect("a postgres URL")),
        ..Options::default()
    }
}

/// `moves` of 2048, each answered.
async fn play_2048(player: &mut Client, moves: usize) {
    for key in ["a", "w", "d", "s"].iter().cycle().take(moves) {
        player.send(key).await;
        player.read_text_until("Enter command: ").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_and_accounts_outlive_a_restart_of_the_server() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url = postgres.database("arcade");
    let server = TestServer::start_with(on(&url)).await;
    common::won_wumpus(&server, "ann", "secret-ann", Duration::ZERO).await;
    server.shutdown().await;

    let server = TestServer::start_with(on(&url)).await;
    let (mut ann, said) = common::log_in(server.addr, "ann", "secret-ann").await;
    assert!(said.ends_with("You are now ann.\r\n> "), "{said:?}");
    ann.send("top wumpus").await;
    let top = ann.read_text_until("> ").await;
    assert!(top.contains("1. ann "), "{top}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_plays_on_while_postgresql_restarts_and_catches_up() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url = postgres.database("arcade");
    let server = TestServer::start_with(on(&url)).await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    ann.send("play 2048 seed=1").await;
    ann.read_text_until("Enter command: ").await;
    postgres.stop();
    // Every move answered while the database is down; the writes wait in memory.
    play_2048(&mut ann, 20).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    postgres.start_again();
    ann.send("q").await;
    ann.read_text_until("> ").await;
    // A registration, a recorded game and its result work again.
    common::won_wumpus(&server, "bo", "secret-bo", Duration::ZERO).await;
    // Ann's moves made while the database was down were written.
    let mut teacher = Client::connect(server.addr).await;
    let mut listed = String::new();
    for _ in 0..100 {
        teacher.send("recordings ann").await;
        listed = teacher.read_text_until("> ").await;
        if listed.contains(" 21 lines ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let line = listed
        .lines()
        .find(|line| line.contains("2048"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(line.contains(" 21 lines "), "20 moves and quit: {line}");
    // Its input lines themselves, not only their count.
    let id: i64 = line.split_whitespace().next().unwrap().parse().unwrap();
    let store = arcade::store::Store::open(&url.parse().unwrap())
        .await
        .unwrap();
    let (_, recording) = arcade::records::recording::load(&store, id)
        .await
        .unwrap()
        .expect("ann's recording");
    assert_eq!(recording.inputs.len(), 21);
    store.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_database_blocks_no_session() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url = postgres.database("arcade");
    let server = TestServer::start_with(on(&url)).await;
    drop(common::registered(server.addr, "bo", "secret-bo").await);
    let mut ann = common::named(&server, "ann").await;
    ann.send("play 2048 seed=1").await;
    ann.read_text_until("Enter command: ").await;

    postgres.freeze();
    // Bo's login needs the database: it waits...
    let addr = server.addr;
    let login = tokio::spawn(async move {
        let mut bo = Client::connect(addr).await;
        bo.send("name bo").await;
        bo.read_text_until("Password: ").await;
        bo.send("secret-bo").await;
        // Longer than the client's usual wait: the database is frozen meanwhile.
        tokio::time::timeout(Duration::from_secs(60), bo.read_text_until("> ")).await
    });
    // ...while Ann's game answers every move (each within the client's timeout).
    let started = std::time::Instant::now();
    play_2048(&mut ann, 30).await;
    // Printed, not asserted: each move had the client's timeout to answer.
    println!(
        "30 moves while the database was frozen: {:?}",
        started.elapsed()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        !login.is_finished(),
        "the login waits for the frozen database"
    );
    postgres.thaw();
    let said = login
        .await
        .unwrap()
        .expect("the login answers once the database does");
    assert!(
        said.contains("You are now bo.") || said.contains("database"),
        "the login succeeds or says the database failed: {said:?}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_instances_player_resumes_on_another() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url = postgres.database("arcade");
    let (mut first, first_addr, _first_log, _first_data) =
        common::spawn_server_process(&["--db", &url]);
    let (mut second, second_addr, _second_log, _second_data) =
        common::spawn_server_process(&["--db", &url]);

    let mut ann = common::registered(first_addr, "ann", "secret-ann").await;
    ann.send("play wumpus").await;
    ann.read_text_until("Enter command: ").await;
    for line in TO_THE_GOLD {
        ann.send(line).await;
        ann.read_text_until("Enter command: ").await;
    }
    // What a kill loses at most: the last second of input lines.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    first.kill().expect("kill -9 the first instance");
    let _ = first.wait();
    drop(ann);

    let (mut ann, said) = common::log_in(second_addr, "ann", "secret-ann").await;
    assert!(
        said.contains("You have an unfinished wumpus game. Type resume to continue it."),
        "{said:?}"
    );
    common::resume_at_the_gold_and_climb(&mut ann).await;
    common::eventually(&mut ann, "top wumpus", "ann").await;
    let _ = second.kill();
    let _ = second.wait();
}
