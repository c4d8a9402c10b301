//! Recordings, results, leaderboards and resume over real TCP (SPEC section 8).

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::{Client, TestServer, TO_THE_GOLD};

#[tokio::test]
async fn a_dropped_game_is_resumed_finished_ranked_and_replayed() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    ann.send("play wumpus").await;
    ann.read_text_until("Enter command: ").await;
    for line in TO_THE_GOLD {
        ann.send(line).await;
        ann.read_text_until("Enter command: ").await;
    }
    // The connection drops mid-game.
    drop(ann);
    tokio::time::sleep(Duration::from_millis(200)).await;

    let (mut ann, said) = common::log_in(server.addr, "ann", "secret-ann").await;
    assert!(
        said.ends_with(
            "You are now ann.\r\nYou have an unfinished wumpus game. Type resume to continue it.\r\n> "
        ),
        "{said:?}"
    );
    common::resume_at_the_gold_and_climb(&mut ann).await;

    // The result is checked by replay, then ranked.
    let top = common::eventually(&mut ann, "top wumpus", "ann").await;
    // The time played at the end of the line is the test's own pace: left out.
    let (ranked, played) = top.rsplit_once("  (").unwrap_or_else(|| panic!("{top}"));
    assert_eq!(
        ranked,
        "wumpus classic, most wins with the gold, then fewest actions:\r\n   1. ann              1 win, best in 18 actions"
    );
    assert!(played.ends_with("s)\r\n> "), "{top}");
    ann.send("stats").await;
    let stats = ann.read_text_until("> ").await;
    assert!(stats.starts_with("ann: 1 game recorded, "), "{stats}");
    assert!(
        stats.contains("wumpus classic: out with the gold in 18 actions"),
        "{stats}"
    );

    // A teacher lists and replays it, fast.
    let mut teacher = Client::connect(server.addr).await;
    teacher.send("recordings ann").await;
    let list = teacher.read_text_until("> ").await;
    let line = list
        .lines()
        .find(|line| line.contains(" ann "))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(line.contains("wumpus"), "{line}");
    assert!(line.contains("won"), "{line}");
    let id: i64 = line.split_whitespace().next().unwrap().parse().unwrap();
    teacher.send(&format!("replay {id} 100")).await;
    let replay = teacher
        .read_text_until(&format!("End of recording {id}.\r\n> "))
        .await;
    assert!(
        replay.starts_with(&format!(
            "Recording {id}: ann playing wumpus. Type anything to stop.\r\nWelcome to the Wumpus World!\r\n"
        )),
        "{replay}"
    );
    assert!(
        replay.contains("grab\r\nYou smell a wumpus.\r\nYou grabbed the gold.\r\n"),
        "{replay}"
    );
    assert!(
        replay.contains("climb\r\nYou are out with the gold.\r\n"),
        "{replay}"
    );
    // The command line exports it as an asciicast v2 file.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["export", &id.to_string(), "--data-dir"])
        .arg(server.data_dir())
        .output()
        .expect("run arcade export");
    assert!(output.status.success(), "{output:?}");
    let cast = String::from_utf8(output.stdout).unwrap();
    let mut lines = cast.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert!(header["width"].as_u64().unwrap() >= 80);
    assert!(header["height"].as_u64().unwrap() >= 24);
    let mut last_time = 0.0;
    let mut shown = String::new();
    for line in lines {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let time = event[0].as_f64().unwrap();
        assert!(time >= last_time, "{line}");
        last_time = time;
        assert_eq!(event[1], "o");
        let text = event[2].as_str().unwrap();
        assert!(!text.replace("\r\n", "").contains('\n'), "{line}");
        shown.push_str(text);
    }
    assert!(
        shown.starts_with("Welcome to the Wumpus World!\r\n"),
        "{shown}"
    );
    assert!(
        shown.contains("climb\r\nYou are out with the gold.\r\n"),
        "{shown}"
    );
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["export", "424242", "--data-dir"])
        .arg(server.data_dir())
        .output()
        .expect("run arcade export");
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("No recording 424242 in sqlite://")
    );

    teacher.send("replay 999999").await;
    assert_eq!(
        teacher.read_text_until("> ").await,
        "No recording 999999.\r\n> "
    );
    teacher.send("replay x").await;
    assert!(teacher
        .read_text_until("> ")
        .await
        .starts_with("Usage: replay ID"));
    server.shutdown().await;
}

#[tokio::test]
async fn an_unseeded_2048_comes_back_exactly_with_its_undo_history() {
    let server = TestServer::start().await;
    let mut bo = common::registered(server.addr, "bo", "secret-bo").await;
    bo.send("play 2048").await;
    bo.read_text_until("Enter command: ").await;
    // Every board the player saw (a refused move answers without one).
    let mut boards = Vec::new();
    for key in ["a", "w", "d", "s", "a", "w", "d", "s"] {
        bo.send(key).await;
        let reply = bo.read_text_until("Enter command: ").await;
        if reply.contains("Score: ") {
            boards.push(reply);
        }
    }
    assert!(boards.len() >= 2, "two moves at least slid: {boards:?}");
    drop(bo);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (mut bo, said) = common::log_in(server.addr, "bo", "secret-bo").await;
    assert!(said.contains("You have an unfinished 2048 game."), "{said}");
    bo.send("resume").await;
    let resumed = bo.read_text_until("Enter command: ").await;
    // The board, score, best and step as the player last saw them.
    let last = &boards[boards.len() - 1];
    assert_eq!(
        resumed,
        format!("Your 2048 game, as you left it.\r\n{last}")
    );
    // The undo history came back too: one undo shows the board before the last move.
    bo.send("b").await;
    let undone = bo.read_text_until("Enter command: ").await;
    assert!(undone.contains("Score: "), "{undone}");
    assert!(!undone.contains("Nothing to undo"), "{undone}");
    let board_of = |reply: &str| {
        reply
            .split("Score: ")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(board_of(&undone), board_of(&boards[boards.len() - 2]));
    server.shutdown().await;
}

#[tokio::test]
async fn a_game_outlives_a_server_restart() {
    let data = tempfile::tempdir().unwrap();
    let options = || Options {
        data_dir: data.path().to_path_buf(),
        ..Options::default()
    };
    let server = TestServer::start_with(options()).await;
    let mut cy = common::registered(server.addr, "cy", "secret-cy").await;
    cy.send("play sokoban").await;
    cy.read_text_until("Enter command: ").await;
    cy.send("w1").await;
    let board = cy.read_text_until("Enter command: ").await;
    let stopping = tokio::spawn(server.shutdown());
    assert_eq!(
        cy.read_to_end().await,
        "\r\nServer shutting down. Your game is kept: type resume when you are back.\r\n"
    );
    stopping.await.unwrap();

    let server = TestServer::start_with(options()).await;
    let (mut cy, said) = common::log_in(server.addr, "cy", "secret-cy").await;
    assert!(
        said.contains("You have an unfinished sokoban game."),
        "{said}"
    );
    // A new game first asks to confirm.
    cy.send("play 2048 seed=1").await;
    assert_eq!(
        cy.read_text_until("> ").await,
        "You have an unfinished sokoban game: type resume to continue it,\r\nor play again to give it up.\r\n> "
    );
    cy.send("resume").await;
    assert_eq!(
        cy.read_text_until("Enter command: ").await,
        format!("Your sokoban game, as you left it.\r\n{board}")
    );
    server.shutdown().await;
}

#[tokio::test]
async fn guests_have_nothing_to_resume_and_unknown_names_get_one_line() {
    let server = TestServer::start().await;
    let mut guest = Client::connect(server.addr).await;
    guest.send("resume").await;
    assert_eq!(
        guest.read_text_until("> ").await,
        "Only a registered name's games are kept (register): nothing to resume.\r\n> "
    );
    guest.send("top chess").await;
    assert!(guest
        .read_text_until("> ")
        .await
        .starts_with("Unknown game: chess. Choose one of: "));
    guest.send("stats nobody").await;
    assert_eq!(
        guest.read_text_until("> ").await,
        "No games recorded for nobody.\r\n> "
    );
    guest.send("top").await;
    assert!(guest
        .read_text_until("> ")
        .await
        .starts_with("No results yet"));
    // A guest's game is recorded too, but gives no result.
    guest.send("play 2048 seed=3").await;
    guest.read_text_until("Enter command: ").await;
    guest.send("q").await;
    guest.read_text_until("> ").await;
    let list = common::eventually(&mut guest, "recordings", "2048").await;
    assert!(list.contains("guest-"), "{list}");
    guest.send("top 2048").await;
    assert!(guest.read_text_until("> ").await.contains("no results yet"));
    server.shutdown().await;
}

#[tokio::test]
async fn a_saved_world_belongs_to_its_player() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    ann.send("play wumpus").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("save mine").await;
    assert_eq!(
        ann.read_text_until("Enter command: ").await,
        "Saved as mine.\r\nEnter command: "
    );
    assert!(server
        .data_dir()
        .join("players/ann/wumpus/mine.txt")
        .is_file());
    let mut bob = Client::connect(server.addr).await;
    bob.send("levels wumpus").await;
    assert!(!bob.read_text_until("> ").await.contains("mine"));
    bob.send("play wumpus mine").await;
    assert!(bob
        .read_text_until("> ")
        .await
        .starts_with("Unknown level: mine."));
    ann.send("quit").await;
    ann.read_text_until("> ").await;
    ann.send("resume").await;
    assert_eq!(
        ann.read_text_until("> ").await,
        "You have no unfinished game.\r\n> "
    );
    ann.send("play wumpus mine").await;
    assert!(ann
        .read_text_until("Enter command: ")
        .await
        .starts_with("Welcome to the Wumpus World!"));
    server.shutdown().await;
}

#[tokio::test]
async fn a_forged_result_stays_off_the_leaderboards() {
    use arcade::games::{Finish, Outcome};
    use arcade::records::recording::Start;
    use arcade::store::{Change, DbUrl, NewRecording, NewResult, RecordingState, Store};
    let data = tempfile::tempdir().unwrap();
    // A recording that walks once, and a result that says it solved the level.
    let store = Store::open(&DbUrl::in_data_dir(data.path())).await.unwrap();
    let start = Start {
        game: String::from("sokoban"),
        args: Vec::new(),
        memory: String::new(),
        world: None,
    };
    let now = arcade::records::recorder::now_ms();
    let finish = Finish {
        moves: 3,
        ..Finish::new(Outcome::Solved)
    };
    store
        .write(&[
            Change::Open(Box::new(NewRecording {
                id: 1,
                player: String::from("mallory"),
                player_key: String::from("mallory"),
                registered: true,
                start,
                level: String::from("classic"),
                race: None,
                started_at: now,
            })),
            Change::Inputs {
                id: 1,
                first: 0,
                lines: String::from("5 w1\n"),
            },
            Change::State {
                id: 1,
                state: RecordingState::Ended,
                outcome: Some(Outcome::Solved),
                played: None,
            },
            Change::Result(Box::new(NewResult {
                recording_id: 1,
                upto: 1,
                player: String::from("mallory"),
                player_key: String::from("mallory"),
                registered: true,
                bot: false,
                game: String::from("sokoban"),
                level: String::from("classic"),
                args: String::new(),
                finish,
                duration_ms: 5,
                finished_at: now,
                helped: false,
            })),
        ])
        .await
        .unwrap();
    store.close().await;
    let server = TestServer::start_with(Options {
        data_dir: data.path().to_path_buf(),
        ..Options::default()
    })
    .await;
    let mut client = Client::connect(server.addr).await;
    // Checked at start: the result is marked, and not ranked.
    let store = Store::open(&DbUrl::in_data_dir(data.path())).await.unwrap();
    for _ in 0..50 {
        if store.pending_results(10).await.unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(store.pending_results(10).await.unwrap().is_empty());
    client.send("top sokoban").await;
    let top = client.read_text_until("> ").await;
    assert!(!top.contains("mallory"), "{top}");
    assert!(top.contains("no results yet"), "{top}");
    server.shutdown().await;
}

#[tokio::test]
async fn old_recordings_are_swept_and_kept_results_stay() {
    use arcade::records::recording::Start;
    use arcade::store::{Change, DbUrl, NewRecording, RecordingState, Store};
    let store = Store::open(&DbUrl::Memory).await.unwrap();
    let old = arcade::records::recorder::now_ms() - 100 * 24 * 3600 * 1000;
    let mut changes = Vec::new();
    for (id, registered) in [(1, false), (2, false), (3, true)] {
        changes.push(Change::Open(Box::new(NewRecording {
            id,
            player: format!("p{id}"),
            player_key: format!("p{id}"),
            registered,
            start: Start {
                game: String::from("2048"),
                args: vec![String::from("seed=1")],
                memory: String::new(),
                world: None,
            },
            level: String::from("size=4"),
            race: None,
            started_at: if id == 2 {
                arcade::records::recorder::now_ms()
            } else {
                old
            },
        })));
        changes.push(Change::State {
            id,
            state: RecordingState::Ended,
            outcome: None,
            played: None,
        });
    }
    store.write(&changes).await.unwrap();
    let deleted =
        arcade::records::recorder::sweep(&store, arcade::records::recorder::Retention::default())
            .await
            .unwrap();
    // The old guest's goes; the recent one stays; a registered player's without a
    // result goes too, like any game that gave no result.
    assert_eq!(deleted, 2);
    assert!(store.recording(1).await.unwrap().is_none());
    assert!(store.recording(2).await.unwrap().is_some());
    assert!(store.recording(3).await.unwrap().is_none());
}

#[test]
fn a_damaged_database_stops_the_start_with_its_path() {
    let data = tempfile::tempdir().unwrap();
    let db = data.path().join("arcade.db");
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(data.path())
        .output()
        .expect("run arcade serve");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains(&db.display().to_string()), "{said}");
}

#[tokio::test]
async fn each_game_dropped_mid_way_comes_back_as_it_was() {
    let server = TestServer::start().await;
    // 2048's seed is one where each move moves a tile, so that the last reply is a
    // board (a move that does nothing answers without one).
    for (n, (game, args, moves)) in [
        ("sokoban", "", &["w1", "a2", "s1"][..]),
        ("starpusher", "", &["d", "u", "d"][..]),
        ("2048", " seed=1", &["a", "d", "w"][..]),
        (
            "wumpus",
            "",
            &["move forward", "turn left", "move forward"][..],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("player{n}");
        let mut player = common::registered(server.addr, &name, "secret-pw").await;
        player.send(&format!("play {game}{args}")).await;
        let mut last = player.read_text_until("Enter command: ").await;
        for line in moves {
            player.send(line).await;
            last = player.read_text_until("Enter command: ").await;
        }
        drop(player);
        let (mut player, said) = common::log_in(server.addr, &name, "secret-pw").await;
        assert!(
            said.contains(&format!("You have an unfinished {game} game.")),
            "{game}: {said}"
        );
        player.send("resume").await;
        let resumed = player.read_text_until("Enter command: ").await;
        let header = format!("Your {game} game, as you left it.\r\n");
        assert!(resumed.starts_with(&header), "{game}: {resumed}");
        if game != "wumpus" {
            // A board game shows the board as the last move left it.
            assert_eq!(resumed, format!("{header}{last}"), "{game}");
        } else {
            // The explorer perceives the room it stands in: (1,1), next to a pit.
            assert_eq!(
                resumed,
                format!("{header}You feel a breeze.\r\nEnter command: ")
            );
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_game_taken_over_from_another_connection_is_resumed_there() {
    let server = TestServer::start().await;
    let mut laptop = common::registered(server.addr, "dee", "secret-dee").await;
    laptop.send("play sokoban").await;
    laptop.read_text_until("Enter command: ").await;
    laptop.send("w1").await;
    let board = laptop.read_text_until("Enter command: ").await;
    // The same player from another machine, while the first connection still plays.
    let (mut desktop, said) = common::log_in(server.addr, "dee", "secret-dee").await;
    assert!(
        said.ends_with(
            "You are now dee.\r\nYou have an unfinished sokoban game. Type resume to continue it.\r\n> "
        ),
        "{said}"
    );
    assert_eq!(
        laptop.read_to_end().await,
        "\r\nSomeone logged in as dee from elsewhere.\r\n"
    );
    desktop.send("resume").await;
    assert_eq!(
        desktop.read_text_until("Enter command: ").await,
        format!("Your sokoban game, as you left it.\r\n{board}")
    );
    server.shutdown().await;
}
