//! `wumpus`: the wumpus world of SPEC section 6 (`seeds/004_*.txt`).
//!
//! The explorer walks a cave of rooms looking for the gold, feeling breezes near pits
//! and smelling the wumpus, with one arrow to shoot it, and climbs out at the exit.
//!
//! - [`cave`] holds the rules: the [`Cave`], actions and percepts;
//! - [`format`](mod@format) reads and prints the world file;
//! - [`random`] makes seeded random worlds of the textbook's shape;
//! - this file turns lines into [`Command`]s and percepts into replies.
//!
//! Like every game it does no I/O: the session writes `save NAME` to the data
//! directory, and `arcade play wumpus FILE --save OUT` ([`Game::state`])
//! writes the final state.

pub mod bot;
pub mod cave;
pub mod describe;
pub mod format;
pub mod random;

use std::fmt::Write as _;

use cave::Pos;
pub use cave::{Action, Cave, NoEffect, Percept};
pub use format::{parse_cave, FormatError};

use super::{
    BadSaveName, Finish, Game, Memory, Outcome, Progress, Reply, SaveName, Status, MAX_SAVE_NAME,
    PROMPT,
};

/// The commands, for `/help` (the seed's game answers any other line with `That
/// command had no effect.`).
const HELP: &str = concat!(
    "  move forward, turn left, turn right   walk and turn\n",
    "  shoot, grab, climb                    the arrow, the gold, out at the exit\n",
    "  save NAME                             keep this world to play again later\n",
    "  quit                                  leave, showing the world\n",
);

/// The world `play wumpus` loads when none is named.
pub const DEFAULT_WORLD: &str = "classic";

const WELCOME: &str = "Welcome to the Wumpus World!\n";

/// One line typed during a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// One of the six actions.
    Act(Action),
    /// `save NAME`.
    Save(SaveName),
    /// `quit`: print the state and leave.
    Quit,
}

/// A line that is not a command the game can carry out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Not a command at all.
    #[error("{}", NoEffect::NotACommand)]
    NotACommand,
    /// `save` without a name, or with more than one word after it.
    #[error("Usage: save NAME (1 to {MAX_SAVE_NAME} letters, digits, '-' or '_').")]
    SaveUsage,
    /// `save` with a name outside the alphabet.
    #[error("{0}")]
    BadName(#[from] BadSaveName),
}

impl Command {
    /// Parse a line: words separated by any white space, in any case.
    ///
    /// # Errors
    /// [`CommandError`] for anything that is not a command; its `Display` is the line
    /// to answer with.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        // At most three words are looked at, compared without lowering a copy.
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            return Err(CommandError::NotACommand);
        };
        let second = words.next();
        let more = words.next().is_some();
        let is = |word: &str, expected: &str| word.eq_ignore_ascii_case(expected);
        if is(first, "save") {
            return match (second, more) {
                (Some(name), false) => Ok(Command::Save(SaveName::parse(name)?)),
                _ => Err(CommandError::SaveUsage),
            };
        }
        if more {
            return Err(CommandError::NotACommand);
        }
        let action = match second {
            None if is(first, "shoot") => Action::Shoot,
            None if is(first, "grab") => Action::Grab,
            None if is(first, "climb") => Action::Climb,
            None if is(first, "quit") => return Ok(Command::Quit),
            Some(second) if is(first, "move") && is(second, "forward") => Action::MoveForward,
            Some(second) if is(first, "turn") && is(second, "left") => Action::TurnLeft,
            Some(second) if is(first, "turn") && is(second, "right") => Action::TurnRight,
            _ => return Err(CommandError::NotACommand),
        };
        Ok(Command::Act(action))
    }
}

/// A reply being written: one line per percept as the cave reports it, and whether
/// one of them ended the game.
struct Percepts {
    text: String,
    ended: bool,
    /// How the game ended, when a percept ended it.
    outcome: Option<Outcome>,
}

impl Percepts {
    /// Percepts to follow `text`.
    fn after(text: String) -> Percepts {
        Percepts {
            text,
            ended: false,
            outcome: None,
        }
    }

    /// The percept's line, as SPEC section 6 prints it.
    fn write(&mut self, percept: Percept) {
        self.text.push_str(percept.text());
        self.text.push('\n');
        self.ended |= percept.ends_game();
        let outcome = match percept {
            Percept::OutWithGold => Some(Outcome::Won),
            Percept::OutWithoutGold => Some(Outcome::Stopped),
            Percept::FellIntoPit | Percept::KilledByWumpus => Some(Outcome::Died),
            _ => None,
        };
        self.outcome = self.outcome.or(outcome);
    }
}

/// One game in the wumpus world.
#[derive(Debug, Clone)]
pub struct Wumpus {
    cave: Cave,
    over: bool,
    /// Actions that had an effect, for the result.
    actions: u64,
    finish: Option<Finish>,
    /// How the game ended by its rules, for a race.
    ended: Option<Outcome>,
    reserved: Vec<String>,
    /// Reader mode: the room and the ways out in words too ([`Game::set_reader`]).
    reader: bool,
    /// The percepts of the last step, for a bot's observation.
    seen: Vec<Percept>,
    /// The rooms the explorer has stood in, in the order first entered: at most the
    /// cave's rooms.
    visited: Vec<Pos>,
}

impl Wumpus {
    /// A game in `cave`, as loaded.
    pub fn new(cave: Cave) -> Wumpus {
        Wumpus {
            cave,
            over: false,
            actions: 0,
            finish: None,
            ended: None,
            reserved: Vec::new(),
            reader: false,
            seen: Vec::new(),
            visited: Vec::new(),
        }
    }

    /// Refuse `save` under these names (lower case): the built-in worlds, which
    /// `play wumpus NAME` finds first, so a save under their name could never be
    /// loaded.
    pub fn with_reserved_names(mut self, names: Vec<String>) -> Wumpus {
        self.reserved = names;
        self
    }

    /// The world as it is now.
    pub fn cave(&self) -> &Cave {
        &self.cave
    }

    /// Whether the game has ended (pit, wumpus, climbed out or quit).
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// After the percepts (written by [`Percepts`]): either the prompt or, when one
    /// of them ended the game, the final state.
    fn report(&mut self, percepts: Percepts) -> Reply {
        let Percepts {
            mut text,
            ended,
            outcome,
        } = percepts;
        if let Some(outcome) = outcome {
            self.ended = Some(outcome);
            self.finish = Some(Finish {
                moves: self.actions,
                gold: outcome == Outcome::Won,
                ..Finish::new(outcome)
            });
        }
        if ended {
            self.end(text)
        } else {
            text.push_str(PROMPT);
            Reply::playing(text)
        }
    }

    /// Reader mode's words after an action that was carried out and did not end the
    /// game, following its percepts: the new room and its ways after a step, the way
    /// ahead after a turn. Bumps, shots and grabs are said by their percepts.
    fn words_after(&self, action: Action, moved: bool, text: &mut String) {
        match action {
            Action::MoveForward if moved => {
                text.push_str(&describe::where_is(&self.cave));
                text.push('\n');
                describe::push_ways(&self.cave, text);
            }
            Action::TurnLeft | Action::TurnRight => {
                describe::push_facing(&self.cave, text);
                describe::push_ahead(&self.cave, text);
            }
            _ => {}
        }
    }

    fn end(&mut self, mut text: String) -> Reply {
        self.over = true;
        let _ = write!(text, "{}", self.cave);
        Reply::ended(text)
    }
}

impl Game for Wumpus {
    fn start(&mut self, _memory: &mut Memory) -> Reply {
        // A saved state may leave the player in a pit or with the wumpus: the game
        // then ends at once, after the percepts.
        let mut text = String::from(WELCOME);
        if self.reader {
            text.push_str(&describe::where_is(&self.cave));
            text.push('\n');
        }
        let mut percepts = Percepts::after(text);
        let mut seen = Vec::new();
        self.cave.room_percepts_each(|percept| {
            percepts.write(percept);
            seen.push(percept);
        });
        self.perceived(seen);
        if self.reader && !percepts.ended {
            describe::push_ways(&self.cave, &mut percepts.text);
            describe::push_carrying(&self.cave, &mut percepts.text);
        }
        self.report(percepts)
    }

    fn handle(&mut self, line: &str, _memory: &mut Memory) -> Reply {
        if self.over {
            return Reply::ended(String::new());
        }
        match Command::parse(line) {
            Ok(Command::Act(action)) => {
                let mut percepts = Percepts::after(String::new());
                let was = self.cave.player().pos;
                let mut seen = Vec::new();
                let acted = self.cave.act_each(action, |percept| {
                    percepts.write(percept);
                    seen.push(percept);
                });
                match acted {
                    Ok(()) => {
                        self.actions += 1;
                        self.perceived(seen);
                        if self.reader && !percepts.ended {
                            let moved = self.cave.player().pos != was;
                            self.words_after(action, moved, &mut percepts.text);
                        }
                        self.report(percepts)
                    }
                    Err(no_effect) => Reply::playing(format!("{no_effect}\n{PROMPT}")),
                }
            }
            Ok(Command::Quit) => self.end(String::new()),
            Ok(Command::Save(name)) if self.reserved.iter().any(|r| r == name.as_str()) => {
                Reply::playing(format!(
                    "Cannot save as {:?}: a built-in world has that name; choose another.\n{PROMPT}",
                    name.as_str()
                ))
            }
            Ok(Command::Save(name)) => Reply {
                text: String::new(),
                status: Status::Save {
                    name,
                    state: self.cave.to_string(),
                },
            },
            Err(error) => Reply::playing(format!("{error}\n{PROMPT}")),
        }
    }

    fn end_of_input(&mut self) -> String {
        if self.over {
            return String::new();
        }
        self.over = true;
        self.cave.to_string()
    }

    fn state(&self) -> Option<String> {
        Some(self.cave.to_string())
    }

    fn view(&self, _memory: &Memory) -> String {
        // No board: what the explorer perceives in the room where it stands.
        let mut percepts = Percepts::after(String::new());
        self.cave
            .room_percepts_each(|percept| percepts.write(percept));
        let mut text = percepts.text;
        text.push_str(PROMPT);
        text
    }

    fn help(&self) -> &'static str {
        HELP
    }

    fn set_reader(&mut self, on: bool) {
        self.reader = on;
    }

    fn describe(&self, _memory: &Memory) -> String {
        let mut text = describe::where_is(&self.cave);
        text.push('\n');
        let mut percepts = Percepts::after(text);
        self.cave
            .room_percepts_each(|percept| percepts.write(percept));
        let mut text = percepts.text;
        describe::push_ways(&self.cave, &mut text);
        describe::push_carrying(&self.cave, &mut text);
        text.push_str(PROMPT);
        text
    }

    fn where_is(&self) -> Option<String> {
        Some(describe::where_is(&self.cave))
    }

    fn exit_command(&self) -> &'static str {
        "quit"
    }

    fn progress(&self) -> Progress {
        let ended = self.ended;
        Progress {
            moves: self.actions,
            gold: Some(self.cave.player().has_gold || ended == Some(Outcome::Won)),
            ended,
            ..Progress::default()
        }
    }

    fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    fn observe(&self, _memory: &Memory) -> super::bot::Observation {
        self.observation()
    }

    fn action_line(&self, action: &str) -> Option<&'static str> {
        bot::action_line(action)
    }
}

/// How far a wumpus game has got, in its own words: `has the gold, 8 actions`, `out
/// with the gold, 12 actions`, `died, 5 actions`.
pub(super) fn how_far(progress: &Progress) -> String {
    let actions = super::words::count(progress.moves, "action", "actions");
    let gold = progress.gold == Some(true);
    match (progress.ended, gold) {
        (Some(Outcome::Won), _) => format!("out with the gold, {actions}"),
        (Some(Outcome::Died), _) => format!("died, {actions}"),
        (Some(_), _) => format!("out without the gold, {actions}"),
        (None, true) => format!("has the gold, {actions}"),
        (None, false) => actions,
    }
}

/// What the other racers hear of a wumpus game going from `before` to `after`: out of
/// the cave (with the gold, in `time`) or dead, or the gold grabbed.
pub(super) fn news(
    before: &Progress,
    after: &Progress,
    time: impl FnOnce() -> String,
) -> Option<String> {
    let actions = super::words::count(after.moves, "action", "actions");
    if before.ended.is_none() {
        match after.ended {
            Some(Outcome::Won) => {
                return Some(format!("came out with the gold in {}: {actions}.", time()))
            }
            Some(Outcome::Died) => return Some(format!("died after {actions}.")),
            Some(_) => return Some(String::from("came out without the gold.")),
            None => {}
        }
    }
    (before.gold == Some(false) && after.gold == Some(true))
        .then(|| String::from("grabbed the gold."))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    fn load(text: &str) -> Wumpus {
        Wumpus::new(parse_cave(text).unwrap())
    }

    /// Play `lines` after the start; return every reply.
    fn play(game: &mut Wumpus, lines: &[&str]) -> Vec<Reply> {
        let mut memory = Memory::default();
        lines
            .iter()
            .map(|line| game.handle(line, &mut memory))
            .collect()
    }

    #[test]
    fn commands_in_any_case_and_spacing() {
        assert_eq!(
            Command::parse("MOVE \t Forward"),
            Ok(Command::Act(Action::MoveForward))
        );
        assert_eq!(
            Command::parse("turn LEFT"),
            Ok(Command::Act(Action::TurnLeft))
        );
        assert_eq!(
            Command::parse("Turn right"),
            Ok(Command::Act(Action::TurnRight))
        );
        assert_eq!(Command::parse("shoot"), Ok(Command::Act(Action::Shoot)));
        assert_eq!(Command::parse("GRAB"), Ok(Command::Act(Action::Grab)));
        assert_eq!(Command::parse("climb"), Ok(Command::Act(Action::Climb)));
        assert_eq!(Command::parse("Quit"), Ok(Command::Quit));
        assert_eq!(
            Command::parse("save My-Cave_2"),
            Ok(Command::Save(SaveName::parse("my-cave_2").unwrap()))
        );
        for bad in [
            "",
            "move",
            "forward",
            "move back",
            "turn",
            "shoot now",
            "moveforward",
            "q",
        ] {
            assert_eq!(
                Command::parse(bad),
                Err(CommandError::NotACommand),
                "{bad:?}"
            );
        }
        assert_eq!(Command::parse("save"), Err(CommandError::SaveUsage));
        assert_eq!(Command::parse("save a b"), Err(CommandError::SaveUsage));
        assert_eq!(
            Command::parse("save ../etc").unwrap_err().to_string(),
            "Cannot save as \"../etc\": use 1 to 32 letters, digits, '-' or '_'."
        );
    }

    #[test]
    fn progress_counts_actions_and_says_how_it_ended() {
        let mut game = load(CLASSIC);
        game.start(&mut Memory::default());
        assert_eq!(game.progress().gold, Some(false));
        assert_eq!(game.progress().ended, None);
        // Three actions, then two more that end in the pit at (1,2).
        play(&mut game, &["move forward", "turn left", "move forward"]);
        assert_eq!(game.progress().moves, 3);
        let reply = play(&mut game, &["turn right", "move forward"])
            .pop()
            .unwrap();
        assert_eq!(reply.status, Status::Ended, "{}", reply.text);
        assert_eq!(game.progress().ended, Some(Outcome::Died));
        assert_eq!(game.progress().gold, Some(false));
    }

    #[test]
    fn save_names() {
        assert!(SaveName::parse(&"x".repeat(32)).is_ok());
        for bad in ["", "a.txt", "a/b", "é", "a b", &"x".repeat(33)] {
            assert!(SaveName::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn welcome_then_the_starting_room_then_the_prompt() {
        let reply = load(CLASSIC).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            "Welcome to the Wumpus World!\nYou see light above.\nEnter command: "
        );
        assert_eq!(reply.status, Status::Playing);
    }

    #[test]
    fn a_whole_game_with_the_gold() {
        let mut game = load(CLASSIC);
        let replies = play(
            &mut game,
            &[
                "move forward", // (0,1)
                "move forward", // (0,2): breeze from (1,2)
                "move forward", // (0,3)
                "turn left",    // east
                "move forward", // (1,3): breeze
                "move forward", // (2,3)
                "turn left",    // north
                "shoot",        // into (2,2): a miss
                "turn right",   // east
                "move forward", // (3,3): smell, glitter
                "grab",
                "grab",
                "shoot",
            ],
        );
        let texts: Vec<&str> = replies.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Enter command: ",
                "You feel a breeze.\nEnter command: ",
                "Enter command: ",
                "Enter command: ",
                "You feel a breeze.\nEnter command: ",
                "Enter command: ",
                "Enter command: ",
                "Your arrow disappeared into the darkness.\nEnter command: ",
                "Enter command: ",
                "You smell a wumpus.\nYou see glitter.\nEnter command: ",
                "You smell a wumpus.\nYou grabbed the gold.\nEnter command: ",
                "That command had no effect.\nEnter command: ",
                "That command has no effect.\nEnter command: ",
            ]
        );
        assert!(replies.iter().all(|r| r.status == Status::Playing));
        let state = game.cave().to_string();
        assert_eq!(
            state,
            "dim 4 4\nplayer 3 3 0 1 0\nwumpus 3 2\npit 2 0\npit 1 2\nexit 0 0\n"
        );
    }

    #[test]
    fn falling_prints_percepts_then_the_state_and_ends() {
        let mut game = load(CLASSIC);
        let replies = play(&mut game, &["turn left", "move forward", "move forward"]);
        let last = replies.last().unwrap();
        assert_eq!(
            last.text,
            "You feel a breeze.\nYou fell into a pit.\ndim 4 4\nplayer 2 0 0 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n"
        );
        assert_eq!(last.status, Status::Ended);
        assert!(game.is_over());
        assert_eq!(game.end_of_input(), "");
    }

    #[test]
    fn climbing_out_prints_only_the_out_line_and_the_state() {
        let mut game = load(CLASSIC);
        let reply = play(&mut game, &["climb"]).remove(0);
        assert_eq!(
            reply.text,
            format!("You are out without the gold.\n{CLASSIC}")
        );
        assert_eq!(reply.status, Status::Ended);
        let mut game = load(&CLASSIC.replace("0 0 1 0 1", "0 0 1 1 1"));
        let reply = play(&mut game, &["climb"]).remove(0);
        assert!(reply
            .text
            .starts_with("You are out with the gold.\ndim 4 4\n"));
    }

    #[test]
    fn climbing_away_from_the_exit_bumps() {
        let mut game = load(CLASSIC);
        let replies = play(&mut game, &["move forward", "climb"]);
        assert_eq!(replies[1].text, "You bumped into a wall.\nEnter command: ");
    }

    #[test]
    fn invalid_lines_have_no_effect() {
        let mut game = load(CLASSIC);
        let replies = play(&mut game, &["dance", "", "save", "save a/b"]);
        assert_eq!(
            replies[0].text,
            "That command had no effect.\nEnter command: "
        );
        assert_eq!(
            replies[1].text,
            "That command had no effect.\nEnter command: "
        );
        assert!(replies[2].text.starts_with("Usage: save NAME"));
        assert!(replies[3].text.starts_with("Cannot save as \"a/b\""));
        assert!(replies.iter().all(|r| r.status == Status::Playing));
    }

    #[test]
    fn quit_and_end_of_input_print_the_state() {
        let mut game = load(CLASSIC);
        let reply = play(&mut game, &["move forward", "quit"]).remove(1);
        assert_eq!(reply.text, CLASSIC.replace("player 0 0", "player 0 1"));
        assert_eq!(reply.status, Status::Ended);
        let mut game = load(CLASSIC);
        play(&mut game, &["turn right"]);
        assert_eq!(
            game.end_of_input(),
            CLASSIC.replace("0 0 1 0 1", "0 0 2 0 1")
        );
    }

    #[test]
    fn save_hands_the_state_to_the_session() {
        let mut game = load(CLASSIC).with_reserved_names(vec!["classic".into()]);
        let reply = play(&mut game, &["save Mine"]).remove(0);
        assert_eq!(
            reply.status,
            Status::Save {
                name: SaveName::parse("mine").unwrap(),
                state: CLASSIC.into()
            }
        );
        assert_eq!(reply.text, "");
        let reply = play(&mut game, &["save CLASSIC"]).remove(0);
        assert_eq!(reply.status, Status::Playing);
        assert!(reply.text.contains("a built-in world has that name"));
        assert!(reply.text.ends_with(PROMPT));
    }

    #[test]
    fn a_state_left_in_a_pit_ends_at_the_start() {
        let dead = "dim 4 4\nplayer 2 0 0 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";
        let reply = load(dead).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            format!(
                "Welcome to the Wumpus World!\nYou feel a breeze.\nYou fell into a pit.\n{dead}"
            )
        );
        assert_eq!(reply.status, Status::Ended);
    }

    #[test]
    fn round_trip_after_play() {
        let mut game = load(CLASSIC);
        play(
            &mut game,
            &["move forward", "shoot", "turn left", "move forward"],
        );
        let state = game.cave().to_string();
        let again = parse_cave(&state).unwrap();
        assert_eq!(&again, game.cave());
        assert_eq!(again.to_string(), state);
    }
}

#[cfg(test)]
mod reader_tests {
    use super::*;
    use crate::games::reader::problem;

    const CLASSIC: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    fn game(reader: bool) -> Wumpus {
        let mut game = Wumpus::new(parse_cave(CLASSIC).unwrap());
        game.set_reader(reader);
        game
    }

    /// Each line's reply text, checked fit for a reader.
    fn said(game: &mut Wumpus, lines: &[&str]) -> Vec<String> {
        let mut memory = Memory::default();
        lines
            .iter()
            .map(|line| {
                let text = game.handle(line, &mut memory).text;
                assert_eq!(problem(&text), None, "{text}");
                text
            })
            .collect()
    }

    #[test]
    fn the_classic_world_starts_with_the_room_and_the_ways_out() {
        let reply = game(true).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            "Welcome to the Wumpus World!\n\
             You are in room (0, 0), the north-west corner, facing south.\n\
             You see light above.\n\
             You can move forward south to room (0, 1).\n\
             Left, east: room (1, 0).\n\
             Right, west: a wall.\n\
             Behind, north: a wall.\n\
             You carry your arrow and no gold.\n\
             Enter command: "
        );
        assert_eq!(reply.status, Status::Playing);
    }

    #[test]
    fn moves_and_turns_say_the_room_and_the_way_ahead() {
        let mut game = game(true);
        let texts = said(
            &mut game,
            &[
                "move forward",
                "move forward",
                "turn left",
                "shoot",
                "dance",
            ],
        );
        assert_eq!(
            texts,
            [
                "You are in room (0, 1), on the west side, facing south.\n\
                 You can move forward south to room (0, 2).\n\
                 Left, east: room (1, 1).\nRight, west: a wall.\nBehind, north: room (0, 0).\n\
                 Enter command: ",
                "You feel a breeze.\n\
                 You are in room (0, 2), on the west side, facing south.\n\
                 You can move forward south to room (0, 3).\n\
                 Left, east: room (1, 2).\nRight, west: a wall.\nBehind, north: room (0, 1).\n\
                 Enter command: ",
                "You feel a breeze.\nYou face east.\n\
                 You can move forward east to room (1, 2).\nEnter command: ",
                "Your arrow disappeared into the darkness.\nYou feel a breeze.\n\
                 Enter command: ",
                "That command had no effect.\nEnter command: ",
            ]
        );
        assert_eq!(
            game.where_is().as_deref(),
            Some("You are in room (0, 2), on the west side, facing east.")
        );
        assert_eq!(
            game.describe(&Memory::default()),
            "You are in room (0, 2), on the west side, facing east.\n\
             You feel a breeze.\n\
             You can move forward east to room (1, 2).\n\
             Left, north: room (0, 1).\nRight, south: room (0, 3).\nBehind, west: a wall.\n\
             You carry no gold, and your arrow is spent.\nEnter command: "
        );
        // The last step, into the pit: the percepts and the world, as without a reader.
        let last = said(&mut game, &["move forward"]).remove(0);
        assert!(
            last.starts_with("You feel a breeze.\nYou fell into a pit.\ndim 4 4\n"),
            "{last}"
        );
        assert!(game.is_over());
    }

    #[test]
    fn reader_mode_changes_words_only() {
        let lines = [
            "move forward",
            "turn left",
            "move forward",
            "shoot",
            "grab",
            "climb",
            "turn right",
            "turn right",
            "move forward",
            "climb",
            "turn right",
            "move forward",
            "climb",
        ];
        let (mut words, mut drawn) = (game(true), game(false));
        let mut memory = Memory::default();
        words.start(&mut memory);
        drawn.start(&mut memory);
        for line in lines {
            let (said, shown) = (
                words.handle(line, &mut memory),
                drawn.handle(line, &mut memory),
            );
            assert_eq!(said.status, shown.status, "{line}");
            assert_eq!(words.progress(), drawn.progress(), "{line}");
            assert_eq!(words.take_finish(), drawn.take_finish(), "{line}");
            // The percepts come first, as SPEC prints them.
            assert!(
                said.text.starts_with(shown.text.trim_end_matches(PROMPT)),
                "{line}"
            );
        }
        assert_eq!(words.state(), drawn.state());
        assert!(words.is_over());
    }
}
