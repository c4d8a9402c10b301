//! The win rule of `sokoban` over real TCP (SPEC section 3): like the seed's program it
//! takes any number of boxes and targets and is won when every box is on a target. The
//! expected text is the seed's program's own output for the same level and commands,
//! with the server's line endings.

mod common;

use arcade::server::Options;
use common::{crlf, Client, TestServer};

const PROMPT: &str = "Enter command: ";

/// A server with three extra sokoban levels: more targets than boxes, more boxes than
/// targets, and no boxes at all.
async fn server() -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sokoban");
    std::fs::create_dir(&folder).unwrap();
    for (name, level) in [
        ("targets", "#######\n#P+--.#\n#######\n"),
        ("boxes", "#######\n#P+.-.#\n#..+..#\n#######\n"),
        ("empty", "#####\n#P..#\n#####\n"),
    ] {
        std::fs::write(folder.join(format!("{name}.txt")), level).unwrap();
    }
    let options = Options {
        levels: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    (TestServer::start_with(options).await, dir)
}

#[tokio::test]
async fn every_count_of_boxes_and_targets_plays_as_in_the_seed() {
    let (server, _dir) = server().await;
    let mut client = Client::connect(server.addr).await;

    client.send("levels sokoban").await;
    assert_eq!(
        client.read_until("> ").await,
        "sokoban: boxes, classic, empty, targets\r\n> "
    );

    // More targets than boxes: won as soon as the one box is on a target.
    client.send("play sokoban targets").await;
    assert_eq!(
        client.read_until(PROMPT).await,
        crlf("Welcome to Sokoban!\n#######\n#P+--.#\n#######\n") + PROMPT
    );
    client.send("d1").await;
    assert_eq!(
        client.read_until("> ").await,
        crlf("#######\n#.PO-.#\n#######\nWin!\n") + "> "
    );

    // More boxes than targets: a box on the target is not a win, and play goes on.
    client.send("play sokoban boxes").await;
    client.read_until(PROMPT).await;
    client.send("d2").await;
    assert_eq!(
        client.read_until(PROMPT).await,
        crlf("#######\n#..PO.#\n#..+..#\n#######\n") + PROMPT
    );
    client.send("e").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");

    // No boxes: won before the first command, straight back to the lobby.
    client.send("play sokoban empty").await;
    assert_eq!(
        client.read_until("> ").await,
        crlf("Welcome to Sokoban!\n#####\n#P..#\n#####\nWin!\n") + "> "
    );
    client.send("quit").await;
    assert_eq!(client.read_to_end().await, "Goodbye.\r\n");
    server.shutdown().await;
}
