//! The wumpus world from the outside: the built-in worlds walked through the lobby,
//! saved worlds loaded by name, bad world files reported by the level store, whole
//! games over TCP (end of file included) and `arcade play wumpus FILE --save OUT`.

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{crlf, Client, TestServer};

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GameKind, NewGame};
use arcade::games::wumpus::{parse_cave, Cave};
use arcade::games::{Game, Memory, Reply, Status, PROMPT};

fn wumpus() -> &'static GameKind {
    GameKind::from_name("wumpus").unwrap()
}

fn context(data_dir: &Path) -> Context {
    let (levels, problems) = Levels::built_in();
    assert!(problems.is_empty(), "{problems:?}");
    Context {
        levels,
        data_dir: data_dir.to_path_buf(),
    }
}

/// A started game and the text of its start.
fn start(world: &str, context: &Context) -> (NewGame, Reply) {
    let mut game =
        (wumpus().start)(&[world], context).unwrap_or_else(|error| panic!("{world}: {error}"));
    let reply = game.start(&mut Memory::default());
    (game, reply)
}

/// Send `line` `times` times; every reply must keep the game going.
fn repeat(game: &mut dyn Game, line: &str, times: usize) -> Vec<String> {
    (0..times)
        .map(|step| {
            let reply = game.handle(line, &mut Memory::default());
            assert_eq!(
                reply.status,
                Status::Playing,
                "{line} #{step}: {}",
                reply.text
            );
            reply.text
        })
        .collect()
}

fn send(game: &mut dyn Game, line: &str) -> Reply {
    game.handle(line, &mut Memory::default())
}

fn prompt(lines: &str) -> String {
    format!("{lines}{PROMPT}")
}

#[test]
fn classic_is_the_seed_example_and_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let context = context(dir.path());
    let mut game = (wumpus().start)(&[], &context).unwrap();
    let reply = game.start(&mut Memory::default());
    assert_eq!(
        reply.text,
        "Welcome to the Wumpus World!\nYou see light above.\nEnter command: "
    );
    assert_eq!(
        send(&mut game, "quit").text,
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n"
    );
}

#[test]
fn classic_walk_to_the_gold_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let (mut game, _) = start("classic", &context(dir.path()));
    let game = &mut game;
    // South down the west side, east along the bottom row.
    assert_eq!(
        repeat(game, "move forward", 3)[1],
        prompt("You feel a breeze.\n")
    );
    assert_eq!(repeat(game, "turn left", 1)[0], prompt(""));
    assert_eq!(
        repeat(game, "move forward", 2),
        [prompt("You feel a breeze.\n"), prompt("")]
    );
    // From (2,3) east to (3,3): glitter; and on turns and bumps there.
    let glitter = prompt("You smell a wumpus.\nYou see glitter.\n");
    assert_eq!(repeat(game, "move forward", 1)[0], glitter);
    assert_eq!(
        repeat(game, "move forward", 1)[0],
        prompt("You bumped into a wall.\nYou smell a wumpus.\nYou see glitter.\n")
    );
    assert_eq!(repeat(game, "turn left", 1)[0], glitter);
    assert_eq!(
        repeat(game, "shoot", 1)[0],
        prompt("You killed the wumpus.\nYou see glitter.\n")
    );
    assert_eq!(
        repeat(game, "shoot", 1)[0],
        prompt("That command has no effect.\n")
    );
    assert_eq!(
        repeat(game, "grab", 1)[0],
        prompt("You grabbed the gold.\n")
    );
    assert_eq!(
        repeat(game, "grab", 1)[0],
        prompt("That command had no effect.\n")
    );
    // North through the dead wumpus's room to (3,0), west to (0,0).
    assert_eq!(
        repeat(game, "move forward", 3),
        [prompt(""), prompt(""), prompt("You feel a breeze.\n")]
    );
    repeat(game, "turn left", 1);
    assert_eq!(
        repeat(game, "climb", 1)[0],
        prompt("You bumped into a wall.\nYou feel a breeze.\n")
    );
    // (2,0) is a pit: go round it through row 1.
    repeat(game, "turn left", 1);
    repeat(game, "move forward", 1);
    repeat(game, "turn right", 1);
    repeat(game, "move forward", 3);
    repeat(game, "turn right", 1);
    assert_eq!(
        repeat(game, "move forward", 1)[0],
        prompt("You see light above.\n")
    );
    let reply = send(game, "climb");
    assert_eq!(
        reply.text,
        "You are out with the gold.\ndim 4 4\nplayer 0 0 3 1 0\npit 2 0\npit 1 2\nexit 0 0\n"
    );
    assert_eq!(reply.status, Status::Ended);
}

#[test]
fn maze_walk_round_the_blocked_rooms() {
    let dir = tempfile::tempdir().unwrap();
    let (mut game, reply) = start("maze", &context(dir.path()));
    assert!(reply
        .text
        .ends_with("You see light above.\nEnter command: "));
    let game = &mut game;
    let bump = prompt("You bumped into a wall.\n");
    let breeze = prompt("You feel a breeze.\n");
    // East to (1,0); (2,0) is blocked.
    assert_eq!(repeat(game, "move forward", 2), [prompt(""), bump.clone()]);
    // South to (1,3), next to the pit at (0,3).
    repeat(game, "turn right", 1);
    assert_eq!(
        repeat(game, "move forward", 3),
        [prompt(""), prompt(""), breeze.clone()]
    );
    repeat(game, "turn left", 1);
    // East to (3,3), next to the wumpus at (4,3): shoot it.
    assert_eq!(
        repeat(game, "move forward", 2),
        [prompt(""), prompt("You smell a wumpus.\n")]
    );
    assert_eq!(
        repeat(game, "shoot", 1)[0],
        prompt("You killed the wumpus.\n")
    );
    // North to (3,0) and a bump on the outer wall; east to the gold at (4,0).
    repeat(game, "turn left", 1);
    assert_eq!(
        repeat(game, "move forward", 4),
        [prompt(""), prompt(""), prompt(""), bump.clone()]
    );
    repeat(game, "turn right", 1);
    assert_eq!(
        repeat(game, "move forward", 1)[0],
        prompt("You see glitter.\n")
    );
    // (4,1) is fine, (4,2) is blocked.
    repeat(game, "turn right", 1);
    assert_eq!(repeat(game, "move forward", 2), [prompt(""), bump.clone()]);
    repeat(game, "turn left", 1);
    repeat(game, "turn left", 1);
    repeat(game, "move forward", 1);
    assert_eq!(
        repeat(game, "grab", 1)[0],
        prompt("You grabbed the gold.\n")
    );
    // Back the same way.
    repeat(game, "turn left", 1);
    repeat(game, "move forward", 1);
    repeat(game, "turn left", 1);
    repeat(game, "move forward", 3);
    repeat(game, "turn right", 1);
    assert_eq!(repeat(game, "move forward", 2)[1], breeze);
    repeat(game, "turn right", 1);
    repeat(game, "move forward", 3);
    repeat(game, "turn left", 1);
    assert_eq!(
        repeat(game, "move forward", 1)[0],
        prompt("You see light above.\n")
    );
    let reply = send(game, "climb");
    assert!(reply.text.starts_with(
        "You are out with the gold.\ndim 5 5\nplayer 0 0 2 1 0\npit 0 3\nexit 0 0\nblocked 2 0\n"
    ));
    assert_eq!(reply.status, Status::Ended);
}

#[test]
fn maze_walking_into_the_wumpus_ends_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let (mut game, _) = start("maze", &context(dir.path()));
    let game = &mut game;
    repeat(game, "move forward", 1);
    repeat(game, "turn right", 1);
    repeat(game, "move forward", 3);
    repeat(game, "turn left", 1);
    repeat(game, "move forward", 2); // (3,3), next to the wumpus at (4,3)
    let reply = send(game, "move forward");
    assert!(
        reply.text.starts_with("You smell a wumpus.\nYou were killed by the wumpus.\ndim 5 5\nplayer 4 3 0 0 1\nwumpus 4 3\n"),
        "{}",
        reply.text
    );
    assert_eq!(reply.status, Status::Ended);
}

#[test]
fn big_walk_across_a_hundred_by_hundred_cave() {
    let dir = tempfile::tempdir().unwrap();
    let context = context(dir.path());
    let (mut game, _) = start("big", &context);
    let game = &mut game;
    // East along row 0: the wumpus waits at (50,0).
    let east = repeat(game, "move forward", 49);
    assert_eq!(east[47], prompt(""));
    assert_eq!(east[48], prompt("You smell a wumpus.\n"));
    assert_eq!(
        repeat(game, "shoot", 1)[0],
        prompt("You killed the wumpus.\n")
    );
    // On to (59,0); (60,0) is blocked.
    let east = repeat(game, "move forward", 11);
    assert!(east[..10].iter().all(|text| text == PROMPT));
    assert_eq!(east[10], prompt("You bumped into a wall.\n"));
    // South down column 59: a pit at (58,50); the blocked column ends at y = 97.
    repeat(game, "turn right", 1);
    let south = repeat(game, "move forward", 100);
    for (step, text) in south.iter().enumerate() {
        let expected = match step + 1 {
            50 => prompt("You feel a breeze.\n"),
            100 => prompt("You bumped into a wall.\n"),
            _ => prompt(""),
        };
        assert_eq!(text, &expected, "south, step {}", step + 1);
    }
    // East along row 99 to the gold: a pit at (70,98).
    repeat(game, "turn left", 1);
    let east = repeat(game, "move forward", 40);
    assert_eq!(east[10], prompt("You feel a breeze.\n"));
    assert_eq!(east[39], prompt("You see glitter.\n"));
    assert_eq!(
        repeat(game, "grab", 1)[0],
        prompt("You grabbed the gold.\n")
    );
    // And all the way back.
    repeat(game, "turn left", 2);
    repeat(game, "move forward", 40);
    repeat(game, "turn right", 1);
    repeat(game, "move forward", 99);
    repeat(game, "turn left", 1);
    let west = repeat(game, "move forward", 59);
    assert_eq!(west[58], prompt("You see light above.\n"));
    let reply = send(game, "climb");
    assert!(reply
        .text
        .starts_with("You are out with the gold.\ndim 100 100\nplayer 0 0 2 1 0\npit 10 10\n"));
    assert_eq!(reply.status, Status::Ended);
}

#[test]
fn saved_worlds_load_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let context = context(dir.path());
    let (mut game, _) = start("classic", &context);
    repeat(&mut game, "move forward", 1);
    let Status::Save { name, state } = send(&mut game, "save Later").status else {
        panic!("save did not ask the session to save");
    };
    assert_eq!(name.as_str(), "later");
    // What the session does with it.
    let quota = arcade::catalog::saves::Quota {
        may_create: true,
        max_saves: 10,
    };
    let said = arcade::catalog::saves::save(dir.path(), "wumpus", &name, &state, quota);
    assert_eq!(said.message, "Saved as later.\n");
    assert!((wumpus().level_names)(&context).contains(&"later".to_string()));
    let (mut game, reply) = start("LATER", &context);
    assert_eq!(
        reply.text, "Welcome to the Wumpus World!\nEnter command: ",
        "the player is at (0,1)"
    );
    assert_eq!(send(&mut game, "quit").text, state);
    // A built-in name cannot be taken.
    let (mut game, _) = start("classic", &context);
    let reply = send(&mut game, "save classic");
    assert_eq!(reply.status, Status::Playing);
}

#[test]
fn unknown_and_damaged_worlds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let context = context(dir.path());
    let error = |args: &[&str]| (wumpus().start)(args, &context).err().unwrap();
    assert_eq!(
        error(&["nowhere"]),
        "Unknown level: nowhere. Choose one of: big, classic, maze."
    );
    assert_eq!(
        error(&["../../etc/passwd"]),
        "Unknown level: ../../etc/passwd. Choose one of: big, classic, maze."
    );
    assert_eq!(
        error(&["a", "b"]),
        "Usage: play wumpus [WORLD] or play wumpus random [seed=N] [size=N] [pits=P]"
    );
    let saves = dir.path().join("wumpus");
    std::fs::create_dir_all(&saves).unwrap();
    std::fs::write(saves.join("broken.txt"), "dim 4 4\nplayer 9 0 0 0 1\n").unwrap();
    assert_eq!(
        error(&["broken"]),
        "The saved world broken cannot be loaded: line 2: position (9, 0) is outside the 4 x 4 cave: x must be 0..=3 and y 0..=3."
    );
}

#[test]
fn a_levels_directory_adds_worlds_and_reports_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let worlds = dir.path().join("wumpus");
    std::fs::create_dir(&worlds).unwrap();
    std::fs::write(
        worlds.join("tiny.txt"),
        "dim 1 1\nplayer 0 0 0 0 0\nexit 0 0\n",
    )
    .unwrap();
    std::fs::write(
        worlds.join("bad.txt"),
        "dim 2 2\nplayer 0 0 0 0 1\nexit 0 0\nexit 1 1\n",
    )
    .unwrap();
    let (levels, problems) = Levels::load(Some(dir.path()));
    let tiny: &Cave = &levels.wumpus.get("tiny").unwrap();
    assert_eq!(
        tiny,
        &parse_cave("dim 1 1\nplayer 0 0 0 0 0\nexit 0 0").unwrap()
    );
    assert!(levels.wumpus.get("bad").is_none());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].to_string().ends_with(
            "bad.txt: line 4: a second `exit` line: a world has only one; remove one of them"
        ),
        "{}",
        problems[0]
    );
}

const CLASSIC: &str =
    "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

#[tokio::test]
async fn a_whole_game_over_tcp() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("PLAY Wumpus").await;
    assert_eq!(
        client.read_until("Enter command: ").await,
        "Welcome to the Wumpus World!\r\nYou see light above.\r\nEnter command: "
    );
    // Down the west side, east to (2,3), east again to the gold.
    let mut received = String::new();
    for line in [
        "move forward",
        "move   FORWARD",
        "move forward",
        "turn left",
        "move forward",
        "move forward",
        "Move Forward",
        "grab",
        "turn left",
        "shoot",
        "shoot",
        "hello",
    ] {
        client.send(line).await;
        received.push_str(&client.read_until("Enter command: ").await);
    }
    let expected = [
        "",
        "You feel a breeze.\n",
        "",
        "",
        "You feel a breeze.\n",
        "",
        "You smell a wumpus.\nYou see glitter.\n",
        "You smell a wumpus.\nYou grabbed the gold.\n",
        "You smell a wumpus.\n",
        "You killed the wumpus.\n",
        "That command has no effect.\n",
        "That command had no effect.\n",
    ]
    .map(|percepts| format!("{percepts}{PROMPT}"))
    .concat();
    assert_eq!(received, crlf(&expected));
    // Back north and west round the pit at (2,0), then out.
    for line in [
        "move forward",
        "move forward",
        "turn left",
        "move forward",
        "move forward",
        "move forward",
        "turn right",
        "move forward",
    ] {
        client.send(line).await;
        client.read_until("Enter command: ").await;
    }
    client.send("climb").await;
    assert_eq!(
        client.read_until("> ").await,
        crlf(
            "You are out with the gold.\ndim 4 4\nplayer 0 0 3 1 0\npit 2 0\npit 1 2\nexit 0 0\n> "
        )
    );
    // The lobby is back.
    client.send("quit").await;
    assert_eq!(client.read_to_end().await, "Goodbye.\r\n");
}

#[tokio::test]
async fn quit_prints_the_state_and_returns_to_the_lobby() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play wumpus classic").await;
    client.read_until("Enter command: ").await;
    client.send("turn right").await;
    client.read_until("Enter command: ").await;
    client.send(" QUIT ").await;
    let state = CLASSIC.replace("0 0 1 0 1", "0 0 2 0 1");
    assert_eq!(client.read_until("> ").await, crlf(&format!("{state}> ")));
}

#[tokio::test]
async fn end_of_file_prints_the_state_then_closes() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("wumpus").await;
    client.read_until("Enter command: ").await;
    client.send("move forward").await;
    client.read_until("Enter command: ").await;
    client.shutdown_write().await;
    let state = CLASSIC.replace("player 0 0", "player 0 1");
    assert_eq!(client.read_to_end().await, crlf(&state));
}

#[tokio::test]
async fn end_of_file_after_an_unfinished_line() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play wumpus maze").await;
    client.read_until("Enter command: ").await;
    client.send_raw(b"move forward\r\nturn right").await;
    client.read_until("Enter command: ").await;
    client.shutdown_write().await;
    // The codec hands over the unfinished last line; the game carries it out, then
    // prints the state.
    let text = client.read_to_end().await;
    assert!(
        text.starts_with("Enter command: dim 5 5\r\nplayer 1 0 1 0 1\r\nwumpus 4 3\r\n"),
        "{text:?}"
    );
    assert!(text.ends_with("blocked 4 2\r\n"), "{text:?}");
}

#[tokio::test]
async fn save_then_load_by_name_over_tcp() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play wumpus").await;
    client.read_until("Enter command: ").await;
    client.send("move forward").await;
    client.read_until("Enter command: ").await;
    client.send("save ../escape").await;
    assert_eq!(
        client.read_until("Enter command: ").await,
        "Cannot save as \"../escape\": use 1 to 32 letters, digits, '-' or '_'.\r\nEnter command: "
    );
    client.send("save Cave-1").await;
    assert_eq!(
        client.read_until("Enter command: ").await,
        "Saved as cave-1.\r\nEnter command: "
    );
    let state = CLASSIC.replace("player 0 0", "player 0 1");
    // A guest's saves live in its session's folder, gone with the session.
    let session = std::fs::read_dir(server.data_dir().join("sessions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let saved = std::fs::read_to_string(session.join("wumpus/cave-1.txt")).unwrap();
    assert_eq!(saved, state);
    client.send("quit").await;
    client.read_until("> ").await;
    client.send("levels wumpus").await;
    assert_eq!(
        client.read_until("> ").await,
        "wumpus: big, cave-1, classic, maze\r\n> "
    );
    client.send("play wumpus CAVE-1").await;
    assert_eq!(
        client.read_until("Enter command: ").await,
        "Welcome to the Wumpus World!\r\nEnter command: "
    );
    client.send("quit").await;
    assert_eq!(client.read_until("> ").await, crlf(&format!("{state}> ")));
}

#[test]
fn play_a_world_file_on_stdin_and_save_the_end_state() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world.txt");
    std::fs::write(&world, CLASSIC).unwrap();
    let out = dir.path().join("out.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("play")
        .arg("wumpus")
        .arg(&world)
        .arg("--save")
        .arg(&out)
        .arg("--data-dir")
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The input ends without a game end: the state is printed and written all the same.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"turn left\nmove forward\n").unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let state = CLASSIC.replace("player 0 0 1", "player 1 0 0");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("Welcome to the Wumpus World!\nYou see light above.\nEnter command: You see light above.\nEnter command: You feel a breeze.\nEnter command: {state}")
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), state);
}

#[test]
fn play_a_random_world_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let play = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_arcade"))
            .args(["play", "wumpus"])
            .args(args)
            .arg("--data-dir")
            .arg(dir.path())
            // No file named `random` where the words are read.
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let output = play(&["random", "seed=1"]);
    assert!(output.status.success(), "{output:?}");
    // Seed 1's world (pinned in games::wumpus::random), printed at the end of input.
    let state = "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 3\ngold 1 2\npit 3 2\nexit 0 0\n";
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("Welcome to the Wumpus World!\nYou see light above.\nEnter command: {state}")
    );
    let output = play(&["random", "size=11"]);
    assert!(!output.status.success());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "size must be 2 to 10.\n"
    );
}

#[test]
fn a_bad_world_file_on_the_command_line_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("bad.txt");
    std::fs::write(&world, "dim 4 4\nplayer 0 0 5 0 1\nexit 0 0\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("play")
        .arg("wumpus")
        .arg(&world)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.ends_with(
            "bad.txt: line 2: orientation 5 is not 0 (east), 1 (south), 2 (west) or 3 (north)\n"
        ),
        "{stderr}"
    );
}

#[test]
fn every_built_in_world_prints_and_loads_back_the_same() {
    let (levels, _) = Levels::built_in();
    let names: Vec<&str> = levels.wumpus.names().collect();
    assert_eq!(names, ["big", "classic", "maze"]);
    for name in names {
        let cave = levels.wumpus.get(name).unwrap();
        let printed = cave.to_string();
        assert_eq!(&parse_cave(&printed).unwrap(), &*cave, "{name}");
        let file = std::fs::read_to_string(format!(
            "{}/levels/wumpus/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let squeezed: String = file
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ") + "\n")
            .collect();
        assert_eq!(
            printed, squeezed,
            "{name} prints as written, one space apart"
        );
    }
}
