//! The wumpus agent against real games: it never dies, it never calls a room safe that
//! is not, it brings the gold out when that is safe and climbs out when nothing is.

use super::*;
use crate::games::wumpus::random::{self, Shape};
use crate::games::wumpus::{parse_cave, Cave, Command};

fn load(text: &str) -> Wumpus {
    Wumpus::new(parse_cave(text).unwrap())
}

fn agent_for(cave: &Cave) -> Agent {
    Agent::new(Some(cave.dim()))
}

/// Plays one random world, checking after every step that each room the agent calls
/// safe is safe in the real cave.
fn play_checked(seed: u64, shape: Shape) -> Episode {
    let cave = random::generate(seed, shape);
    let mut game = Wumpus::new(cave.clone());
    let mut agent = agent_for(&cave);
    let mut memory = Memory::default();
    let mut reply = game.start(&mut memory);
    let mut lines = Vec::new();
    let mut outcome = game.take_finish().map(|f| f.outcome);
    while reply.status != Status::Ended && lines.len() < 1000 {
        let percepts = percepts_in(&reply.text);
        let player = game.cave().player();
        let observation = Observation {
            pos: player.pos,
            facing: player.facing,
            percepts: &percepts,
        };
        let Some(action) = agent.act(&observation) else {
            break;
        };
        let real = game.cave();
        let knowledge = agent.knowledge();
        for y in 0..cave.dim().height {
            for x in 0..cave.dim().width {
                let room = Pos::new(x, y);
                if knowledge.is_safe(room) {
                    assert!(
                        !real.pits().contains(&room) && real.wumpus() != Some(room),
                        "seed {seed}: {room} called safe\n{real}"
                    );
                }
                if knowledge.pit(room) == Pit::Yes {
                    assert!(real.pits().contains(&room), "seed {seed}: {room} pit");
                }
            }
        }
        if let Some(wumpus) = knowledge.wumpus_located() {
            assert_eq!(real.wumpus(), Some(wumpus), "seed {seed}");
        }
        lines.push(line(action));
        reply = game.handle(line(action), &mut memory);
        outcome = outcome.or(game.take_finish().map(|f| f.outcome));
    }
    Episode {
        outcome,
        actions: game.progress().moves,
        arrow_spent: !game.cave().player().has_arrow,
        lines,
    }
}

#[test]
fn it_never_dies_and_never_calls_an_unsafe_room_safe() {
    let mut won = 0;
    for seed in 0..2000 {
        let episode = play_checked(seed, Shape::default());
        assert_ne!(episode.outcome, Some(Outcome::Died), "seed {seed}");
        // Every game ends by climbing out: the exit is the start.
        assert!(
            matches!(episode.outcome, Some(Outcome::Won | Outcome::Stopped)),
            "seed {seed}: {episode:?}"
        );
        won += usize::from(episode.outcome == Some(Outcome::Won));
    }
    // A third of these worlds breeze at the start, where no move is safe; the agent
    // brings the gold out of more than half (1,101 of these 2,000 when written).
    assert!(won > 1000, "{won} of 2000");
}

#[test]
fn other_shapes_are_safe_too() {
    for (size, pits) in [(2, 200_000), (3, 500_000), (6, 100_000), (10, 300_000)] {
        for seed in 0..100 {
            let episode = play_checked(seed, Shape { size, pits });
            assert_ne!(episode.outcome, Some(Outcome::Died), "{size} {seed}");
        }
    }
}

#[test]
fn it_brings_the_gold_out_of_a_safe_world() {
    // No pits; the wumpus far away in the corner; the gold two rooms east.
    let text = "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 3\ngold 2 0\nexit 0 0\n";
    let mut game = load(text);
    let mut agent = agent_for(game.cave());
    let episode = play(&mut game, &mut agent, 1000);
    assert_eq!(episode.outcome, Some(Outcome::Won), "{episode:?}");
    assert!(!episode.arrow_spent);
    assert_eq!(episode.lines.last(), Some(&"climb"));
    assert!(episode.lines.contains(&"grab"));
    assert_eq!(
        episode.score(),
        1000 - i64::try_from(episode.actions).unwrap()
    );
}

#[test]
fn it_climbs_out_when_no_move_is_safe() {
    // A breeze at the start: either neighbour may be the pit.
    let text = "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 3\ngold 3 0\npit 1 0\nexit 0 0\n";
    let mut game = load(text);
    let mut agent = agent_for(game.cave());
    let episode = play(&mut game, &mut agent, 1000);
    assert_eq!(episode.lines, ["climb"]);
    assert_eq!(episode.outcome, Some(Outcome::Stopped));
    assert_eq!(episode.score(), -1);
}

#[test]
fn it_shoots_the_wumpus_that_bars_the_way() {
    // A corridor: the wumpus between the start and the gold.
    let text = "dim 3 1\nplayer 0 0 1 0 1\nwumpus 1 0\ngold 2 0\nexit 0 0\n";
    let mut game = load(text);
    let mut agent = agent_for(game.cave());
    let episode = play(&mut game, &mut agent, 1000);
    assert_eq!(episode.outcome, Some(Outcome::Won), "{episode:?}");
    assert_eq!(
        episode.lines,
        [
            "turn left",
            "shoot",
            "move forward",
            "move forward",
            "grab",
            "turn left",
            "turn left",
            "move forward",
            "move forward",
            "climb"
        ]
    );
    assert!(episode.arrow_spent);
    assert_eq!(episode.score(), 1000 - 10 - 10);
}

#[test]
fn a_shot_at_a_suspect_clears_it() {
    // A smell at the start: the wumpus is east or south. A shot south misses, so south
    // is safe (no breeze: no pit) and the wumpus is east.
    let text = "dim 3 3\nplayer 0 0 1 0 1\nwumpus 1 0\ngold 0 2\nexit 0 0\n";
    let mut game = load(text);
    let mut agent = agent_for(game.cave());
    let episode = play(&mut game, &mut agent, 1000);
    assert_eq!(episode.lines[0], "shoot");
    assert_eq!(episode.outcome, Some(Outcome::Won), "{episode:?}");
}

#[test]
fn it_learns_walls_and_rock_by_bumping_when_the_size_is_unknown() {
    // The maze: blocked rooms; the agent is not told the size.
    let text = "dim 5 5\nplayer 0 0 0 0 1\nwumpus 4 3\ngold 4 0\npit 0 3\nexit 0 0\nblocked 2 0\nblocked 2 1\nblocked 2 2\nblocked 0 2\nblocked 4 2\n";
    let mut game = load(text);
    let mut agent = Agent::new(None);
    let episode = play(&mut game, &mut agent, 10_000);
    assert_ne!(episode.outcome, Some(Outcome::Died), "{episode:?}");
    assert!(agent.knowledge().is_wall(Pos::new(2, 0)));
    // The classic world, the size unknown: never dies either.
    let classic = "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";
    let mut game = load(classic);
    let episode = play(&mut game, &mut Agent::new(None), 10_000);
    assert_ne!(episode.outcome, Some(Outcome::Died), "{episode:?}");
}

#[test]
fn lines_are_commands_and_percepts_read_back() {
    for action in [
        Action::MoveForward,
        Action::TurnLeft,
        Action::TurnRight,
        Action::Shoot,
        Action::Grab,
        Action::Climb,
    ] {
        assert_eq!(Command::parse(line(action)), Ok(Command::Act(action)));
    }
    let text = "Welcome to the Wumpus World!\nYou smell a wumpus.\nYou feel a breeze.\nYou feel a breeze.\nYou see light above.\nEnter command: ";
    assert_eq!(
        percepts_in(text),
        [
            Percept::Smell,
            Percept::Breeze,
            Percept::Breeze,
            Percept::Light
        ]
    );
    for percept in PERCEPTS {
        assert_eq!(percepts_in(percept.text()), [percept]);
    }
}
