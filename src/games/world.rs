//! The rules of pushing boxes, shared by `sokoban` and `starpusher`.
//!
//! A [`Level`] is the fixed part of a puzzle (walls, goals, where things start) and is
//! shared between every player of it behind an `Arc`. A [`World`] is one player's
//! position in it. Moving, pushing, undoing a move and the win check live here and
//! nowhere else; the two games differ in file format, glyphs and commands, and in the
//! [`WinRule`] each gives its levels.

use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

pub use super::glyphs::Glyphs;

/// One of the four directions a player can walk or push in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards row 0.
    Up,
    /// Towards the last row.
    Down,
    /// Towards column 0.
    Left,
    /// Towards the last column.
    Right,
}

impl Direction {
    /// All four, in LURD order.
    pub const ALL: [Direction; 4] = [
        Direction::Left,
        Direction::Up,
        Direction::Right,
        Direction::Down,
    ];

    /// The direction of a `w`/`a`/`s`/`d` key (either case).
    pub fn from_wasd(key: char) -> Option<Direction> {
        match key.to_ascii_lowercase() {
            'w' => Some(Direction::Up),
            'a' => Some(Direction::Left),
            's' => Some(Direction::Down),
            'd' => Some(Direction::Right),
            _ => None,
        }
    }

    /// The LURD letter of a move in this direction: upper case for a push.
    pub fn lurd(self, push: bool) -> char {
        let letter = match self {
            Direction::Left => 'l',
            Direction::Up => 'u',
            Direction::Right => 'r',
            Direction::Down => 'd',
        };
        if push {
            letter.to_ascii_uppercase()
        } else {
            letter
        }
    }

    /// The step a LURD letter stands for, the inverse of [`Direction::lurd`]: upper case
    /// is a push.
    pub fn from_lurd(letter: char) -> Option<Step> {
        let direction = match letter.to_ascii_lowercase() {
            'l' => Direction::Left,
            'u' => Direction::Up,
            'r' => Direction::Right,
            'd' => Direction::Down,
            _ => return None,
        };
        Some(Step {
            direction,
            push: letter.is_ascii_uppercase(),
        })
    }

    /// The opposite direction.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        }
    }
}

/// A step count as typed after a direction (`d2`, `w10`): ASCII digits only, read as a
/// saturating number, since any count larger than the board walks until blocked.
/// `None` for anything else, including no digits at all.
pub fn parse_count(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().fold(0u64, |count, digit| {
        count
            .saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

/// The largest number of rows, or of columns in a row, a level of either game may
/// have. Every board of a command's reply is drawn whole, so without it a file could
/// turn into replies of megabytes (a sokoban file of 100,000 rows, or one short XSB
/// line run-length encoded into gigabytes); every known collection fits well inside.
/// The parsers check it while reading, before any grid is built.
pub const MAX_SIDE: usize = 256;

/// A character read from a file, as a message may show it: quoted when it is printable
/// ASCII (`'x'`), else as its code point (`U+001B`), so that a control character or
/// an invisible one cannot garble a log or a terminal.
///
/// A level file can hold anything (a symlink to a secret included), and its problems
/// go to the log and to `check-levels`: a parser's message names the line and column
/// and shows at most the one offending character, through this type, never the text
/// around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShownChar(pub char);

impl fmt::Display for ShownChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            printable @ ' '..='~' => write!(f, "'{printable}'"),
            other => write!(f, "U+{:04X}", u32::from(other)),
        }
    }
}

/// What a square of a level holds when it is read from a file, before validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// Impassable.
    Wall,
    /// Empty floor.
    Floor,
    /// A target for a box.
    Goal,
    /// A box on floor.
    Box,
    /// A box already on a goal.
    BoxOnGoal,
    /// The player's start on floor.
    Player,
    /// The player's start on a goal.
    PlayerOnGoal,
}

/// The fixed ground of a square once boxes and the player are taken off it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ground {
    /// Impassable.
    Wall,
    /// Floor without a goal.
    Floor,
    /// Floor with a goal.
    Goal,
}

/// When a level is won, and so what it must hold to be playable. The two games keep
/// different rules (SPEC sections 3 and 4); each parser gives its levels its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinRule {
    /// Won when every box stands on a goal: `sokoban`, like the seed's program, which
    /// checks for a box left off a target. Any number of boxes and goals is accepted:
    /// extra goals may stay empty, a level with more boxes than goals is never won, and
    /// one without boxes is won at once (the seed checks before the first command).
    EveryBox,
    /// Won when every goal holds a box: `starpusher`, the standard format's rule. A
    /// level needs at least one goal and at least as many boxes as goals, without which
    /// it would be won at once or never.
    EveryGoal,
}

impl WinRule {
    /// What this rule asks of a level's boxes and goals.
    ///
    /// # Errors
    /// [`LevelError::NoGoal`] or [`LevelError::FewerBoxes`] under
    /// [`WinRule::EveryGoal`]; [`WinRule::EveryBox`] takes any counts.
    fn check(self, boxes: usize, goals: usize) -> Result<(), LevelError> {
        match self {
            WinRule::EveryBox => Ok(()),
            WinRule::EveryGoal if goals == 0 => Err(LevelError::NoGoal),
            WinRule::EveryGoal if boxes < goals => Err(LevelError::FewerBoxes { boxes, goals }),
            WinRule::EveryGoal => Ok(()),
        }
    }
}

/// Why a grid of cells is not a playable level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// The grid has no rows at all.
    #[error("the level is empty: add board rows")]
    Empty,
    /// No player start.
    #[error("no player: mark the start with the player glyph")]
    NoPlayer,
    /// More than one player start.
    #[error("two players (rows {first_row} and {second_row}): a level has exactly one")]
    TwoPlayers {
        /// 1-based board row of the first player.
        first_row: usize,
        /// 1-based board row of the second player.
        second_row: usize,
    },
    /// Nothing to push boxes onto (under [`WinRule::EveryGoal`]).
    #[error("no goal: a level needs at least one goal")]
    NoGoal,
    /// Some goal can never be filled (under [`WinRule::EveryGoal`]).
    #[error("fewer boxes ({boxes}) than goals ({goals}): every goal needs a box")]
    FewerBoxes {
        /// Boxes on the board.
        boxes: usize,
        /// Goals on the board.
        goals: usize,
    },
}

/// The fixed part of a puzzle, shared by every world played on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    width: usize,
    height: usize,
    ground: Vec<Ground>,
    start_player: usize,
    start_boxes: Vec<usize>,
    goals: usize,
    rule: WinRule,
}

impl Level {
    /// Build a level from rows of cells, padding short rows with floor, and check it:
    /// exactly one player, which both games need, then what `rule` asks of the boxes
    /// and goals ([`WinRule`]). The parser has already kept the grid within
    /// [`MAX_SIDE`].
    ///
    /// # Errors
    /// The first [`LevelError`] the grid breaks.
    pub fn from_rows(rows: &[Vec<Cell>], rule: WinRule) -> Result<Level, LevelError> {
        let height = rows.len();
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        if height == 0 || width == 0 {
            return Err(LevelError::Empty);
        }
        let mut ground = Vec::with_capacity(width * height);
        let mut player: Option<(usize, usize)> = None;
        let mut start_boxes = Vec::new();
        for (row_index, row) in rows.iter().enumerate() {
            for column in 0..width {
                let index = row_index * width + column;
                let cell = row.get(column).copied().unwrap_or(Cell::Floor);
                let is_player = matches!(cell, Cell::Player | Cell::PlayerOnGoal);
                if is_player {
                    if let Some((first_row, _)) = player {
                        return Err(LevelError::TwoPlayers {
                            first_row: first_row + 1,
                            second_row: row_index + 1,
                        });
                    }
                    player = Some((row_index, index));
                }
                if matches!(cell, Cell::Box | Cell::BoxOnGoal) {
                    start_boxes.push(index);
                }
                ground.push(match cell {
                    Cell::Wall => Ground::Wall,
                    Cell::Goal | Cell::BoxOnGoal | Cell::PlayerOnGoal => Ground::Goal,
                    Cell::Floor | Cell::Box | Cell::Player => Ground::Floor,
                });
            }
        }
        let Some((_, start_player)) = player else {
            return Err(LevelError::NoPlayer);
        };
        let goals = ground.iter().filter(|g| **g == Ground::Goal).count();
        rule.check(start_boxes.len(), goals)?;
        Ok(Level {
            width,
            height,
            ground,
            start_player,
            start_boxes,
            goals,
            rule,
        })
    }

    /// Columns in the board.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows in the board.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The player's start as a row-major index of the grid.
    pub fn start_square(&self) -> usize {
        self.start_player
    }

    /// Number of goals.
    pub fn goal_count(&self) -> usize {
        self.goals
    }

    /// Number of boxes.
    pub fn box_count(&self) -> usize {
        self.start_boxes.len()
    }

    /// When the level is won.
    pub fn rule(&self) -> WinRule {
        self.rule
    }

    /// The ground at a square, given as row-major index.
    pub fn ground(&self, index: usize) -> Ground {
        self.ground[index]
    }

    /// The index of the square one step from `index` in `direction`, or `None` off the
    /// grid (which counts as a wall).
    fn neighbour(&self, index: usize, direction: Direction) -> Option<usize> {
        let (row, column) = (index / self.width, index % self.width);
        match direction {
            Direction::Up => row.checked_sub(1).map(|r| r * self.width + column),
            Direction::Down => (row + 1 < self.height).then(|| index + self.width),
            Direction::Left => column.checked_sub(1).map(|_| index - 1),
            Direction::Right => (column + 1 < self.width).then(|| index + 1),
        }
    }

    fn is_open(&self, index: usize) -> bool {
        self.ground[index] != Ground::Wall
    }
}

/// Why one step could not be taken. Blocked moves change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    /// A wall (or the edge of the grid) is in the way.
    #[error("a wall is in the way")]
    Wall,
    /// The box in front cannot move: a wall, the edge or another box is behind it.
    #[error("the box cannot be pushed")]
    Box,
}

/// One step that was taken: its direction and whether it pushed a box. Enough to undo
/// it exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Where the player went.
    pub direction: Direction,
    /// Whether a box moved with the player.
    pub push: bool,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.direction.lurd(self.push))
    }
}

/// What a counted walk did: the steps taken, in order, and what stopped it early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    /// Every step taken.
    pub steps: Vec<Step>,
    /// Why the walk stopped before its count, if it did.
    pub blocked: Option<Blocked>,
}

/// Where a square's glyph is in [`Glyphs::palette`].
fn glyph_slot(ground: Ground, has_box: bool) -> usize {
    let ground = match ground {
        Ground::Wall => 0,
        Ground::Floor => 1,
        Ground::Goal => 2,
    };
    ground + 3 * usize::from(has_box)
}

/// How many 64-square words of [`BoxSet`] are kept inside the world itself: 256
/// squares, enough for the classic level, all but two of Microban's 155 levels and
/// about half of Star Pusher's 201.
const INLINE_BOX_WORDS: usize = 4;

/// Which squares hold a box, one bit per square of the level.
///
/// Kept inside the [`World`] for boards of up to 256 squares, on the heap beyond
/// (`SmallVec`). On a server with thousands of mostly idle players a world is cold in
/// the cache at each command, and perf showed most of a move's time there going to
/// two misses: the world, then the separately allocated board it pointed to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BoxSet {
    words: SmallVec<[u64; INLINE_BOX_WORDS]>,
}

impl BoxSet {
    /// No boxes, on a level of `squares` squares.
    fn new(squares: usize) -> BoxSet {
        BoxSet {
            words: smallvec::smallvec![0; squares.div_ceil(64)],
        }
    }

    /// Whether a box stands on the square; `false` off the level.
    fn contains(&self, index: usize) -> bool {
        self.words
            .get(index / 64)
            .is_some_and(|word| word & Self::bit(index) != 0)
    }

    fn insert(&mut self, index: usize) {
        if let Some(word) = self.words.get_mut(index / 64) {
            *word |= Self::bit(index);
        }
    }

    fn remove(&mut self, index: usize) {
        if let Some(word) = self.words.get_mut(index / 64) {
            *word &= !Self::bit(index);
        }
    }

    fn bit(index: usize) -> u64 {
        1 << (index % 64)
    }
}

/// One player's state in a level: where the player and the boxes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World {
    level: Arc<Level>,
    player: usize,
    boxes: BoxSet,
    boxes_on_goals: usize,
}

impl World {
    /// A world at the level's start.
    pub fn new(level: Arc<Level>) -> World {
        let mut boxes = BoxSet::new(level.ground.len());
        for &index in &level.start_boxes {
            boxes.insert(index);
        }
        let boxes_on_goals = level
            .start_boxes
            .iter()
            .filter(|&&i| level.ground[i] == Ground::Goal)
            .count();
        World {
            player: level.start_player,
            boxes,
            boxes_on_goals,
            level,
        }
    }

    /// The level this world is played on.
    pub fn level(&self) -> &Arc<Level> {
        &self.level
    }

    /// Whether the level is won under its [`WinRule`]: every box on a goal, or every
    /// goal holding a box. The boxes on goals are counted as boxes move, so either rule
    /// is one comparison.
    pub fn is_solved(&self) -> bool {
        let level = &self.level;
        match level.rule {
            WinRule::EveryBox => self.boxes_on_goals == level.start_boxes.len(),
            WinRule::EveryGoal => self.boxes_on_goals == level.goals,
        }
    }

    /// Boxes on goals, and how many the level needs there to be solved: the progress
    /// a race shows.
    pub fn placed(&self) -> (usize, usize) {
        let level = &self.level;
        let needed = match level.rule {
            WinRule::EveryBox => level.start_boxes.len(),
            WinRule::EveryGoal => level.goals,
        };
        (self.boxes_on_goals.min(needed), needed)
    }

    /// The player's square as (row, column).
    pub fn player(&self) -> (usize, usize) {
        (
            self.player / self.level.width,
            self.player % self.level.width,
        )
    }

    /// The player's square as a row-major index of the level's grid.
    pub fn player_square(&self) -> usize {
        self.player
    }

    /// The squares holding a box, as row-major grid indices, in increasing order.
    pub fn box_squares(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.level.ground.len()).filter(|&index| self.boxes.contains(index))
    }

    /// Whether a box stands at (row, column).
    pub fn has_box(&self, row: usize, column: usize) -> bool {
        row < self.level.height && column < self.level.width && {
            self.boxes.contains(row * self.level.width + column)
        }
    }

    /// What the square at (row, column) holds now, in the terms of a level file;
    /// floor outside the level.
    pub fn cell(&self, row: usize, column: usize) -> Cell {
        let ground = if row < self.level.height && column < self.level.width {
            self.level.ground(row * self.level.width + column)
        } else {
            Ground::Floor
        };
        let on_goal = ground == Ground::Goal;
        if self.player() == (row, column) {
            return if on_goal {
                Cell::PlayerOnGoal
            } else {
                Cell::Player
            };
        }
        match (ground, self.has_box(row, column)) {
            (Ground::Wall, _) => Cell::Wall,
            (Ground::Goal, true) => Cell::BoxOnGoal,
            (Ground::Goal, false) => Cell::Goal,
            (Ground::Floor, true) => Cell::Box,
            (Ground::Floor, false) => Cell::Floor,
        }
    }

    /// Take one step, pushing a box in front if it can move.
    ///
    /// # Errors
    /// [`Blocked`] when the step is not possible; the world is unchanged.
    pub fn step(&mut self, direction: Direction) -> Result<Step, Blocked> {
        let level = &self.level;
        let target = level
            .neighbour(self.player, direction)
            .filter(|&i| level.is_open(i))
            .ok_or(Blocked::Wall)?;
        let push = self.boxes.contains(target);
        if push {
            let beyond = level
                .neighbour(target, direction)
                .filter(|&i| level.is_open(i) && !self.boxes.contains(i))
                .ok_or(Blocked::Box)?;
            self.move_box(target, beyond);
        }
        self.player = target;
        Ok(Step { direction, push })
    }

    /// Take up to `count` steps, stopping at the first blocked one: the steps taken,
    /// and why the walk stopped short if it did. A count larger than the board simply
    /// runs until blocked, since a straight walk on a finite grid always ends at a wall.
    pub fn walk(&mut self, direction: Direction, count: u64) -> Walk {
        let mut steps = Vec::new();
        for _ in 0..count {
            match self.step(direction) {
                Ok(step) => steps.push(step),
                Err(blocked) => {
                    return Walk {
                        steps,
                        blocked: Some(blocked),
                    }
                }
            }
        }
        Walk {
            steps,
            blocked: None,
        }
    }

    /// Undo a step previously returned by [`World::step`] on this world, putting a
    /// pushed box back.
    pub fn undo(&mut self, step: Step) {
        let level = Arc::clone(&self.level);
        let Some(from) = level.neighbour(self.player, step.direction.reverse()) else {
            return;
        };
        if step.push {
            if let Some(box_at) = level.neighbour(self.player, step.direction) {
                self.move_box(box_at, self.player);
            }
        }
        self.player = from;
    }

    fn move_box(&mut self, from: usize, to: usize) {
        let ground = &self.level.ground;
        self.boxes.remove(from);
        self.boxes.insert(to);
        if ground[from] == Ground::Goal {
            self.boxes_on_goals -= 1;
        }
        if ground[to] == Ground::Goal {
            self.boxes_on_goals += 1;
        }
    }

    /// Append the board, one `\n`-terminated line per row, in the given glyphs.
    pub fn render_into(&self, glyphs: &Glyphs, out: &mut String) {
        self.draw(glyphs, false, out);
    }

    /// Append the board like [`World::render_into`], but with trailing floor trimmed
    /// from each row as it is drawn: the standard notation's way of writing a level.
    pub fn render_trimmed_into(&self, glyphs: &Glyphs, out: &mut String) {
        self.draw(glyphs, true, out);
    }

    fn draw(&self, glyphs: &Glyphs, trim_floor: bool, out: &mut String) {
        let level = &self.level;
        let palette = glyphs.palette();
        let mut text = std::mem::take(out).into_bytes();
        text.reserve(level.height * (level.width + 1));
        let (player_row, player_column) = self.player();
        let player = if level.ground[self.player] == Ground::Goal {
            glyphs.player_on_goal
        } else {
            glyphs.player
        };
        for (row, ground) in level.ground.chunks(level.width).enumerate() {
            let start = text.len();
            let first = row * level.width;
            text.extend(ground.iter().enumerate().map(|(column, &ground)| {
                palette[glyph_slot(ground, self.boxes.contains(first + column))]
            }));
            if row == player_row {
                if let Some(square) = text.get_mut(start + player_column) {
                    *square = player;
                }
            }
            if trim_floor {
                let kept = text[start..]
                    .iter()
                    .rposition(|&glyph| glyph != glyphs.floor)
                    .map_or(start, |last| start + last + 1);
                text.truncate(kept);
            }
            text.push(b'\n');
        }
        // Only ASCII glyphs were added, so this never replaces anything.
        *out = String::from_utf8(text)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // The standard notation reads best in tests; the rules themselves know no glyphs.
    use crate::games::starpusher::GLYPHS;

    /// Rows in the standard notation, for tests only.
    fn level(text: &str) -> Arc<Level> {
        let rows: Vec<Vec<Cell>> = text
            .lines()
            .map(|line| {
                line.chars()
                    .map(|c| match c {
                        '#' => Cell::Wall,
                        '.' => Cell::Goal,
                        '$' => Cell::Box,
                        '*' => Cell::BoxOnGoal,
                        '@' => Cell::Player,
                        '+' => Cell::PlayerOnGoal,
                        _ => Cell::Floor,
                    })
                    .collect()
            })
            .collect();
        Arc::new(Level::from_rows(&rows, WinRule::EveryGoal).unwrap())
    }

    fn render(world: &World) -> String {
        let mut out = String::new();
        world.render_into(&GLYPHS, &mut out);
        out
    }

    #[test]
    fn push_into_wall_is_blocked_and_changes_nothing() {
        let mut world = World::new(level("#####\n#@$##\n#.  #\n#####"));
        let before = world.clone();
        assert_eq!(world.step(Direction::Right), Err(Blocked::Box));
        assert_eq!(world, before);
    }

    #[test]
    fn push_into_box_is_blocked() {
        let mut world = World::new(level("######\n#@$$ #\n#..  #\n######"));
        assert_eq!(world.step(Direction::Right), Err(Blocked::Box));
        assert_eq!(world.player(), (1, 1));
    }

    #[test]
    fn walking_into_wall_and_off_grid_is_blocked() {
        let mut world = World::new(level("@$.\n"));
        assert_eq!(world.step(Direction::Up), Err(Blocked::Wall));
        assert_eq!(world.step(Direction::Left), Err(Blocked::Wall));
        assert_eq!(
            world.step(Direction::Right),
            Ok(Step {
                direction: Direction::Right,
                push: true
            })
        );
        assert!(world.is_solved());
        // The box is now on the last column: pushing it off the grid is blocked.
        assert_eq!(world.step(Direction::Right), Err(Blocked::Box));
    }

    #[test]
    fn undo_puts_the_box_back() {
        let mut world = World::new(level("#####\n#@$.#\n#####"));
        let start = world.clone();
        let step = world.step(Direction::Right).unwrap();
        assert!(step.push);
        assert!(world.is_solved());
        world.undo(step);
        assert_eq!(world, start);
        assert_eq!(render(&world), "#####\n#@$.#\n#####\n");
    }

    #[test]
    fn boards_larger_than_the_inline_box_set_push_and_draw_the_same() {
        // 3 rows of 100 squares: more than the 256 kept inline, so the bits live on
        // the heap. The pushes cross from one 64-square word to the next (square 127
        // to 128, and 255 to 256).
        let rows = [
            "#".repeat(100),
            format!("#@{}$.{}", " ".repeat(25), "#".repeat(71)),
            format!("#{}$.{}", " ".repeat(54), "#".repeat(43)),
        ];
        let mut world = World::new(level(&rows.join("\n")));
        let push = |direction| Step {
            direction,
            push: true,
        };
        assert_eq!(world.walk(Direction::Right, 25).blocked, None);
        assert_eq!(world.step(Direction::Right), Ok(push(Direction::Right)));
        assert!(world.has_box(1, 28) && !world.has_box(1, 27));
        assert!(!world.is_solved(), "one of two goals is filled");
        assert!(world.step(Direction::Down).is_ok());
        assert_eq!(world.walk(Direction::Right, 27).blocked, None);
        assert_eq!(world.step(Direction::Right), Ok(push(Direction::Right)));
        assert!(world.has_box(2, 56) && !world.has_box(2, 55));
        assert!(world.is_solved());
        let drawn = render(&world);
        let lines: Vec<&str> = drawn.lines().collect();
        assert_eq!(lines[1], format!("#{}*{}", " ".repeat(27), "#".repeat(71)));
        assert_eq!(lines[2], format!("#{}@*{}", " ".repeat(54), "#".repeat(43)));
        world.undo(push(Direction::Right));
        assert!(world.has_box(2, 55) && !world.has_box(2, 56));
        assert!(!world.is_solved());
    }

    #[test]
    fn walk_stops_at_first_block_and_reports_steps() {
        let mut world = World::new(level("#######\n#@ $ .#\n#######"));
        let walk = world.walk(Direction::Right, u64::MAX);
        let lurd: String = walk.steps.iter().map(ToString::to_string).collect();
        assert_eq!(lurd, "rRR");
        assert_eq!(walk.blocked, Some(Blocked::Box));
        assert_eq!(world.walk(Direction::Left, 2).blocked, None);
        assert!(world.is_solved());
    }

    #[test]
    fn lurd_letters_round_trip() {
        for direction in Direction::ALL {
            for push in [false, true] {
                let letter = direction.lurd(push);
                assert_eq!(Direction::from_lurd(letter), Some(Step { direction, push }));
            }
        }
        assert_eq!(Direction::from_lurd('x'), None);
    }

    #[test]
    fn level_checks() {
        let parse = |rows: Vec<Vec<Cell>>| Level::from_rows(&rows, WinRule::EveryGoal).map(|_| ());
        use Cell::*;
        assert_eq!(parse(vec![]), Err(LevelError::Empty));
        assert_eq!(parse(vec![vec![Box, Goal]]), Err(LevelError::NoPlayer));
        assert_eq!(
            parse(vec![vec![Player, Box, Goal], vec![Player]]),
            Err(LevelError::TwoPlayers {
                first_row: 1,
                second_row: 2
            })
        );
        assert_eq!(parse(vec![vec![Player, Box]]), Err(LevelError::NoGoal));
        assert_eq!(
            parse(vec![vec![Player, Goal, Goal, Box]]),
            Err(LevelError::FewerBoxes { boxes: 1, goals: 2 })
        );
        assert_eq!(
            parse(vec![vec![PlayerOnGoal, BoxOnGoal], vec![Box]]),
            Ok(())
        );
    }

    #[test]
    fn each_rule_checks_its_own_counts_and_wins_its_own_way() {
        use Cell::*;
        let parse = |rows: Vec<Vec<Cell>>, rule| Level::from_rows(&rows, rule).map(Arc::new);
        // What both games need holds under either rule.
        for rule in [WinRule::EveryBox, WinRule::EveryGoal] {
            assert_eq!(parse(vec![], rule), Err(LevelError::Empty));
            assert_eq!(
                parse(vec![vec![Box, Goal]], rule),
                Err(LevelError::NoPlayer)
            );
            assert!(matches!(
                parse(vec![vec![Player, Player, Goal, Box]], rule),
                Err(LevelError::TwoPlayers { .. })
            ));
        }
        // A box, a goal and a second box: pushing the first onto the goal fills every
        // goal but leaves a box off one.
        let grid = || vec![vec![Player, Box, Goal, Floor, Box]];
        let solved_after_a_push = |rule| {
            let mut world = World::new(parse(grid(), rule).unwrap());
            assert!(!world.is_solved());
            assert!(world.step(Direction::Right).unwrap().push);
            world.is_solved()
        };
        assert!(solved_after_a_push(WinRule::EveryGoal));
        assert!(!solved_after_a_push(WinRule::EveryBox));
        // More goals than boxes: refused by one rule, won by the other once the box is
        // placed.
        let grid = || vec![vec![Player, Box, Goal, Goal]];
        assert_eq!(
            parse(grid(), WinRule::EveryGoal).map(|_| ()),
            Err(LevelError::FewerBoxes { boxes: 1, goals: 2 })
        );
        let mut world = World::new(parse(grid(), WinRule::EveryBox).unwrap());
        assert!(!world.is_solved());
        world.step(Direction::Right).unwrap();
        assert!(world.is_solved());
        // No boxes, with or without goals: refused by one rule, won from the start by
        // the other.
        for grid in [vec![vec![Player, Floor]], vec![vec![Player, Goal]]] {
            assert!(parse(grid.clone(), WinRule::EveryGoal).is_err());
            let level = parse(grid, WinRule::EveryBox).unwrap();
            assert_eq!((level.box_count(), level.rule()), (0, WinRule::EveryBox));
            assert!(World::new(level).is_solved());
        }
    }

    #[test]
    fn characters_from_files_are_shown_only_when_printable_ascii() {
        let shown = |c| ShownChar(c).to_string();
        assert_eq!(shown('x'), "'x'");
        assert_eq!(shown(' '), "' '");
        assert_eq!(shown('~'), "'~'");
        assert_eq!(shown('\u{1b}'), "U+001B");
        assert_eq!(shown('\t'), "U+0009");
        assert_eq!(shown('\u{7f}'), "U+007F");
        assert_eq!(shown('é'), "U+00E9");
        assert_eq!(shown('\u{202e}'), "U+202E");
        assert_eq!(shown('😀'), "U+1F600");
    }

    #[test]
    fn ragged_rows_are_padded_with_floor() {
        let world = World::new(level("#####\n#@$.\n###"));
        assert_eq!(render(&world), "#####\n#@$. \n###  \n");
    }

    #[test]
    fn trimmed_rows_lose_trailing_floor_but_keep_the_player() {
        let trimmed = |world: &World| {
            let mut out = String::from("before\n");
            world.render_trimmed_into(&GLYPHS, &mut out);
            out
        };
        let mut world = World::new(level("#####\n#.$@ \n#    \n###"));
        assert_eq!(trimmed(&world), "before\n#####\n#.$@\n#\n###\n");
        world.step(Direction::Right).unwrap();
        assert_eq!(trimmed(&world), "before\n#####\n#.$ @\n#\n###\n");
        world.step(Direction::Down).unwrap();
        assert_eq!(trimmed(&world), "before\n#####\n#.$\n#   @\n###\n");
    }
}
