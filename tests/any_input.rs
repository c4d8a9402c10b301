//! Whatever a client types, no game panics, and every reply that keeps the game going
//! ends with the prompt: the property behind "nothing a client sends can crash the
//! server or another player's session", checked on the pure games and over TCP.

mod common;

use std::path::PathBuf;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GAMES};
use arcade::games::{Game, Memory, Status, PROMPT};
use common::{Client, TestServer};

fn context() -> Context {
    let (levels, problems) = Levels::built_in();
    assert!(problems.is_empty(), "{problems:?}");
    Context {
        levels,
        data_dir: PathBuf::from("unused-by-these-tests"),
    }
}

/// Lines that look like commands (so the games get deep), mixed with noise.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[wasdhjklbruneqpWASD]",
        "[wasd][0-9]{1,3}",
        "(move forward|turn left|turn right|shoot|grab|climb)",
        "(undo|redo|reset|next|prev|level [0-9]{1,2}|lurd [lurdLURD]{0,12})",
        "(save [a-z]{1,4}|save|save ../x)",
        ".{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_game_answers_any_line(kind_index in 0..GAMES.len(), lines in prop::collection::vec(line(), 0..60)) {
        let kind = &GAMES[kind_index];
        let context = context();
        let args: &[&str] = if kind.name == "2048" { &["seed=1", "size=3", "win=32"] } else { &[] };
        let mut game = (kind.start)(args, &context).map_err(TestCaseError::fail)?;
        let mut memory = Memory::default();
        let mut reply = game.start(&mut memory);
        for line in &lines {
            match &reply.status {
                Status::Ended => break,
                Status::Playing => prop_assert!(reply.text.ends_with(PROMPT), "{:?} after {:?}", reply.text, line),
                Status::Save { .. } => {}
            }
            reply = game.handle(line.trim(), &mut memory);
        }
    }
}

#[tokio::test]
async fn garbage_bytes_hurt_no_one() {
    let server = TestServer::start().await;
    let mut bystander = Client::connect(server.addr).await;
    bystander.send("play sokoban").await;
    bystander.read_until(PROMPT).await;
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for kind in GAMES {
        let mut client = Client::connect(server.addr).await;
        client.send(&format!("play {}", kind.name)).await;
        client.read_until(PROMPT).await;
        for _ in 0..200 {
            let length = rng.random_range(0..1500);
            let mut bytes: Vec<u8> = (0..length).map(|_| rng.random()).collect();
            // Keep the game running so the noise reaches it rather than the lobby.
            for byte in &mut bytes {
                if matches!(*byte, b'e' | b'E' | b'q' | b'Q') {
                    *byte = b'x';
                }
            }
            bytes.extend_from_slice(b"\r\n");
            client.send_raw(&bytes).await;
        }
        // Whatever state the noise left (IAC SE ends a subnegotiation it may have
        // opened), the session still answers in order: leave the game, then the lobby.
        let leave = match kind.name {
            "sokoban" => "e",
            "starpusher" => "exit",
            "2048" => "q",
            _ => "quit",
        };
        client.send_raw(b"\xff\xf0\r\n").await;
        client.send(leave).await;
        client.send("quit").await;
        let rest = client.read_to_end_bytes().await;
        let tail = String::from_utf8_lossy(&rest[rest.len().saturating_sub(200)..]);
        assert!(tail.ends_with("Goodbye.\r\n"), "{}: {tail:?}", kind.name);
    }
    bystander.send("d0").await;
    let board = bystander.read_until(PROMPT).await;
    assert!(board.starts_with("#######\r\n"), "{board:?}");
}
