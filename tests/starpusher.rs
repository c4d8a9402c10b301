//! Star Pusher over real TCP: a level played by single moves and one by `lurd` to the
//! solved line and on to the next level, the end of the collection, and the public
//! collections loaded with `--levels`.

mod common;

use arcade::server::Options;
use common::{crlf, Client, TestServer};

const PROMPT: &str = "Enter command: ";

/// The kept solution of level `number` of the built-in `arcade` collection.
fn solution(number: usize) -> String {
    include_str!("../levels/starpusher/arcade.solutions")
        .lines()
        .find_map(|line| {
            let (n, moves) = line.split_once(' ')?;
            (n.parse() == Ok(number)).then(|| moves.to_string())
        })
        .expect("a kept solution")
}

async fn command(client: &mut Client, line: &str) -> String {
    client.send(line).await;
    client.read_until(PROMPT).await
}

#[tokio::test]
async fn plays_levels_by_single_moves_and_by_lurd_to_the_solved_line_and_on() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;

    let start = command(&mut client, "play starpusher").await;
    assert_eq!(
        start,
        crlf(
            "Welcome to Star Pusher! Collection arcade: 25 levels.\nType help for the commands.\n\
             Level 1: First Push\n#######\n#@ $ .#\n#######\nLevel 1/25  Moves: 0  Pushes: 0\n"
        ) + PROMPT
    );

    let reply = command(&mut client, "d").await;
    assert_eq!(
        reply,
        crlf("#######\n# @$ .#\n#######\nLevel 1/25  Moves: 1  Pushes: 0\n") + PROMPT
    );
    let reply = command(&mut client, "D").await;
    assert!(
        reply.contains("Level 1/25  Moves: 2  Pushes: 1\r\n"),
        "{reply:?}"
    );
    let reply = command(&mut client, "d").await;
    assert!(
        reply.starts_with(&crlf(
            "#######\n#   @*#\n#######\nLevel 1 solved in 3 moves and 2 pushes!\n\
             Level 2: Around the Bend\n"
        )),
        "{reply:?}"
    );
    assert!(reply.ends_with(&(crlf("Level 2/25  Moves: 0  Pushes: 0\n") + PROMPT)));

    let moves = solution(2);
    let pushes = moves.chars().filter(char::is_ascii_uppercase).count();
    let reply = command(&mut client, &format!("LURD {moves}")).await;
    let solved = format!(
        "Level 2 solved in {} moves and {pushes} pushes!\r\nLevel 3: Four Winds\r\n",
        moves.len()
    );
    assert!(reply.contains(&solved), "{reply:?}");
    assert!(reply.ends_with(&(crlf("Level 3/25  Moves: 0  Pushes: 0\n") + PROMPT)));

    let reply = command(&mut client, "lurd rr").await;
    assert!(
        reply.starts_with("Replay stopped at move 1 of 2 (r): that move pushes a box"),
        "{reply:?}"
    );
    let reply = command(&mut client, "u").await;
    assert!(reply.starts_with("Nothing to undo.\r\n"), "{reply:?}");

    client.send("exit").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");
    server.shutdown().await;
}

#[tokio::test]
async fn the_last_level_completes_the_collection_and_returns_to_the_lobby() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    let start = command(&mut client, "starpusher arcade 25").await;
    assert!(
        start.contains("Level 25: Warehouse at Night\r\n"),
        "{start:?}"
    );
    client.send(&format!("lurd {}", solution(25))).await;
    let end = client.read_until("> ").await;
    assert!(
        end.ends_with("pushes!\r\nCollection complete!\r\n> "),
        "{end:?}"
    );
    assert!(end.contains("Level 25 solved in "), "{end:?}");
    client.send("play starpusher arcade 26").await;
    assert_eq!(
        client.read_until("> ").await,
        "No level 26 in arcade: choose a number from 1 to 25.\r\n> "
    );
    server.shutdown().await;
}

#[tokio::test]
async fn public_collections_load_with_levels_dir() {
    let Some(shared) = common::shared_levels() else {
        return;
    };
    // Copied at run time into a temporary --levels directory, never into the repository.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("starpusher");
    std::fs::create_dir(&folder).unwrap();
    for name in ["starPusherLevels.txt", "microban_155.xsb"] {
        std::fs::copy(shared.join(name), folder.join(name)).unwrap();
    }
    let options = Options {
        levels: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut client = Client::connect(server.addr).await;

    client.send("levels starpusher").await;
    assert_eq!(
        client.read_until("> ").await,
        "starpusher: arcade (25 levels), microban_155 (155 levels),\r\n  starpusherlevels (201 levels)\r\n> "
    );

    let start = command(&mut client, "play starpusher microban_155 44").await;
    assert!(
        start.ends_with(
            &(crlf("Level 44: Duh!\n#####\n#@$.#\n#####\nLevel 44/155  Moves: 0  Pushes: 0\n")
                + PROMPT)
        ),
        "{start:?}"
    );
    let reply = command(&mut client, "d").await;
    assert!(
        reply
            .starts_with("#####\r\n# @*#\r\n#####\r\nLevel 44 solved in 1 moves and 1 pushes!\r\n"),
        "{reply:?}"
    );
    assert!(
        reply.contains("Level 45/155  Moves: 0  Pushes: 0\r\n"),
        "{reply:?}"
    );
    client.send("exit").await;
    client.read_until("> ").await;

    let start = command(&mut client, "starpusher starpusherlevels 201").await;
    assert!(
        start.contains("Collection starpusherlevels: 201 levels."),
        "{start:?}"
    );
    assert!(
        start.contains("Level 201/201  Moves: 0  Pushes: 0\r\n"),
        "{start:?}"
    );
    server.shutdown().await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn twenty_million_moves_leave_the_server_memory_within_a_few_megabytes() {
    let (mut server, addr, _log, _data) = common::spawn_server_process(&[]);
    let mut client = Client::connect(addr).await;
    // Level 1 is `#@ $ .#`: right and left again never touch the box.
    command(&mut client, "play starpusher arcade 1").await;
    let line = format!("lurd {}", "rl".repeat(500));
    command(&mut client, &line).await;
    let before = common::resident_bytes(server.id());
    // 20,000 lines of 1,000 moves, sent in batches so that replies keep flowing.
    for _ in 0..200 {
        let batch = format!("{line}\r\n").repeat(100);
        client.send_raw(batch.as_bytes()).await;
        for _ in 0..100 {
            client.read_until(PROMPT).await;
        }
    }
    let status = command(&mut client, "d0").await;
    assert!(status.contains("Moves: 20001000  Pushes: 0"), "{status}");
    let grown = common::resident_bytes(server.id()).saturating_sub(before);
    // Without a bound on the history this is about 40 MB (2 bytes a move). The game's
    // recording keeps its first 4 MiB of input and may hold them in memory on their way
    // to the database (the client types faster than a disk writes), once in the
    // writer's queue and once merged into its batch: the bound is 4 MiB for the game
    // plus twice that, far below the 40 MB an unbounded history would take.
    let bound = 4 * 1024 * 1024 + 2 * arcade::records::recorder::MAX_RECORDED_BYTES;
    assert!(grown < bound, "the server grew by {grown} bytes");
    server.kill().expect("stop the server");
    let _ = server.wait();
}
