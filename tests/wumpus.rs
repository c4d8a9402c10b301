//! The wumpus world from the outside: the built-in worlds walked through the lobby,
//! saved worlds loaded by name, and bad world files reported by the level store.

use std::path::Path;

use arcade::games::wumpus::{parse_cave, Cave};
use arcade::games::{Game, Memory, Reply, Status, PROMPT};
use arcade::levels::Levels;
use arcade::lobby::{Context, GameKind};

fn context(data_dir: &Path) -> Context {
    let (levels, problems) = Levels::built_in();
    assert!(problems.is_empty(), "{problems:?}");
    Context {
        levels,
        data_dir: data_dir.to_path_buf(),
    }
}

/// A started game and the text of its start.
fn start(world: &str, context: &Context) -> (Box<dyn Game>, Reply) {
    let mut game = GameKind::Wumpus
        .start(&[world], context)
        .unwrap_or_else(|error| panic!("{world}: {error}"));
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
    let mut game = GameKind::Wumpus.start(&[], &context).unwrap();
    let reply = game.start(&mut Memory::default());
    assert_eq!(
        reply.text,
        "Welcome to the Wumpus World!\nYou see light above.\nEnter command: "
    );
    assert_eq!(
        send(game.as_mut(), "quit").text,
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n"
    );
}

#[test]
fn classic_walk_to_the_gold_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let (mut game, _) = start("classic", &context(dir.path()));
    let game = game.as_mut();
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
    let game = game.as_mut();
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
    let game = game.as_mut();
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
    let game = game.as_mut();
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
    repeat(game.as_mut(), "move forward", 1);
    let Status::Save { name, state } = send(game.as_mut(), "save Later").status else {
        panic!("save did not ask the session to save");
    };
    assert_eq!(name, "later");
    // What the session does with it.
    let saves = dir.path().join("wumpus");
    std::fs::create_dir_all(&saves).unwrap();
    std::fs::write(saves.join(format!("{name}.txt")), &state).unwrap();
    assert!(GameKind::Wumpus
        .level_names(&context)
        .contains(&"later".to_string()));
    let (mut game, reply) = start("LATER", &context);
    assert_eq!(
        reply.text, "Welcome to the Wumpus World!\nEnter command: ",
        "the player is at (0,1)"
    );
    assert_eq!(send(game.as_mut(), "quit").text, state);
    // A built-in name cannot be taken.
    let (mut game, _) = start("classic", &context);
    let reply = send(game.as_mut(), "save classic");
    assert_eq!(reply.status, Status::Playing);
}

#[test]
fn unknown_and_damaged_worlds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let context = context(dir.path());
    let error = |args: &[&str]| GameKind::Wumpus.start(args, &context).err().unwrap();
    assert_eq!(
        error(&["nowhere"]),
        "Unknown level: nowhere. Choose one of: big, classic, maze."
    );
    assert_eq!(
        error(&["../../etc/passwd"]),
        "Unknown level: ../../etc/passwd. Choose one of: big, classic, maze."
    );
    assert_eq!(error(&["a", "b"]), "Usage: play wumpus [WORLD]");
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
