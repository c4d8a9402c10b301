//! `starpusher`: Sokoban level collections in the standard format (SPEC section 4).
//!
//! [`xsb`] reads collections, [`lurd`] reads solution strings, `command` the lines a
//! player types, and this file holds the per-level history (undo/redo) and the
//! rendering. Moving,
//! pushing and the win check are the shared rules of [`super::world`], the same ones
//! `sokoban` plays by.
//!
//! Choices where the spec is silent:
//! - When a level starts, a line `Level N: TITLE (by AUTHOR)` is shown if the file
//!   gave a title or author; the status line follows every board.
//! - Boards are drawn with trailing floor trimmed from each row, so a board copied from
//!   the terminal is a valid level again.
//! - Every reply that keeps the game going is: any message, the board, the status line,
//!   the prompt. An empty line just draws the board again.
//! - A move that cannot take even one step says why (`You cannot move left: a wall is
//!   in the way.`); a counted walk that stops early says nothing, as in `sokoban`.
//! - Changing level (next, prev, level N, or solving one) starts that level afresh.
//! - Solving a level draws the solved board, then the spec's line, then the next level.
//! - A `lurd` replay that stops takes back nothing it played before the stop; a letter
//!   whose case does not match is not played. Moves after a solve are ignored.
//! - `quit` leaves like `exit`; `help` lists the commands.
//! - Undo keeps the last 10 000 moves of a level ([`MAX_UNDO`], two bytes a move), so
//!   that a scripted client replaying `lurd` lines cannot grow a session's memory
//!   without bound; no person plays that many moves on one level. The first time a
//!   level passes it, the reply says `Only the last 10000 moves can be undone.`, and an
//!   undo past the kept moves says `Nothing more to undo: only the last 10000 moves can
//!   be undone.` Moves and Pushes keep counting every move, dropped ones included.
//!   There is no cap on the moves themselves: the counters are plain numbers.

mod bot;
mod command;
pub mod lurd;
pub mod xsb;

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;

pub use self::command::{Command, CommandError};
use self::lurd::Lurd;
use self::xsb::{Collection, CollectionLevel};
use super::boxes::{Boxes, Undo};
use super::reader::boxes;
use super::world::{Direction, Glyphs, Step, Walk, World};
use super::{Finish, Game, Memory, Outcome, Progress, Reply, BYE, PROMPT};

/// The standard glyphs, used both in files and on screen.
pub const GLYPHS: Glyphs = Glyphs {
    wall: b'#',
    floor: b' ',
    goal: b'.',
    box_on_floor: b'$',
    box_on_goal: b'*',
    player: b'@',
    player_on_goal: b'+',
};
const _: () = assert!(GLYPHS.is_ascii(), "board glyphs must be ASCII");

/// How many moves of a level `undo` can take back at most; older ones are dropped.
/// The redo list, filled only by undo, is bounded by the same number.
pub const MAX_UNDO: usize = super::boxes::MAX_HISTORY;

const COMPLETE: &str = "Collection complete!\n";
/// The commands; the undo line's number is [`MAX_UNDO`] (a test checks they agree).
const HELP: &str = "\
Commands (case does not matter, except in lurd moves):
  w a s d [N]   walk or push up, left, down, right; d3 walks three steps
  u, undo       take back one move (a push is one move), up to the last 10000
  redo          play the move taken back again
  r, reset      back to the start of the level
  n, next       the next level
  p, prev       the previous level
  level N       go to level N
  lurd MOVES    play moves: l u r d, upper case for pushes (lurd rrUUl)
  e, exit       back to the lobby
";

/// Why a game cannot start where asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The collection holds no level at all.
    #[error("Collection {name} has no levels: fix its file.")]
    Empty {
        /// The collection's name.
        name: String,
    },
    /// The level number is not in the collection.
    #[error("No level {number} in {name}: choose a number from 1 to {count}.")]
    NoSuchLevel {
        /// The collection's name.
        name: String,
        /// The number asked for, as typed.
        number: String,
        /// How many levels there are.
        count: usize,
    },
}

fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Left => "left",
        Direction::Right => "right",
    }
}

/// Append a board in the standard glyphs, trailing floor trimmed from each row: what
/// the player sees, and a valid level again if copied into a file.
pub fn render(world: &World, out: &mut String) {
    world.render_trimmed_into(&GLYPHS, out);
}

/// One game: a collection, the level being played and its move history.
#[derive(Debug, Clone)]
pub struct StarPusher {
    /// The last level solved, until the console takes it as a result.
    finish: Option<Finish>,
    name: String,
    collection: Arc<Collection>,
    index: usize,
    world: World,
    /// The latest moves played on this level, oldest first: at most [`MAX_UNDO`],
    /// the oldest dropped to make room, so that its memory stays bounded however many
    /// moves a client sends.
    history: VecDeque<Step>,
    /// How many of the oldest moves were dropped from `history`; the moves made on
    /// this level are these and the ones in `history`.
    dropped: usize,
    /// How many moves made on this level pushed a box, dropped ones included, kept as
    /// moves are made and taken back so the status line after every command costs
    /// nothing however long the history.
    pushes: usize,
    /// Moves taken back, the most recent last; cleared by any new move. Never longer
    /// than [`MAX_UNDO`]: a move gets here only off `history`, and a redo moves it back.
    redo: Vec<Step>,
    /// This level only (a race): changing level is refused and solving it ends the
    /// game.
    only: bool,
    /// Reader mode: words instead of the board ([`Game::set_reader`]).
    reader: bool,
}

impl StarPusher {
    /// A game on level `number` (1-based) of the collection called `name`.
    ///
    /// # Errors
    /// [`StartError`] when the collection is empty or has no such level.
    pub fn new(
        name: &str,
        collection: Arc<Collection>,
        number: usize,
    ) -> Result<StarPusher, StartError> {
        let count = collection.levels.len();
        if count == 0 {
            return Err(StartError::Empty {
                name: name.to_string(),
            });
        }
        let index = number
            .checked_sub(1)
            .filter(|&index| index < count)
            .ok_or_else(|| StartError::NoSuchLevel {
                name: name.to_string(),
                number: number.to_string(),
                count,
            })?;
        let world = World::new(Arc::clone(&collection.levels[index].level));
        Ok(StarPusher {
            finish: None,
            name: name.to_string(),
            collection,
            index,
            world,
            history: VecDeque::new(),
            dropped: 0,
            pushes: 0,
            redo: Vec::new(),
            only: false,
            reader: false,
        })
    }

    /// The same game on its level only, as a race plays it: `level`, `next` and
    /// `prev` are refused, and solving the level ends the game.
    pub fn one_level(mut self) -> StarPusher {
        self.only = true;
        self
    }

    /// The state of play on the current level.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The 1-based number of the level being played.
    pub fn level_number(&self) -> usize {
        self.index + 1
    }

    /// Moves made on this level so far, the ones dropped from the history included.
    pub fn moves(&self) -> usize {
        self.dropped.saturating_add(self.history.len())
    }

    /// Moves that pushed a box.
    pub fn pushes(&self) -> usize {
        self.pushes
    }

    /// The moves made on this level, as a LURD string; `None` once the oldest have
    /// been dropped from the history (more than [`MAX_UNDO`] moves), since the rest
    /// would not replay from the level's start.
    pub fn solution(&self) -> Option<Lurd> {
        (self.dropped == 0).then(|| Lurd::from(self.history.iter().copied().collect::<Vec<_>>()))
    }

    fn current(&self) -> &CollectionLevel {
        &self.collection.levels[self.index]
    }

    fn count(&self) -> usize {
        self.collection.levels.len()
    }

    fn go_to(&mut self, index: usize) {
        self.index = index;
        self.world = World::new(Arc::clone(&self.current().level));
        self.history.clear();
        self.dropped = 0;
        self.pushes = 0;
        self.redo.clear();
    }

    /// A new move: onto the history, and the moves taken back can no longer be redone.
    /// Says so in `text` when the move is the first to push the oldest out of the
    /// history.
    fn record(&mut self, step: Step, text: &mut String) {
        self.push_history(step, text);
        self.redo.clear();
    }

    /// Every move onto the history goes through here, to keep the counts and the
    /// bound. When the history is full the oldest move is dropped; its push, if it was
    /// one, stays counted, since the box did move. The first drop on a level is said
    /// in `text`.
    fn push_history(&mut self, step: Step, text: &mut String) {
        self.pushes += usize::from(step.push);
        if self.history.len() >= MAX_UNDO {
            self.history.pop_front();
            self.dropped = self.dropped.saturating_add(1);
            if self.dropped == 1 {
                let _ = writeln!(text, "Only the last {MAX_UNDO} moves can be undone.");
            }
        }
        self.history.push_back(step);
    }

    /// Every move off the history goes through here, to keep the push count.
    fn pop_history(&mut self) -> Option<Step> {
        let step = self.history.pop_back()?;
        self.pushes -= usize::from(step.push);
        Some(step)
    }

    fn render_board(&self, out: &mut String) {
        render(&self.world, out);
    }

    fn status(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "Level {}/{}  Moves: {}  Pushes: {}",
            self.level_number(),
            self.count(),
            self.moves(),
            self.pushes()
        );
    }

    /// The board, the status line and the prompt. In reader mode the board is not
    /// drawn: it has not changed, or the caller has said in `text` what did.
    fn board_then_prompt(&self, mut text: String) -> Reply {
        if !self.reader {
            self.render_board(&mut text);
        }
        self.status(&mut text);
        text.push_str(PROMPT);
        Reply::playing(text)
    }

    /// [`StarPusher::board_then_prompt`], the board described whole in reader mode:
    /// for a look, a reset, a new level.
    fn look_then_prompt(&self, mut text: String) -> Reply {
        if self.reader {
            boxes::push_description(&self.world, &mut text);
        }
        self.board_then_prompt(text)
    }

    /// A level just started: its title line if any, then board, status, prompt.
    fn show_level(&self, mut text: String) -> Reply {
        self.title(&mut text);
        self.look_then_prompt(text)
    }

    /// The level's title line, when the file gave a title or an author.
    fn title(&self, text: &mut String) {
        let level = self.current();
        let number = self.level_number();
        match (&level.title, &level.author) {
            (Some(title), Some(author)) => {
                let _ = writeln!(text, "Level {number}: {title} (by {author})");
            }
            (Some(title), None) => {
                let _ = writeln!(text, "Level {number}: {title}");
            }
            (None, Some(author)) => {
                let _ = writeln!(text, "Level {number} (by {author})");
            }
            (None, None) => {}
        }
    }

    /// After anything that moved: the solved sequence, or the board as usual.
    fn after_move(&mut self, text: String) -> Reply {
        if !self.world.is_solved() {
            return self.board_then_prompt(text);
        }
        let mut text = text;
        if !self.reader {
            self.render_board(&mut text);
        }
        let _ = writeln!(
            text,
            "Level {} solved in {} moves and {} pushes!",
            self.level_number(),
            self.moves(),
            self.pushes()
        );
        self.finish = Some(Finish {
            level: Some(format!("{} {}", self.name, self.level_number())),
            moves: self.moves() as u64,
            pushes: self.pushes() as u64,
            ..Finish::new(Outcome::Solved)
        });
        if self.only {
            Reply::ended(text)
        } else if self.index + 1 < self.count() {
            self.go_to(self.index + 1);
            self.show_level(text)
        } else {
            text.push_str(COMPLETE);
            Reply::ended(text)
        }
    }

    fn walk(&mut self, direction: Direction, count: u64) -> Reply {
        let walk = self.world.walk(direction, count);
        let mut text = String::new();
        // Only a walk that could not take a single step says why.
        if let (true, Some(reason)) = (walk.steps.is_empty(), walk.blocked) {
            let _ = writeln!(
                text,
                "You cannot move {}: {reason}.",
                direction_name(direction)
            );
        }
        for &step in &walk.steps {
            self.record(step, &mut text);
        }
        if self.reader {
            boxes::push_walk(&self.world, direction, &walk, true, &mut text);
        }
        self.after_move(text)
    }

    fn undo(&mut self) -> Reply {
        match self.pop_history() {
            Some(step) => {
                self.world.undo(step);
                self.redo.push(step);
                let mut text = String::new();
                if self.reader {
                    boxes::push_undone(&self.world, step, &mut text);
                }
                self.after_move(text)
            }
            None if self.dropped > 0 => self.board_then_prompt(format!(
                "Nothing more to undo: only the last {MAX_UNDO} moves can be undone.\n"
            )),
            None => self.board_then_prompt(String::from("Nothing to undo.\n")),
        }
    }

    fn redo(&mut self) -> Reply {
        let Some(step) = self.redo.pop() else {
            return self.board_then_prompt(String::from("Nothing to redo.\n"));
        };
        match self.world.step(step.direction) {
            Ok(done) => {
                // Never drops a move: the history and the redo list together never
                // hold more than MAX_UNDO moves (undo and redo move one across, a new
                // move clears the list). Should it ever drop one, it says so.
                let mut text = String::new();
                self.push_history(done, &mut text);
                if self.reader {
                    let walk = Walk {
                        steps: vec![done],
                        blocked: None,
                    };
                    boxes::push_walk(&self.world, done.direction, &walk, true, &mut text);
                }
                self.after_move(text)
            }
            // Cannot happen: the world is exactly as it was before the undo. Say so
            // rather than panic, and drop the redo list that no longer fits.
            Err(reason) => {
                self.redo.clear();
                self.board_then_prompt(format!("Cannot redo: {reason}.\n"))
            }
        }
    }

    fn replay(&mut self, lurd: &Lurd) -> Reply {
        let total = lurd.len();
        let mut text = String::new();
        let mut played = Vec::new();
        for (offset, expected) in lurd.steps().iter().enumerate() {
            let number = offset + 1;
            match self.world.step(expected.direction) {
                Err(reason) => {
                    let _ = writeln!(
                        text,
                        "Replay stopped at move {number} of {total} ({expected}): {reason}."
                    );
                    break;
                }
                Ok(step) if step.push != expected.push => {
                    self.world.undo(step);
                    let why = if step.push {
                        "that move pushes a box, so it is written in upper case"
                    } else {
                        "there is no box to push, so it is written in lower case"
                    };
                    let _ = writeln!(
                        text,
                        "Replay stopped at move {number} of {total} ({expected}): {why} ({step})."
                    );
                    break;
                }
                Ok(step) => {
                    self.record(step, &mut text);
                    if self.reader {
                        played.push(step);
                    }
                    if self.world.is_solved() {
                        break;
                    }
                }
            }
        }
        boxes::push_moves(&self.world, &played, &mut text);
        self.after_move(text)
    }

    fn change_level(&mut self, number: u64) -> Reply {
        let count = self.count();
        match usize::try_from(number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .filter(|&index| index < count)
        {
            Some(index) => {
                self.go_to(index);
                self.show_level(String::new())
            }
            None => self.board_then_prompt(format!(
                "No level {number}: choose a number from 1 to {count}.\n"
            )),
        }
    }
}

impl Game for StarPusher {
    fn start(&mut self, _memory: &mut Memory) -> Reply {
        let count = self.count();
        let plural = if count == 1 { "level" } else { "levels" };
        let text = format!(
            "Welcome to Star Pusher! Collection {}: {count} {plural}.\nType help for the commands.\n",
            self.name
        );
        self.show_level(text)
    }

    fn handle(&mut self, line: &str, _memory: &mut Memory) -> Reply {
        let command = match Command::parse(line) {
            Ok(command) => command,
            Err(error) => return self.board_then_prompt(format!("{error}\n")),
        };
        match command {
            Command::Next | Command::Prev | Command::Level(_) if self.only => self
                .board_then_prompt(format!(
                    "This game is level {} only.\n",
                    self.level_number()
                )),
            Command::Look => self.look_then_prompt(String::new()),
            Command::Walk { direction, count } => self.walk(direction, count),
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::Reset => {
                self.go_to(self.index);
                self.look_then_prompt(String::new())
            }
            Command::Next => {
                if self.index + 1 < self.count() {
                    self.go_to(self.index + 1);
                    self.show_level(String::new())
                } else {
                    self.board_then_prompt(String::from("This is the last level.\n"))
                }
            }
            Command::Prev => {
                if self.index > 0 {
                    self.go_to(self.index - 1);
                    self.show_level(String::new())
                } else {
                    self.board_then_prompt(String::from("This is the first level.\n"))
                }
            }
            Command::Level(number) => self.change_level(number),
            Command::Lurd(lurd) => self.replay(&lurd),
            Command::Help => self.board_then_prompt(String::from(HELP)),
            Command::Exit => Reply::ended(String::from(BYE)),
        }
    }

    fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    fn progress(&self) -> Progress {
        Progress {
            moves: self.moves() as u64,
            placed: Some(self.world.placed()),
            ended: self.world.is_solved().then_some(Outcome::Solved),
            ..Progress::default()
        }
    }

    fn boxes(&self) -> Option<Boxes<'_>> {
        Some(Boxes {
            world: &self.world,
            history: &self.history,
            moves: self.moves() as u64,
            pushes: self.pushes as u64,
            undo: Undo::Command("u"),
        })
    }

    fn view(&self, _memory: &Memory) -> String {
        // Drawn whatever the player's mode: a watcher may not use a reader.
        let mut text = String::new();
        self.render_board(&mut text);
        self.status(&mut text);
        text.push_str(PROMPT);
        text
    }

    fn set_reader(&mut self, on: bool) {
        self.reader = on;
    }

    fn describe(&self, _memory: &Memory) -> String {
        let mut text = String::with_capacity(256);
        self.title(&mut text);
        boxes::push_description(&self.world, &mut text);
        self.status(&mut text);
        text.push_str(PROMPT);
        text
    }

    fn where_is(&self) -> Option<String> {
        Some(boxes::where_is(&self.world))
    }

    fn help(&self) -> &'static str {
        HELP
    }

    fn observe(&self, _memory: &Memory) -> crate::games::bot::Observation {
        self.observation()
    }

    fn action_line(&self, action: &str) -> Option<&'static str> {
        bot::action_line(action)
    }

    fn exit_command(&self) -> &'static str {
        "exit"
    }
}

#[cfg(test)]
mod tests {
    use super::lurd::LurdError;
    use super::*;
    use crate::games::Status;

    /// Two small levels: a corridor, and a room with a title.
    const TWO: &str = "\
; 1
#######
#@ $ .#
#######

; 2
Title: Corner
Author: Test
######
#.   #
#  $ #
#@   #
######
";

    fn game(text: &str, number: usize) -> StarPusher {
        let reading = xsb::parse_collection(text);
        assert!(reading.skipped.is_empty(), "{:?}", reading.skipped);
        StarPusher::new("test", Arc::new(reading.collection), number).unwrap()
    }

    fn send(game: &mut StarPusher, line: &str) -> Reply {
        game.handle(line, &mut Memory::default())
    }

    #[test]
    fn start_shows_welcome_board_status_and_prompt() {
        let reply = game(TWO, 1).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            "Welcome to Star Pusher! Collection test: 2 levels.\nType help for the commands.\n\
             #######\n#@ $ .#\n#######\nLevel 1/2  Moves: 0  Pushes: 0\nEnter command: "
        );
        assert_eq!(reply.status, Status::Playing);
    }

    #[test]
    fn a_titled_level_starts_with_its_title() {
        let reply = game(TWO, 2).start(&mut Memory::default());
        assert!(
            reply.text.contains(
                "\nLevel 2: Corner (by Test)\n######\n#.   #\n#  $ #\n#@   #\n######\nLevel 2/2  Moves: 0  Pushes: 0\nEnter command: "
            ),
            "{}",
            reply.text
        );
    }

    #[test]
    fn counted_moves_and_counters() {
        let mut game = game(TWO, 1);
        let reply = send(&mut game, "D1");
        assert_eq!(
            reply.text,
            "#######\n# @$ .#\n#######\nLevel 1/2  Moves: 1  Pushes: 0\nEnter command: "
        );
        let reply = send(&mut game, "a9");
        assert!(
            reply.text.starts_with("#######\n#@ $ .#\n"),
            "{}",
            reply.text
        );
        assert!(reply.text.contains("Level 1/2  Moves: 2  Pushes: 0\n"));
        send(&mut game, "d");
        let reply = send(&mut game, "d");
        assert!(
            reply.text.starts_with("#######\n#  @$.#\n"),
            "{}",
            reply.text
        );
        assert_eq!((game.moves(), game.pushes()), (4, 1));
        assert_eq!(
            game.solution().map(|lurd| lurd.to_string()),
            Some(String::from("rlrR"))
        );
    }

    #[test]
    fn blocked_moves_say_why_and_change_nothing() {
        let mut game = game("######\n#@$$.#\n#.   #\n######\n", 1);
        let reply = send(&mut game, "d");
        assert!(
            reply
                .text
                .starts_with("You cannot move right: the box cannot be pushed.\n#"),
            "{}",
            reply.text
        );
        let reply = send(&mut game, "w5");
        assert!(
            reply
                .text
                .starts_with("You cannot move up: a wall is in the way.\n"),
            "{}",
            reply.text
        );
        assert_eq!(game.moves(), 0);
        // A walk that stops early after some steps is silent, as in sokoban.
        let reply = send(&mut game, "s3");
        assert!(
            reply.text.starts_with("######\n# $$.#\n#+   #\n######\n"),
            "{}",
            reply.text
        );
        assert_eq!(game.moves(), 1);
    }

    #[test]
    fn push_into_a_wall_is_blocked() {
        let mut game = game("#####\n#.@$#\n# $ #\n#####\n", 1);
        let reply = send(&mut game, "d");
        assert!(
            reply
                .text
                .starts_with("You cannot move right: the box cannot be pushed.\n#####\n#.@$#\n"),
            "{}",
            reply.text
        );
    }

    #[test]
    fn undo_and_redo_across_pushes() {
        let mut game = game(TWO, 1);
        send(&mut game, "d2");
        assert_eq!((game.moves(), game.pushes()), (2, 1));
        let reply = send(&mut game, "u");
        assert!(
            reply.text.starts_with("#######\n# @$ .#\n"),
            "{}",
            reply.text
        );
        assert!(reply.text.contains("Moves: 1  Pushes: 0"));
        let reply = send(&mut game, "UNDO");
        assert!(
            reply.text.starts_with("#######\n#@ $ .#\n"),
            "{}",
            reply.text
        );
        let reply = send(&mut game, "undo");
        assert!(reply
            .text
            .starts_with("Nothing to undo.\n#######\n#@ $ .#\n"));
        send(&mut game, "redo");
        let reply = send(&mut game, "Redo");
        assert!(
            reply.text.starts_with("#######\n#  @$.#\n"),
            "{}",
            reply.text
        );
        assert_eq!((game.moves(), game.pushes()), (2, 1));
        let reply = send(&mut game, "redo");
        assert!(reply.text.starts_with("Nothing to redo.\n"));
        // A new move clears what could be redone.
        send(&mut game, "u");
        send(&mut game, "a");
        let reply = send(&mut game, "redo");
        assert!(
            reply
                .text
                .starts_with("Nothing to redo.\n#######\n#@ $ .#\n"),
            "{}",
            reply.text
        );
    }

    /// A room where the box is pushed right, walked round and pushed back left: ten
    /// moves, two of them pushes, and the board as it was. The goal is out of the
    /// box's way, so the level is never solved.
    const ROUND: &str = "########\n#      #\n# @$   #\n#.     #\n########\n";
    const CYCLE: &str = "RurrdLulld";

    /// The status line the game should show for `moves` moves and `pushes` pushes.
    fn status(moves: usize, pushes: usize) -> String {
        format!("Level 1/1  Moves: {moves}  Pushes: {pushes}\n{PROMPT}")
    }

    #[test]
    fn the_history_keeps_only_the_last_moves_and_the_counters_keep_counting() {
        let mut game = game(ROUND, 1);
        // 100 cycles: 1,000 moves on one line of 1,005 bytes, under the 1 KiB limit.
        let line = format!("lurd {}", CYCLE.repeat(100));
        assert!(line.len() <= 1024);
        let note = format!("Only the last {MAX_UNDO} moves can be undone.\n");
        let mut notes = 0;
        for round in 1..=25 {
            let reply = send(&mut game, &line);
            let (moves, pushes) = (round * 1000, round * 200);
            assert!(
                reply.text.ends_with(&status(moves, pushes)),
                "{}",
                reply.text
            );
            assert!(game.history.len() <= MAX_UNDO, "{}", game.history.len());
            // The memory is bounded too, not just the length.
            assert!(game.history.capacity() < 2 * MAX_UNDO);
            if reply.text.contains(&note) {
                notes += 1;
                assert_eq!(round, 11, "the first move past the cap is in round 11");
                assert!(reply.text.starts_with(&format!("{note}########\n")));
            }
        }
        assert_eq!(notes, 1, "the note is given once");
        assert_eq!(game.history.len(), MAX_UNDO);
        assert_eq!(game.solution(), None, "the oldest moves are gone");

        // Exactly MAX_UNDO undos work; the counters go down with each.
        let (mut moves, mut pushes) = (25_000, 5_000);
        for _ in 0..MAX_UNDO {
            let step = *game.history.back().unwrap();
            let reply = send(&mut game, "u");
            moves -= 1;
            pushes -= usize::from(step.push);
            assert!(
                reply.text.ends_with(&status(moves, pushes)),
                "{}",
                reply.text
            );
        }
        assert_eq!((moves, pushes), (15_000, 3_000));
        assert!(game.redo.len() <= MAX_UNDO);
        let reply = send(&mut game, "undo");
        assert_eq!(
            reply.text,
            format!(
                "Nothing more to undo: only the last {MAX_UNDO} moves can be undone.\n\
                 {ROUND}{}",
                status(15_000, 3_000)
            ),
            "the board is back at its start"
        );
        // Everything taken back can be redone, and the history stays within its bound.
        for _ in 0..MAX_UNDO {
            send(&mut game, "redo");
        }
        assert!(send(&mut game, "redo")
            .text
            .starts_with("Nothing to redo.\n"));
        assert_eq!((game.moves(), game.pushes()), (25_000, 5_000));
        assert_eq!(game.history.len(), MAX_UNDO);
        // A reset starts the level afresh: a whole history, and the note again later.
        send(&mut game, "reset");
        assert_eq!((game.moves(), game.pushes(), game.history.len()), (0, 0, 0));
        assert!(send(&mut game, "u").text.starts_with("Nothing to undo.\n"));
        send(&mut game, &line);
        assert_eq!(
            game.solution().map(|lurd| lurd.to_string()),
            Some(CYCLE.repeat(100))
        );
    }

    #[test]
    fn help_gives_the_undo_bound() {
        assert!(HELP.contains(&format!("up to the last {MAX_UNDO}\n")));
    }

    #[test]
    fn reset_goes_back_to_the_start() {
        let mut game = game(TWO, 1);
        send(&mut game, "d2");
        let reply = send(&mut game, "reset");
        assert_eq!(
            reply.text,
            "#######\n#@ $ .#\n#######\nLevel 1/2  Moves: 0  Pushes: 0\nEnter command: "
        );
        assert!(send(&mut game, "u").text.starts_with("Nothing to undo."));
    }

    #[test]
    fn changing_level() {
        let mut game = game(TWO, 1);
        let reply = send(&mut game, "p");
        assert!(reply
            .text
            .starts_with("This is the first level.\n#######\n"));
        let reply = send(&mut game, "next");
        assert!(
            reply
                .text
                .starts_with("Level 2: Corner (by Test)\n######\n"),
            "{}",
            reply.text
        );
        let reply = send(&mut game, "N");
        assert!(reply.text.starts_with("This is the last level.\n######\n"));
        let reply = send(&mut game, "level 1");
        assert!(
            reply.text.starts_with("#######\n#@ $ .#\n"),
            "{}",
            reply.text
        );
        assert!(reply.text.contains("Level 1/2  Moves: 0"));
        let reply = send(&mut game, "LEVEL 3");
        assert!(reply
            .text
            .starts_with("No level 3: choose a number from 1 to 2.\n#######\n"));
        let reply = send(&mut game, "level 0");
        assert!(reply
            .text
            .starts_with("No level 0: choose a number from 1 to 2.\n"));
        let reply = send(&mut game, "level");
        assert!(reply
            .text
            .starts_with("Which level? Type level N, for example level 2.\n"));
        send(&mut game, "d");
        assert_eq!(game.moves(), 1);
        send(&mut game, "next");
        send(&mut game, "prev");
        assert_eq!(game.level_number(), 1);
        assert_eq!(game.moves(), 0, "a level changed to starts afresh");
    }

    #[test]
    fn one_level_only_refuses_other_levels_and_ends_when_solved() {
        let mut game = game(TWO, 1).one_level();
        for line in ["level 2", "next", "prev"] {
            let reply = send(&mut game, line);
            assert!(
                reply.text.starts_with("This game is level 1 only.\n"),
                "{line}: {}",
                reply.text
            );
            assert_eq!(reply.status, Status::Playing);
        }
        assert_eq!(game.level_number(), 1);
        assert_eq!(game.progress().placed, Some((0, 1)));
        assert_eq!(game.progress().ended, None);
        send(&mut game, "d1");
        let reply = send(&mut game, "d2");
        assert_eq!(
            reply.text,
            "#######\n#   @*#\n#######\nLevel 1 solved in 3 moves and 2 pushes!\n"
        );
        assert_eq!(reply.status, Status::Ended);
        let progress = game.progress();
        assert_eq!(progress.placed, Some((1, 1)));
        assert_eq!(progress.moves, 3);
        assert_eq!(progress.ended, Some(Outcome::Solved));
        assert!(game.take_finish().is_some());
    }

    #[test]
    fn solving_shows_the_solved_line_then_the_next_level() {
        let mut game = game(TWO, 1);
        let reply = send(&mut game, "d3");
        assert_eq!(
            reply.text,
            "#######\n#   @*#\n#######\nLevel 1 solved in 3 moves and 2 pushes!\n\
             Level 2: Corner (by Test)\n######\n#.   #\n#  $ #\n#@   #\n######\n\
             Level 2/2  Moves: 0  Pushes: 0\nEnter command: "
        );
        assert_eq!(reply.status, Status::Playing);
        assert_eq!(game.level_number(), 2);
    }

    #[test]
    fn replays_stop_where_they_go_wrong_and_the_last_level_completes() {
        let mut game = game(TWO, 2);
        let reply = send(&mut game, "lurd rrUrulL");
        assert_eq!(
            reply.text,
            "Replay stopped at move 6 of 7 (l): that move pushes a box, so it is written in upper case (L).\n\
             ######\n#. $@#\n#    #\n#    #\n######\nLevel 2/2  Moves: 5  Pushes: 1\nEnter command: "
        );
        let reply = send(&mut game, "lurd r");
        assert!(
            reply.text.starts_with(
                "Replay stopped at move 1 of 1 (r): a wall is in the way.\n######\n#. $@#\n"
            ),
            "{}",
            reply.text
        );
        let reply = send(&mut game, "lurd D");
        assert!(
            reply.text.starts_with(
                "Replay stopped at move 1 of 1 (D): there is no box to push, so it is written in lower case (d).\n######\n#. $@#\n"
            ),
            "{}",
            reply.text
        );
        assert_eq!((game.moves(), game.pushes()), (5, 1));
        let reply = send(&mut game, "lurd LLrrrr");
        assert_eq!(
            reply,
            Reply::ended(String::from(
                "######\n#*@  #\n#    #\n#    #\n######\nLevel 2 solved in 7 moves and 3 pushes!\nCollection complete!\n"
            ))
        );
    }

    /// `levels/starpusher/arcade.solutions`: `NUMBER MOVES` per line, `;` comments.
    fn arcade_solutions() -> Vec<(usize, Lurd)> {
        include_str!("../../../levels/starpusher/arcade.solutions")
            .lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with(';'))
            .map(|line| {
                let (number, moves) = line.split_once(' ').unwrap();
                (number.parse().unwrap(), moves.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn our_collection_plays_through_with_its_kept_solutions() {
        let reading = xsb::parse_collection(include_str!("../../../levels/starpusher/arcade.txt"));
        assert_eq!(reading.skipped, Vec::new());
        let collection = Arc::new(reading.collection);
        let count = collection.levels.len();
        assert!(count >= 20, "{count} levels");
        assert!(collection.levels.iter().all(|level| level.title.is_some()));
        let solutions = arcade_solutions();
        let numbers: Vec<usize> = solutions.iter().map(|(number, _)| *number).collect();
        assert_eq!(numbers, (1..=count).collect::<Vec<_>>());

        let mut game = StarPusher::new("arcade", collection, 1).unwrap();
        let mut memory = Memory::default();
        assert!(game
            .start(&mut memory)
            .text
            .contains("Level 1: First Push\n"));
        for (number, lurd) in solutions {
            assert_eq!(game.level_number(), number);
            let pushes = lurd.steps().iter().filter(|step| step.push).count();
            let reply = game.handle(&format!("lurd {lurd}"), &mut memory);
            let solved = format!(
                "\nLevel {number} solved in {} moves and {pushes} pushes!\n",
                lurd.len()
            );
            assert!(
                reply.text.contains(&solved),
                "level {number}: {}",
                reply.text
            );
            if number < count {
                assert_eq!(reply.status, Status::Playing);
                let next = format!("Level {}/{count}  Moves: 0  Pushes: 0\n", number + 1);
                assert!(reply.text.ends_with(&format!("{next}{PROMPT}")));
            } else {
                assert_eq!(reply.status, Status::Ended);
                assert!(reply
                    .text
                    .ends_with(&format!("{solved}Collection complete!\n")[1..]));
            }
        }
    }

    #[test]
    fn drawn_boards_read_back_as_the_same_levels() {
        let mut texts = vec![include_str!("../../../levels/starpusher/arcade.txt").to_string()];
        for name in ["starPusherLevels.txt", "microban_155.xsb"] {
            texts.extend(crate::games::testing::shared_levels(name));
        }
        for text in texts {
            let collection = xsb::parse_collection(&text).collection;
            for level in &collection.levels {
                let mut board = String::new();
                render(&World::new(Arc::clone(&level.level)), &mut board);
                let again = xsb::parse_collection(&board).collection;
                assert_eq!(again.levels.len(), 1, "{board}");
                assert_eq!(again.levels[0].level, level.level, "{board}");
            }
        }
    }

    /// The status line the game should show, counted afresh from its history.
    fn recounted_status(game: &StarPusher) -> String {
        let pushes = game.history.iter().filter(|step| step.push).count();
        format!(
            "Level {}/{}  Moves: {}  Pushes: {pushes}\n{PROMPT}",
            game.level_number(),
            game.count(),
            game.history.len()
        )
    }

    #[test]
    fn the_push_count_follows_the_history_through_every_command() {
        let mut game = game(TWO, 2);
        // Level 2: pushes up then left, undone and redone, a new move that drops the
        // redo list, a reset, a level change, a solved level 1 that leads back here.
        let script = [
            "lurd rrUruL",
            "u",
            "u",
            "redo",
            "redo",
            "u",
            "s",
            "redo",
            "u",
            "r",
            "redo",
            "lurd rrUruL",
            "prev",
            "d",
            "d2",
            "lurd rrUruL",
            "level 1",
            "next",
            "lurd rrU",
            "undo",
            "redo",
            "",
        ];
        let mut pushes_seen = 0;
        for line in script {
            let reply = send(&mut game, line);
            assert!(
                reply.text.ends_with(&recounted_status(&game)),
                "after {line:?}: {}",
                reply.text
            );
            pushes_seen = pushes_seen.max(game.pushes());
        }
        assert!(pushes_seen >= 2, "the script pushes: {pushes_seen}");
    }

    #[test]
    fn keywords_at_and_past_the_longest_and_beyond_ascii() {
        let parse = |line: &str| Command::parse(line);
        assert_eq!(parse("PREVIOUS"), Ok(Command::Prev));
        assert_eq!(parse("Level 2"), Ok(Command::Level(2)));
        for word in ["Previously", "previous2", "ÜNDO", "undö", "rédo"] {
            assert_eq!(
                parse(word),
                Err(CommandError::Unknown(word.to_string())),
                "{word:?}"
            );
        }
    }

    #[test]
    fn command_grammar() {
        use Command::*;
        let parse = |line: &str| Command::parse(line);
        let walk = |direction, count| Ok(Walk { direction, count });
        assert_eq!(parse("d"), walk(Direction::Right, 1));
        assert_eq!(parse("W10"), walk(Direction::Up, 10));
        assert_eq!(parse("s0"), walk(Direction::Down, 0));
        assert_eq!(
            parse(&format!("a{}", "9".repeat(30))),
            walk(Direction::Left, u64::MAX)
        );
        assert_eq!(parse(""), Ok(Look));
        assert_eq!(parse("U"), Ok(Undo));
        assert_eq!(parse("Undo"), Ok(Undo));
        assert_eq!(parse("REDO"), Ok(Redo));
        assert_eq!(parse("r"), Ok(Reset));
        assert_eq!(parse("Reset"), Ok(Reset));
        assert_eq!(parse("n"), Ok(Next));
        assert_eq!(parse("Prev"), Ok(Prev));
        assert_eq!(parse("level  12"), Ok(Level(12)));
        assert_eq!(parse("e"), Ok(Exit));
        assert_eq!(parse("EXIT"), Ok(Exit));
        assert_eq!(parse("help"), Ok(Help));
        assert_eq!(parse("LURD rrU l"), Ok(Lurd("rrUl".parse().unwrap())));
        assert_eq!(parse("lurd"), Err(CommandError::Lurd(LurdError::Empty)));
        assert_eq!(
            parse("lurd rrx").unwrap_err().to_string(),
            "Cannot play those moves: unknown move 'x' at position 3: use l u r d, upper case for pushes."
        );
        for bad in ["x", "d-1", "d2x", "dd", "undo 2", "level two", "wasd"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse("Dance now").unwrap_err().to_string(),
            "Unknown command: Dance. Type help."
        );
    }

    #[test]
    fn unknown_commands_and_help_redraw_the_board() {
        let mut game = game(TWO, 1);
        let reply = send(&mut game, "jump");
        assert_eq!(
            reply.text,
            "Unknown command: jump. Type help.\n#######\n#@ $ .#\n#######\nLevel 1/2  Moves: 0  Pushes: 0\nEnter command: "
        );
        let reply = send(&mut game, "help");
        assert!(reply.text.starts_with(HELP));
        assert!(reply.text.ends_with("Moves: 0  Pushes: 0\nEnter command: "));
        let reply = send(&mut game, "exit");
        assert_eq!(reply, Reply::ended(String::from("Bye!\n")));
    }

    #[test]
    fn starting_out_of_range_is_an_error() {
        let collection = Arc::new(xsb::parse_collection(TWO).collection);
        let error = StarPusher::new("test", Arc::clone(&collection), 3).unwrap_err();
        assert_eq!(
            error.to_string(),
            "No level 3 in test: choose a number from 1 to 2."
        );
        assert!(StarPusher::new("test", collection, 0).is_err());
        let empty = Arc::new(Collection::default());
        assert!(matches!(
            StarPusher::new("none", empty, 1),
            Err(StartError::Empty { .. })
        ));
    }
}

#[cfg(test)]
mod reader_tests {
    use super::*;
    use crate::games::reader::problem;

    /// A corridor, and a titled room.
    const TWO: &str = "; 1\n#######\n#@ $ .#\n#######\n\n; 2\nTitle: Corner\nAuthor: Test\n\
                       ######\n#.   #\n#  $ #\n#@   #\n######\n";

    fn game(reader: bool) -> StarPusher {
        let reading = xsb::parse_collection(TWO);
        let mut game = StarPusher::new("test", Arc::new(reading.collection), 1).unwrap();
        game.set_reader(reader);
        game
    }

    /// Each line's reply, checked fit for a reader.
    fn said(game: &mut StarPusher, lines: &[&str]) -> Vec<String> {
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
    fn a_level_starts_in_words_with_its_status_line() {
        let reply = game(true).start(&mut Memory::default());
        assert_eq!(
            reply.text,
            "Welcome to Star Pusher! Collection test: 2 levels.\n\
             Type help for the commands.\n\
             You are at row 2, column 2.\n\
             row 1: 7 walls\n\
             row 2: wall, player, floor, box, floor, goal, wall\n\
             row 3: 7 walls\n\
             0 of 1 box on a goal.\n\
             Level 1/2  Moves: 0  Pushes: 0\n\
             Enter command: "
        );
    }

    #[test]
    fn moves_undo_redo_and_messages_say_what_changed() {
        let mut game = game(true);
        let texts = said(&mut game, &["w", "d", "u", "u", "redo", "x"]);
        assert_eq!(
            texts,
            [
                "You cannot move up: a wall is in the way.\n\
                 Level 1/2  Moves: 0  Pushes: 0\nEnter command: ",
                "You walk 1 step right, to row 2, column 3.\n\
                 Level 1/2  Moves: 1  Pushes: 0\nEnter command: ",
                "You take back a step right: you are back at row 2, column 2.\n\
                 Level 1/2  Moves: 0  Pushes: 0\nEnter command: ",
                "Nothing to undo.\nLevel 1/2  Moves: 0  Pushes: 0\nEnter command: ",
                "You walk 1 step right, to row 2, column 3.\n\
                 Level 1/2  Moves: 1  Pushes: 0\nEnter command: ",
                "Unknown command: x. Type help.\n\
                 Level 1/2  Moves: 1  Pushes: 0\nEnter command: ",
            ]
        );
        let texts = said(&mut game, &["D", "u"]);
        assert_eq!(
            texts,
            [
                "You push the box to row 2, column 5.\n0 of 1 box on a goal.\n\
                 Level 1/2  Moves: 2  Pushes: 1\nEnter command: ",
                "You take back a push right: the box is back at row 2, column 4.\n\
                 You are at row 2, column 3.\n0 of 1 box on a goal.\n\
                 Level 1/2  Moves: 1  Pushes: 0\nEnter command: ",
            ]
        );
    }

    #[test]
    fn look_reset_solve_and_the_next_level() {
        let mut game = game(true);
        let texts = said(&mut game, &["d", "", "r", "d3"]);
        assert!(
            texts[1].starts_with(
                "You are at row 2, column 3.\nrow 1: 7 walls\n\
                 row 2: wall, floor, player, box, floor, goal, wall\n"
            ),
            "{}",
            texts[1]
        );
        assert!(
            texts[2].starts_with("You are at row 2, column 2.\n"),
            "{}",
            texts[2]
        );
        assert!(texts[2].ends_with("Level 1/2  Moves: 0  Pushes: 0\nEnter command: "));
        assert_eq!(
            texts[3],
            "You walk 1 step right and push the box 2 steps, onto a goal.\n\
             1 of 1 box on a goal.\n\
             Level 1 solved in 3 moves and 2 pushes!\n\
             Level 2: Corner (by Test)\n\
             You are at row 4, column 2.\n\
             row 1: 6 walls\n\
             row 2: wall, goal, 3 floor, wall\n\
             row 3: wall, 2 floor, box, floor, wall\n\
             row 4: wall, player, 3 floor, wall\n\
             row 5: 6 walls\n\
             0 of 1 box on a goal.\n\
             Level 2/2  Moves: 0  Pushes: 0\n\
             Enter command: "
        );
        let texts = said(&mut game, &["lurd rrR", "lurd uuU"]);
        assert_eq!(
            texts[0],
            "Replay stopped at move 3 of 3 (R): there is no box to push, so it is written \
             in lower case (r).\nYou play 2 moves, 0 pushes, and stand at row 4, column 4.\n\
             Level 2/2  Moves: 2  Pushes: 0\nEnter command: "
        );
        assert_eq!(
            texts[1],
            "Replay stopped at move 1 of 3 (u): that move pushes a box, so it is written in \
             upper case (U).\nLevel 2/2  Moves: 2  Pushes: 0\nEnter command: "
        );
        let look = game.describe(&Memory::default());
        assert!(look.starts_with("Level 2: Corner (by Test)\nYou are at row 4, column 4.\n"));
        assert!(
            look.contains("\nrow 4: wall, 2 floor, player, floor, wall\n"),
            "{look}"
        );
        assert!(look.ends_with("Level 2/2  Moves: 2  Pushes: 0\nEnter command: "));
        assert_eq!(
            game.where_is().as_deref(),
            Some("You are at row 4, column 4.")
        );
    }

    #[test]
    fn the_first_level_of_the_shared_collection_in_words() {
        let Some(text) = crate::games::testing::shared_levels("starPusherLevels.txt") else {
            return;
        };
        let reading = xsb::parse_collection(&text);
        let collection = Arc::new(reading.collection);
        let mut words = StarPusher::new("starpusher", Arc::clone(&collection), 1).unwrap();
        words.set_reader(true);
        let look = words.describe(&Memory::default());
        assert_eq!(problem(&look), None, "{look}");
        assert!(
            look.lines().all(|line| line.chars().count() <= 80),
            "{look}"
        );
        assert!(look.contains("\nrow 1: "), "{look}");
        assert!(
            look.ends_with("Moves: 0  Pushes: 0\nEnter command: "),
            "{look}"
        );
    }

    #[test]
    fn reader_mode_changes_words_only() {
        let lines = ["d", "d9", "u", "redo", "lurd l", "r", "x", "d3", "a", "w"];
        let mut words = game(true);
        let mut drawn = game(false);
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
        }
        assert_eq!(words.view(&memory), drawn.view(&memory));
        words.set_reader(false);
        assert_eq!(words.handle("", &mut memory), drawn.handle("", &mut memory));
    }
}
