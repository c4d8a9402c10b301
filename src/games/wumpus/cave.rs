//! The wumpus world's rules: the [`Cave`] (rooms, the player, what lies where), the six
//! [`Action`]s and the [`Percept`]s they cause, in SPEC section 6's order.
//!
//! Nothing here knows about files or text commands: [`super::format`] reads and prints
//! a cave, [`super`] turns lines into actions and percepts into replies. The type is
//! called `Cave` so that it is never confused with Sokoban's `games::world::World`.

use std::fmt;

/// The largest width and height a cave may have (the seed's "at most 100 x 100").
pub const MAX_SIDE: usize = 100;

/// A room's coordinates: x grows to the east, y to the south; (0, 0) is the north-west
/// room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Column, from the west.
    pub x: usize,
    /// Row, from the north.
    pub y: usize,
}

impl Pos {
    /// The room at (`x`, `y`).
    pub const fn new(x: usize, y: usize) -> Pos {
        Pos { x, y }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// The size of a cave, in rooms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    /// Rooms from west to east.
    pub width: usize,
    /// Rooms from north to south.
    pub height: usize,
}

impl Dim {
    /// Whether `pos` is a room of a cave this size.
    pub fn contains(self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// The room one step from `pos` towards `facing`, if it is inside the cave.
    pub fn neighbour(self, pos: Pos, facing: Orientation) -> Option<Pos> {
        let next = match facing {
            Orientation::East => Pos::new(pos.x.checked_add(1)?, pos.y),
            Orientation::South => Pos::new(pos.x, pos.y.checked_add(1)?),
            Orientation::West => Pos::new(pos.x.checked_sub(1)?, pos.y),
            Orientation::North => Pos::new(pos.x, pos.y.checked_sub(1)?),
        };
        self.contains(next).then_some(next)
    }

    fn index(self, pos: Pos) -> usize {
        pos.y * self.width + pos.x
    }
}

/// The way the player faces; the numbers are the file format's `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// 0: towards growing x.
    East = 0,
    /// 1: towards growing y.
    South = 1,
    /// 2: towards x = 0.
    West = 2,
    /// 3: towards y = 0.
    North = 3,
}

impl Orientation {
    /// All four, in the order of their numbers.
    pub const ALL: [Orientation; 4] = [
        Orientation::East,
        Orientation::South,
        Orientation::West,
        Orientation::North,
    ];

    /// The orientation numbered `number` in the file format (0 east .. 3 north).
    pub fn from_number(number: u8) -> Option<Orientation> {
        Orientation::ALL.get(usize::from(number)).copied()
    }

    /// The file format's number for this orientation.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// A quarter turn clockwise (east to south).
    pub fn right(self) -> Orientation {
        Orientation::ALL[(self as usize + 1) % 4]
    }

    /// A quarter turn anticlockwise (north to west).
    pub fn left(self) -> Orientation {
        Orientation::ALL[(self as usize + 3) % 4]
    }
}

/// The explorer: where, facing which way, carrying what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Player {
    /// The room the player is in.
    pub pos: Pos,
    /// The way `move forward` and `shoot` go.
    pub facing: Orientation,
    /// The player carries the gold (`g`).
    pub has_gold: bool,
    /// The player still has the single arrow (`a`).
    pub has_arrow: bool,
}

/// What a room holds. A room holds at most one thing; a blocked room holds nothing and
/// cannot be entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thing {
    /// The living wumpus.
    Wumpus,
    /// The gold, not yet grabbed.
    Gold,
    /// A bottomless pit.
    Pit,
    /// The way out.
    Exit,
    /// Solid rock: no one enters.
    Blocked,
}

impl Thing {
    /// The file format's keyword for this thing, for messages.
    pub fn keyword(self) -> &'static str {
        match self {
            Thing::Wumpus => "wumpus",
            Thing::Gold => "gold",
            Thing::Pit => "pit",
            Thing::Exit => "exit",
            Thing::Blocked => "blocked",
        }
    }
}

/// Something the player perceives or learns, one line of output. The declaration order
/// is the order SPEC section 6 prints them in, and `Ord` follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Percept {
    /// `move forward` into a wall or a blocked room, or `climb` away from the exit.
    Bump,
    /// The arrow hit the wumpus.
    KilledWumpus,
    /// The arrow hit nothing.
    ArrowLost,
    /// A living wumpus in this room or an adjacent one.
    Smell,
    /// A pit in this room or an adjacent one (one percept per pit).
    Breeze,
    /// The gold lies in this room.
    Glitter,
    /// The exit is in this room.
    Light,
    /// The player walked into a pit: the game ends.
    FellIntoPit,
    /// The player walked into the living wumpus: the game ends.
    KilledByWumpus,
    /// `grab` picked up the gold.
    Grabbed,
    /// `climb` at the exit, carrying the gold: the game ends.
    OutWithGold,
    /// `climb` at the exit, without the gold: the game ends.
    OutWithoutGold,
}

impl Percept {
    /// The exact line SPEC section 6 prints, without its line ending.
    pub fn text(self) -> &'static str {
        match self {
            Percept::Bump => "You bumped into a wall.",
            Percept::KilledWumpus => "You killed the wumpus.",
            Percept::ArrowLost => "Your arrow disappeared into the darkness.",
            Percept::Smell => "You smell a wumpus.",
            Percept::Breeze => "You feel a breeze.",
            Percept::Glitter => "You see glitter.",
            Percept::Light => "You see light above.",
            Percept::FellIntoPit => "You fell into a pit.",
            Percept::KilledByWumpus => "You were killed by the wumpus.",
            Percept::Grabbed => "You grabbed the gold.",
            Percept::OutWithGold => "You are out with the gold.",
            Percept::OutWithoutGold => "You are out without the gold.",
        }
    }

    /// Whether this percept ends the game.
    pub fn ends_game(self) -> bool {
        matches!(
            self,
            Percept::FellIntoPit
                | Percept::KilledByWumpus
                | Percept::OutWithGold
                | Percept::OutWithoutGold
        )
    }
}

impl fmt::Display for Percept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// The six things the player can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Walk into the room ahead.
    MoveForward,
    /// Face a quarter turn anticlockwise.
    TurnLeft,
    /// Face a quarter turn clockwise.
    TurnRight,
    /// Loose the arrow into the room ahead.
    Shoot,
    /// Pick up the gold in this room.
    Grab,
    /// Leave the cave through this room's exit.
    Climb,
}

/// An action that could not be carried out. The two strings are the seed's, tense and
/// all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoEffect {
    /// A line that is not a command.
    #[error("That command had no effect.")]
    NotACommand,
    /// `grab` where there is no gold.
    #[error("That command had no effect.")]
    NoGold,
    /// `shoot` after the arrow is gone.
    #[error("That command has no effect.")]
    NoArrow,
}

/// Why a thing cannot be put in a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// The room is not inside the cave.
    #[error(
        "room {pos} is outside the {width} x {height} cave: x must be 0..={} and y 0..={}",
        width - 1,
        height - 1
    )]
    Outside {
        /// The room asked for.
        pos: Pos,
        /// The cave's width.
        width: usize,
        /// The cave's height.
        height: usize,
    },
    /// The room already holds something.
    #[error("room {pos} already holds the {}: a room holds at most one of wumpus, gold, pit and exit, and a blocked room holds nothing", holder.keyword())]
    Occupied {
        /// The room asked for.
        pos: Pos,
        /// What is already there.
        holder: Thing,
    },
    /// A blocked room where the player stands.
    #[error("room {pos} cannot be blocked: the player stands there")]
    PlayerThere {
        /// The room asked for.
        pos: Pos,
    },
}

/// A wumpus world: its size, the player, and what lies in which room.
///
/// Built with [`CaveBuilder`], which enforces the SPEC's rules (everything inside the
/// cave, one thing per room, nothing in a blocked room, the player not in one). The
/// player may share a room with a pit or the wumpus: that is the state a game ends in,
/// and a state the server printed can always be loaded again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cave {
    dim: Dim,
    player: Player,
    wumpus: Option<Pos>,
    gold: Option<Pos>,
    /// In file order, so that a printed state lists them as they were read.
    pits: Vec<Pos>,
    exit: Pos,
    /// In file order.
    blocked: Vec<Pos>,
    /// What each room holds, row by row; derived from the fields above.
    rooms: Vec<Option<Thing>>,
}

impl Cave {
    /// The cave's size.
    pub fn dim(&self) -> Dim {
        self.dim
    }

    /// The player.
    pub fn player(&self) -> Player {
        self.player
    }

    /// The living wumpus's room, if there is one.
    pub fn wumpus(&self) -> Option<Pos> {
        self.wumpus
    }

    /// The gold's room, if it has not been grabbed.
    pub fn gold(&self) -> Option<Pos> {
        self.gold
    }

    /// The pits, in file order.
    pub fn pits(&self) -> &[Pos] {
        &self.pits
    }

    /// The exit's room.
    pub fn exit(&self) -> Pos {
        self.exit
    }

    /// The blocked rooms, in file order.
    pub fn blocked(&self) -> &[Pos] {
        &self.blocked
    }

    /// What `pos` holds (`None` for an empty room or one outside the cave).
    pub fn thing_at(&self, pos: Pos) -> Option<Thing> {
        if self.dim.contains(pos) {
            self.rooms[self.dim.index(pos)]
        } else {
            None
        }
    }

    /// [`Cave::act_each`] with the percepts collected (tests compare whole lists).
    #[cfg(test)]
    pub(crate) fn act(&mut self, action: Action) -> Result<Vec<Percept>, NoEffect> {
        let mut percepts = Vec::new();
        self.act_each(action, |percept| percepts.push(percept))?;
        Ok(percepts)
    }

    /// Carry out `action` and hand what the player perceives to `each`, in SPEC order,
    /// as it happens, so that a game writes the percepts straight into its reply. When
    /// the last percept [ends the game](Percept::ends_game) the cave stays as it was at
    /// that moment (the player in the pit, or at the exit) and should not be played on.
    ///
    /// # Errors
    /// [`NoEffect`] when the action cannot be carried out (no arrow, no gold here);
    /// the cave is unchanged and `each` has not been called.
    pub fn act_each(
        &mut self,
        action: Action,
        mut each: impl FnMut(Percept),
    ) -> Result<(), NoEffect> {
        // The rules below emit percepts in `Ord` order, which is SPEC's.
        let mut last = None;
        let mut each = |percept: Percept| {
            debug_assert!(last <= Some(percept), "{last:?} before {percept:?}");
            last = Some(percept);
            each(percept);
        };
        match action {
            Action::MoveForward => {
                match self.room_ahead() {
                    Some(next) => self.player.pos = next,
                    None => each(Percept::Bump),
                }
                self.perceive_room(&mut each);
            }
            Action::TurnLeft => {
                self.player.facing = self.player.facing.left();
                self.perceive_room(&mut each);
            }
            Action::TurnRight => {
                self.player.facing = self.player.facing.right();
                self.perceive_room(&mut each);
            }
            Action::Shoot => {
                if !self.player.has_arrow {
                    return Err(NoEffect::NoArrow);
                }
                self.player.has_arrow = false;
                let target = self.dim.neighbour(self.player.pos, self.player.facing);
                match target.filter(|&pos| Some(pos) == self.wumpus) {
                    Some(pos) => {
                        self.wumpus = None;
                        self.clear(pos);
                        each(Percept::KilledWumpus);
                    }
                    None => each(Percept::ArrowLost),
                }
                self.perceive_room(&mut each);
            }
            Action::Grab => {
                let here = self.player.pos;
                if self.gold != Some(here) {
                    return Err(NoEffect::NoGold);
                }
                self.gold = None;
                self.clear(here);
                self.player.has_gold = true;
                self.perceive_room(&mut each);
                each(Percept::Grabbed);
            }
            Action::Climb => {
                if self.player.pos == self.exit {
                    each(if self.player.has_gold {
                        Percept::OutWithGold
                    } else {
                        Percept::OutWithoutGold
                    });
                } else {
                    each(Percept::Bump);
                    self.perceive_room(&mut each);
                }
            }
        }
        Ok(())
    }

    /// [`Cave::room_percepts_each`] collected (tests compare whole lists).
    #[cfg(test)]
    pub(crate) fn room_percepts(&self) -> Vec<Percept> {
        let mut percepts = Vec::new();
        self.perceive_room(&mut |percept| percepts.push(percept));
        percepts
    }

    /// What the player perceives standing in the current room, each in order to
    /// `each`, ending with falling into a pit or meeting the wumpus if the room holds
    /// one: the percepts printed after `Welcome to the Wumpus World!` and after every
    /// action that was carried out.
    pub fn room_percepts_each(&self, mut each: impl FnMut(Percept)) {
        self.perceive_room(&mut each);
    }

    fn perceive_room(&self, each: &mut impl FnMut(Percept)) {
        let here = self.player.pos;
        // This room and its neighbours inside the cave.
        let around = || {
            std::iter::once(here).chain(
                Orientation::ALL
                    .iter()
                    .filter_map(move |&facing| self.dim.neighbour(here, facing)),
            )
        };
        if around().any(|pos| Some(pos) == self.wumpus) {
            each(Percept::Smell);
        }
        for pos in around() {
            if self.thing_at(pos) == Some(Thing::Pit) {
                each(Percept::Breeze);
            }
        }
        match self.thing_at(here) {
            Some(Thing::Gold) => each(Percept::Glitter),
            Some(Thing::Exit) => each(Percept::Light),
            Some(Thing::Pit) => each(Percept::FellIntoPit),
            Some(Thing::Wumpus) => each(Percept::KilledByWumpus),
            Some(Thing::Blocked) | None => {}
        }
    }

    /// The room `move forward` would enter: inside the cave and not blocked.
    fn room_ahead(&self) -> Option<Pos> {
        self.dim
            .neighbour(self.player.pos, self.player.facing)
            .filter(|&pos| self.thing_at(pos) != Some(Thing::Blocked))
    }

    fn clear(&mut self, pos: Pos) {
        let index = self.dim.index(pos);
        self.rooms[index] = None;
    }
}

/// Builds a [`Cave`] one thing at a time, checking each as it comes, so that a file
/// parser can tell which line broke a rule.
#[derive(Debug, Clone)]
pub struct CaveBuilder {
    cave: Cave,
    has_exit: bool,
}

impl CaveBuilder {
    /// A cave of size `dim` with `player` in it and nothing else yet.
    ///
    /// # Errors
    /// [`PlaceError::Outside`] when the player is not inside the cave. `dim` must
    /// already be checked against [`MAX_SIDE`] (and not be zero).
    pub fn new(dim: Dim, player: Player) -> Result<CaveBuilder, PlaceError> {
        check_inside(dim, player.pos)?;
        Ok(CaveBuilder {
            cave: Cave {
                dim,
                player,
                wumpus: None,
                gold: None,
                pits: Vec::new(),
                exit: player.pos,
                blocked: Vec::new(),
                rooms: vec![None; dim.width * dim.height],
            },
            has_exit: false,
        })
    }

    /// Put `thing` in the room at `pos`. A second wumpus, gold or exit replaces the
    /// first (the file parser refuses them before they get here).
    ///
    /// # Errors
    /// The room is outside the cave, already holds something, or is the player's room
    /// and `thing` is [`Thing::Blocked`].
    pub fn place(&mut self, thing: Thing, pos: Pos) -> Result<(), PlaceError> {
        let dim = self.cave.dim;
        check_inside(dim, pos)?;
        let index = dim.index(pos);
        if let Some(holder) = self.cave.rooms[index] {
            return Err(PlaceError::Occupied { pos, holder });
        }
        if thing == Thing::Blocked && self.cave.player.pos == pos {
            return Err(PlaceError::PlayerThere { pos });
        }
        let cave = &mut self.cave;
        let old = match thing {
            Thing::Wumpus => cave.wumpus.replace(pos),
            Thing::Gold => cave.gold.replace(pos),
            Thing::Exit => {
                let old = std::mem::replace(&mut cave.exit, pos);
                std::mem::replace(&mut self.has_exit, true).then_some(old)
            }
            Thing::Pit => {
                cave.pits.push(pos);
                None
            }
            Thing::Blocked => {
                cave.blocked.push(pos);
                None
            }
        };
        if let Some(old) = old {
            cave.clear(old);
        }
        cave.rooms[index] = Some(thing);
        Ok(())
    }

    /// The finished cave, or `None` if no exit was placed: every cave has one.
    pub fn build(self) -> Option<Cave> {
        self.has_exit.then_some(self.cave)
    }
}

fn check_inside(dim: Dim, pos: Pos) -> Result<(), PlaceError> {
    if dim.contains(pos) {
        Ok(())
    } else {
        Err(PlaceError::Outside {
            pos,
            width: dim.width,
            height: dim.height,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's 4 x 4 example, built by hand (the file parser has its own tests).
    fn classic() -> Cave {
        let player = Player {
            pos: Pos::new(0, 0),
            facing: Orientation::South,
            has_gold: false,
            has_arrow: true,
        };
        let mut builder = CaveBuilder::new(
            Dim {
                width: 4,
                height: 4,
            },
            player,
        )
        .unwrap();
        builder.place(Thing::Wumpus, Pos::new(3, 2)).unwrap();
        builder.place(Thing::Gold, Pos::new(3, 3)).unwrap();
        builder.place(Thing::Pit, Pos::new(2, 0)).unwrap();
        builder.place(Thing::Pit, Pos::new(1, 2)).unwrap();
        builder.place(Thing::Exit, Pos::new(0, 0)).unwrap();
        builder.build().unwrap()
    }

    fn standing(cave: &Cave, x: usize, y: usize, facing: Orientation) -> Cave {
        let mut cave = cave.clone();
        cave.player.pos = Pos::new(x, y);
        cave.player.facing = facing;
        cave
    }

    use Percept::*;

    #[test]
    fn turns_go_round_both_ways() {
        assert_eq!(Orientation::North.left(), Orientation::West);
        assert_eq!(Orientation::East.left(), Orientation::North);
        assert_eq!(Orientation::East.right(), Orientation::South);
        assert_eq!(Orientation::North.right(), Orientation::East);
        for facing in Orientation::ALL {
            assert_eq!(facing.left().right(), facing);
            assert_eq!(Orientation::from_number(facing.number()), Some(facing));
        }
        assert_eq!(Orientation::from_number(4), None);
    }

    #[test]
    fn percept_order_and_text() {
        let all = [
            Bump,
            KilledWumpus,
            ArrowLost,
            Smell,
            Breeze,
            Glitter,
            Light,
            FellIntoPit,
            KilledByWumpus,
            Grabbed,
            OutWithGold,
            OutWithoutGold,
        ];
        assert!(all.is_sorted());
        assert_eq!(Glitter.to_string(), "You see glitter.");
        assert_eq!(
            ArrowLost.to_string(),
            "Your arrow disappeared into the darkness."
        );
        assert_eq!(
            all.iter().filter(|p| p.ends_game()).count(),
            4,
            "pit, wumpus and the two ways out end the game"
        );
    }

    #[test]
    fn moving_south_from_the_start_reaches_0_1() {
        let mut cave = classic();
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![]));
        assert_eq!(cave.player().pos, Pos::new(0, 1));
    }

    #[test]
    fn glitter_on_arrival_and_on_turns_and_bumps_there() {
        let mut cave = standing(&classic(), 2, 3, Orientation::East);
        // (3,3) is next to the wumpus at (3,2).
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![Smell, Glitter]));
        assert_eq!(cave.player().pos, Pos::new(3, 3));
        assert_eq!(cave.act(Action::TurnLeft), Ok(vec![Smell, Glitter]));
        assert_eq!(cave.act(Action::TurnRight), Ok(vec![Smell, Glitter]));
        assert_eq!(
            cave.act(Action::MoveForward),
            Ok(vec![Bump, Smell, Glitter])
        );
        assert_eq!(cave.player().pos, Pos::new(3, 3));
    }

    #[test]
    fn breeze_around_a_pit() {
        let cave = classic();
        for (x, y) in [(1, 2), (0, 2), (2, 2), (1, 1), (1, 3)] {
            let breezes = standing(&cave, x, y, Orientation::East)
                .room_percepts()
                .iter()
                .filter(|&&p| p == Breeze)
                .count();
            assert_eq!(breezes, 1, "at ({x},{y})");
        }
        assert!(!standing(&cave, 0, 3, Orientation::East)
            .room_percepts()
            .contains(&Breeze));
    }

    #[test]
    fn two_pits_next_to_a_room_give_two_breezes() {
        let player = Player {
            pos: Pos::new(1, 1),
            facing: Orientation::North,
            has_gold: false,
            has_arrow: true,
        };
        let dim = Dim {
            width: 3,
            height: 3,
        };
        let mut builder = CaveBuilder::new(dim, player).unwrap();
        builder.place(Thing::Pit, Pos::new(0, 1)).unwrap();
        builder.place(Thing::Pit, Pos::new(2, 1)).unwrap();
        builder.place(Thing::Pit, Pos::new(2, 2)).unwrap();
        builder.place(Thing::Exit, Pos::new(1, 0)).unwrap();
        let mut cave = builder.build().unwrap();
        assert_eq!(cave.room_percepts(), vec![Breeze, Breeze]);
        // North, into the exit room: no pit next to it.
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![Light]));
        // Into the pit at (2,1): itself and the one south of it.
        let mut cave = standing(&cave, 1, 1, Orientation::East);
        assert_eq!(
            cave.act(Action::MoveForward),
            Ok(vec![Breeze, Breeze, FellIntoPit])
        );
    }

    #[test]
    fn walking_into_a_pit_or_the_wumpus_reports_first_then_ends() {
        let mut cave = standing(&classic(), 1, 1, Orientation::South);
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![Breeze, FellIntoPit]));
        let mut cave = standing(&classic(), 3, 1, Orientation::South);
        assert_eq!(
            cave.act(Action::MoveForward),
            Ok(vec![Smell, KilledByWumpus])
        );
        assert_eq!(cave.player().pos, Pos::new(3, 2));
    }

    #[test]
    fn one_arrow_kills_the_wumpus_and_the_smell_stops() {
        let mut cave = standing(&classic(), 3, 3, Orientation::North);
        assert_eq!(cave.act(Action::Shoot), Ok(vec![KilledWumpus, Glitter]));
        assert_eq!(cave.wumpus(), None);
        assert!(!cave.player().has_arrow);
        assert_eq!(cave.act(Action::Shoot), Err(NoEffect::NoArrow));
        assert_eq!(NoEffect::NoArrow.to_string(), "That command has no effect.");
        // The dead wumpus's room is safe now.
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![]));
    }

    #[test]
    fn a_missed_arrow_disappears() {
        let mut cave = standing(&classic(), 0, 0, Orientation::North);
        assert_eq!(cave.act(Action::Shoot), Ok(vec![ArrowLost, Light]));
        let mut cave = standing(&classic(), 3, 3, Orientation::West);
        assert_eq!(cave.act(Action::Shoot), Ok(vec![ArrowLost, Smell, Glitter]));
        assert_eq!(cave.wumpus(), Some(Pos::new(3, 2)));
    }

    #[test]
    fn grab_takes_the_gold_once() {
        let mut cave = standing(&classic(), 0, 3, Orientation::North);
        assert_eq!(cave.act(Action::Grab), Err(NoEffect::NoGold));
        assert_eq!(NoEffect::NoGold.to_string(), "That command had no effect.");
        let mut cave = standing(&classic(), 3, 3, Orientation::North);
        assert_eq!(cave.act(Action::Grab), Ok(vec![Smell, Grabbed]));
        assert!(cave.player().has_gold);
        assert_eq!(cave.gold(), None);
        assert_eq!(cave.thing_at(Pos::new(3, 3)), None);
        assert_eq!(cave.act(Action::TurnLeft), Ok(vec![Smell]));
        assert_eq!(cave.act(Action::Grab), Err(NoEffect::NoGold));
    }

    #[test]
    fn climbing() {
        let mut cave = classic();
        assert_eq!(cave.act(Action::Climb), Ok(vec![OutWithoutGold]));
        let mut cave = classic();
        cave.player.has_gold = true;
        assert_eq!(cave.act(Action::Climb), Ok(vec![OutWithGold]));
        let mut cave = standing(&classic(), 1, 0, Orientation::East);
        assert_eq!(cave.act(Action::Climb), Ok(vec![Bump, Breeze]));
    }

    #[test]
    fn blocked_rooms_bump_and_stop_arrows() {
        let mut builder = CaveBuilder::new(
            Dim {
                width: 3,
                height: 1,
            },
            Player {
                pos: Pos::new(0, 0),
                facing: Orientation::East,
                has_gold: false,
                has_arrow: true,
            },
        )
        .unwrap();
        builder.place(Thing::Exit, Pos::new(0, 0)).unwrap();
        builder.place(Thing::Wumpus, Pos::new(2, 0)).unwrap();
        builder.place(Thing::Blocked, Pos::new(1, 0)).unwrap();
        let mut cave = builder.build().unwrap();
        assert_eq!(cave.act(Action::MoveForward), Ok(vec![Bump, Light]));
        assert_eq!(cave.player().pos, Pos::new(0, 0));
        assert_eq!(cave.act(Action::Shoot), Ok(vec![ArrowLost, Light]));
    }

    #[test]
    fn builder_checks_each_room() {
        let dim = Dim {
            width: 2,
            height: 2,
        };
        let player = Player {
            pos: Pos::new(1, 1),
            facing: Orientation::East,
            has_gold: false,
            has_arrow: false,
        };
        assert!(matches!(
            CaveBuilder::new(
                dim,
                Player {
                    pos: Pos::new(2, 0),
                    ..player
                }
            ),
            Err(PlaceError::Outside { .. })
        ));
        let mut builder = CaveBuilder::new(dim, player).unwrap();
        builder.place(Thing::Pit, Pos::new(0, 0)).unwrap();
        assert_eq!(
            builder.place(Thing::Exit, Pos::new(0, 0)),
            Err(PlaceError::Occupied {
                pos: Pos::new(0, 0),
                holder: Thing::Pit
            })
        );
        assert_eq!(
            builder.place(Thing::Blocked, Pos::new(1, 1)),
            Err(PlaceError::PlayerThere {
                pos: Pos::new(1, 1)
            })
        );
        assert_eq!(
            builder
                .place(Thing::Gold, Pos::new(0, 2))
                .unwrap_err()
                .to_string(),
            "room (0, 2) is outside the 2 x 2 cave: x must be 0..=1 and y 0..=1"
        );
        assert!(builder.clone().build().is_none(), "no exit yet");
        // The player may stand on the exit, and on a pit (a state after a fall).
        builder.place(Thing::Exit, Pos::new(1, 1)).unwrap();
        let cave = builder.build().unwrap();
        assert_eq!(cave.exit(), Pos::new(1, 1));
        assert_eq!(cave.room_percepts(), vec![Light]);
        let mut builder = CaveBuilder::new(dim, player).unwrap();
        builder.place(Thing::Pit, Pos::new(1, 1)).unwrap();
        builder.place(Thing::Exit, Pos::new(0, 0)).unwrap();
        let cave = builder.build().unwrap();
        assert_eq!(cave.room_percepts(), vec![Breeze, FellIntoPit]);
    }
}
