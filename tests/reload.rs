//! Levels without a restart: an admin's `reload` and SIGHUP read `--levels` again; new
//! games get the new files, games in progress keep theirs, problems are reported.

mod common;

use std::path::Path;
use std::time::Duration;

use arcade::server::Options;
use common::{Client, TestServer};

/// A corridor: the player, a box, a goal.
const SHORT: &str = "#####\n#P+-#\n#####\n";
/// A longer corridor under the same name, written while a game of it is played.
const LONGER: &str = "######\n#P+.-#\n######\n";

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join("sokoban").join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn ask(client: &mut Client, line: &str, until: &str) -> String {
    client.send(line).await;
    client.read_text_until(until).await
}

#[tokio::test]
async fn reload_gives_new_games_the_new_files_and_games_in_progress_keep_theirs() {
    let levels = tempfile::tempdir().unwrap();
    write(levels.path(), "corridor.txt", SHORT);
    let options = Options {
        levels: Some(levels.path().to_path_buf()),
        admin: vec![String::from("teacher")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let mut teacher = common::admin(&server, "teacher", "secret-teacher").await;
    let mut ann = Client::connect(server.addr).await;
    let mut bob = Client::connect(server.addr).await;

    let first = ask(&mut ann, "play sokoban corridor", "Enter command: ").await;
    assert!(
        first.ends_with("#####\r\n#P+-#\r\n#####\r\nEnter command: "),
        "{first}"
    );
    // During the lab: the corridor gets longer, a level is added, one is broken.
    write(levels.path(), "corridor.txt", LONGER);
    write(levels.path(), "added.txt", SHORT);
    write(levels.path(), "broken.txt", "#####\n#PP+-#\n#####\n");
    assert_eq!(
        ask(&mut bob, "play sokoban added", "> ").await,
        "Unknown level: added. Choose one of: classic, corridor.\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "reload", "> ").await,
        "Only admins can do that.\r\n> "
    );
    let reloaded = ask(&mut teacher, "reload", "> ").await;
    assert!(
        reloaded.starts_with(
            "Levels reloaded: 3 sokoban levels, 1 starpusher collections, 3 wumpus worlds; 1 problem (skipped):\r\n  "
        ),
        "{reloaded}"
    );
    assert!(reloaded.contains("broken.txt"), "{reloaded}");
    // New games get the new files.
    let added = ask(&mut bob, "play sokoban added", "Enter command: ").await;
    // bob used `reload`: his first game of a kind says how to get help and out.
    assert!(
        added.starts_with("/help lists this game's commands, /leave goes back to the lobby.\r\nWelcome to Sokoban!\r\n#####\r\n"),
        "{added}"
    );
    ask(&mut bob, "e", "> ").await;
    let longer = ask(&mut bob, "play sokoban corridor", "Enter command: ").await;
    assert!(longer.contains("######\r\n#P+.-#\r\n"), "{longer}");
    // The game in progress keeps the corridor it started with: one step solves it.
    let solved = ask(&mut ann, "d1", "> ").await;
    let board: Vec<&str> = solved.lines().take_while(|line| *line != "Win!").collect();
    assert_eq!(board.len(), 3, "{solved}");
    assert_eq!(board[0], "#####", "{solved}");
    assert!(solved.ends_with("Win!\r\n> "), "{solved}");
}

#[test]
fn sighup_reloads_the_levels_of_a_running_server() {
    let levels = tempfile::tempdir().unwrap();
    write(levels.path(), "corridor.txt", SHORT);
    let dir = levels.path().to_str().unwrap().to_string();
    let (mut child, addr, log, _data) = common::spawn_server_process(&["--levels", &dir]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut client = Client::connect(addr).await;
        assert_eq!(
            ask(&mut client, "levels sokoban", "> ").await,
            "sokoban: classic, corridor\r\n> "
        );
        write(levels.path(), "added.txt", SHORT);
        let status = std::process::Command::new("kill")
            .args(["-HUP", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let mut listed = String::new();
        for _ in 0..50 {
            listed = ask(&mut client, "levels sokoban", "> ").await;
            if listed.contains("added") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(listed, "sokoban: added, classic, corridor\r\n> ");
        // The server is still up, and says so: the connection answers.
        assert!(ask(&mut client, "name", "> ")
            .await
            .starts_with("You are guest-"));
    });
    let _ = child.kill();
    let _ = child.wait();
    let log: Vec<String> = std::io::BufRead::lines(log).map_while(Result::ok).collect();
    assert!(
        log.iter()
            .any(|line| line.contains("SIGHUP: reloading the levels")),
        "{log:?}"
    );
    assert!(
        log.iter().any(|line| line.contains("levels reloaded")),
        "{log:?}"
    );
}

/// `/healthz` as text.
async fn health(server: &TestServer) -> String {
    let web = server.web_addr.expect("the web page");
    let response = reqwest::get(format!("http://{web}/healthz"))
        .await
        .expect("GET /healthz");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    response.text().await.expect("the body")
}

/// An empty `--levels` folder at start: the built-in levels, said on `/healthz` (still
/// healthy); a reload while it is empty keeps them, one after it is filled serves its
/// files (and `/healthz` is plain `ok` again), and one after it is emptied again keeps
/// the files in use (issue 30).
#[tokio::test]
async fn an_empty_levels_folder_serves_the_built_in_levels_until_it_is_filled() {
    let levels = tempfile::tempdir().unwrap();
    std::fs::create_dir(levels.path().join("sokoban")).unwrap();
    let options = Options {
        levels: Some(levels.path().to_path_buf()),
        admin: vec![String::from("teacher")],
        http_port: Some(0),
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let dir = levels.path().display().to_string();
    let mut teacher = common::admin(&server, "teacher", "secret-teacher").await;
    let mut ann = Client::connect(server.addr).await;
    let board = ask(&mut ann, "play sokoban", "Enter command: ").await;
    assert!(board.starts_with("Welcome to Sokoban!"), "{board}");
    ask(&mut ann, "e", "> ").await;
    assert_eq!(
        health(&server).await,
        "ok\nlevels: the --levels folder is empty: the built-in levels are served\n"
    );

    assert_eq!(
        ask(&mut teacher, "reload", "> ").await,
        format!(
            "Levels not reloaded: --levels {dir} is still empty. The built-in levels stay.\r\n> "
        )
    );
    write(levels.path(), "corridor.txt", SHORT);
    let reloaded = ask(&mut teacher, "reload", "> ").await;
    assert!(
        reloaded.starts_with("Levels reloaded: 2 sokoban levels"),
        "{reloaded}"
    );
    assert_eq!(health(&server).await, "ok\n");
    let corridor = ask(&mut ann, "play sokoban corridor", "Enter command: ").await;
    assert!(corridor.contains("#P+-#"), "{corridor}");
    ask(&mut ann, "e", "> ").await;

    // Emptied again (files being replaced, say): the corridor stays.
    std::fs::remove_file(levels.path().join("sokoban/corridor.txt")).unwrap();
    assert_eq!(
        ask(&mut teacher, "reload", "> ").await,
        format!("Levels not reloaded: --levels {dir}: the folder is empty: put sokoban/NAME.txt, starpusher/NAME.txt (or .xsb, .sok) or wumpus/NAME.txt inside it. The levels in use stay.\r\n> ")
    );
    let corridor = ask(&mut ann, "play sokoban corridor", "Enter command: ").await;
    assert!(corridor.contains("#P+-#"), "{corridor}");
    assert_eq!(health(&server).await, "ok\n");
    server.shutdown().await;
}
