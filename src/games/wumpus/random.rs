//! Seeded random worlds of the textbook's shape (Russell and Norvig, AIMA chapter 7):
//! `play wumpus random seed=N [size=4] [pits=0.2]`, so that ladders and agents have as
//! many worlds as they need, each the same for a seed in every later version.
//!
//! The textbook's world mapped onto arcade's (docs/playing.md says it to players):
//!
//! - a `size` x `size` cave; the explorer starts at (0, 0), the north-west corner,
//!   facing south, with the arrow and no gold, and the exit is there, as in arcade's
//!   `classic` world. The textbook's agent starts in the corner \[1,1\] facing east
//!   along a wall: its square \[i,j\] is arcade's room (j-1, i-1), a mirror image, so
//!   every neighbour, every wall and every line of sight is the same.
//! - one wumpus, on a room other than the start drawn uniformly; one gold, drawn
//!   uniformly from the rooms other than the start and the wumpus's. Arcade's rule of
//!   one thing per room (SPEC section 6) keeps them apart, where the textbook lets the
//!   gold lie in a pit: such worlds, which nobody can win, do not occur here.
//! - a pit on every other room (not the start, the wumpus's or the gold's), each with
//!   chance `pits`.
//!
//! Draws go through [`below`], whose numbers depend only on ChaCha8's stream (as 2048's
//! tiles do), in this order: the wumpus, the gold, then one draw per remaining room in
//! row order. A test pins one seed's world.
//!
//! The game itself keeps no score; [`performance`] is the textbook's performance
//! measure, which the agents' benchmark reports.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::cave::{CaveBuilder, Dim, Orientation, Player, Pos, Thing};
use super::Cave;
use crate::games::twenty48::board::below;
use crate::games::Outcome;

/// The word after `play wumpus` that asks for a random world.
pub const WORD: &str = "random";

/// The smallest side of a random world: the start, the wumpus, the gold and one room
/// more.
pub const MIN_SIZE: usize = 2;

/// The largest side of a random world.
pub const MAX_SIZE: usize = 10;

/// Chances are kept in millionths, so that a chance is an exact integer and a seed's
/// draws never depend on floating point.
const MILLION: u32 = 1_000_000;

/// The largest chance of a pit, in millionths (0.5).
pub const MAX_PITS: u32 = MILLION / 2;

/// The textbook's shape: the side of the cave and the chance of a pit in a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Rooms on each side.
    pub size: usize,
    /// The chance of a pit in each room that may hold one, in millionths.
    pub pits: u32,
}

impl Default for Shape {
    /// The textbook's: 4 x 4, a pit with chance 0.2.
    fn default() -> Shape {
        Shape {
            size: 4,
            pits: MILLION / 5,
        }
    }
}

/// A random world: its shape and its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomWorld {
    /// The shape.
    pub shape: Shape,
    /// The seed of ChaCha8's stream.
    pub seed: u64,
}

impl RandomWorld {
    /// The world this seed makes.
    pub fn cave(&self) -> Cave {
        generate(self.seed, self.shape)
    }

    /// The world's name for leaderboards: `random seed=N`, with `size=` and `pits=`
    /// when they are not the textbook's, always in this order.
    pub fn key(&self) -> String {
        let mut key = format!("{WORD} seed={}", self.seed);
        let default = Shape::default();
        if self.shape.size != default.size {
            key.push_str(&format!(" size={}", self.shape.size));
        }
        if self.shape.pits != default.pits {
            key.push_str(&format!(" pits={}", chance_text(self.shape.pits)));
        }
        key
    }
}

/// Why the words after `play wumpus random` cannot make a world. Each message is one
/// line that says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A word that is not `seed=`, `size=` or `pits=`.
    #[error("Unknown argument: {0}. Use seed=N, size=N, pits=P.")]
    Unknown(String),
    /// The same setting twice.
    #[error("{0} is given twice: give it once.")]
    Twice(&'static str),
    /// `seed=` is not a `u64`.
    #[error("seed must be a whole number from 0 to {}.", u64::MAX)]
    Seed,
    /// `size=` outside its range.
    #[error("size must be {MIN_SIZE} to {MAX_SIZE}.")]
    Size,
    /// `pits=` is not a chance from 0 to 0.5.
    #[error("pits must be a chance from 0 to 0.5, such as 0.2 (at most 6 decimals).")]
    Pits,
}

/// The shape and the seed, if any, named by the words after `play wumpus random`:
/// `[seed=N] [size=N] [pits=P]` in any order, keys in any case.
///
/// # Errors
/// [`ArgsError`] for an unknown or repeated word or a value out of range.
pub fn parse_args(args: &[&str]) -> Result<(Shape, Option<u64>), ArgsError> {
    let (mut seed, mut size, mut pits) = (None, None, None);
    for &arg in args {
        let Some((key, value)) = arg.split_once('=') else {
            return Err(ArgsError::Unknown(arg.to_string()));
        };
        let (name, old) = match key.to_ascii_lowercase().as_str() {
            "seed" => ("seed", seed.replace(value)),
            "size" => ("size", size.replace(value)),
            "pits" => ("pits", pits.replace(value)),
            _ => return Err(ArgsError::Unknown(arg.to_string())),
        };
        if old.is_some() {
            return Err(ArgsError::Twice(name));
        }
    }
    let mut shape = Shape::default();
    if let Some(size) = size {
        shape.size = size
            .parse()
            .ok()
            .filter(|size| (MIN_SIZE..=MAX_SIZE).contains(size))
            .ok_or(ArgsError::Size)?;
    }
    if let Some(pits) = pits {
        shape.pits = parse_chance(pits)
            .filter(|&pits| pits <= MAX_PITS)
            .ok_or(ArgsError::Pits)?;
    }
    let seed = match seed {
        Some(seed) => Some(seed.parse::<u64>().map_err(|_| ArgsError::Seed)?),
        None => None,
    };
    Ok((shape, seed))
}

/// A decimal chance (`0.2`, `.25`, `0`, `1`) in millionths, read exactly; `None` for
/// anything else or more than six decimals.
fn parse_chance(text: &str) -> Option<u32> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || fraction.len() > 6 {
        return None;
    }
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // A long run of digits fails to parse and is refused like any other.
    let whole: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    if whole > 1 {
        return None;
    }
    let padded = format!("{fraction:0<6}");
    let fraction: u32 = padded.parse().ok()?;
    Some(whole * MILLION + fraction)
}

/// A chance in millionths as the shortest decimal (`0.2`, `0.125`, `0`).
pub fn chance_text(millionths: u32) -> String {
    let whole = millionths / MILLION;
    let fraction = millionths % MILLION;
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// The world `seed` makes in `shape` (see the module's documentation for the draws).
/// A `shape` outside the ranges [`parse_args`] allows is brought inside them.
pub fn generate(seed: u64, shape: Shape) -> Cave {
    let size = shape.size.clamp(MIN_SIZE, MAX_SIZE);
    let pits = shape.pits.min(MAX_PITS);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = Pos::new(0, 0);
    let player = Player {
        pos: start,
        facing: Orientation::South,
        has_gold: false,
        has_arrow: true,
    };
    let dim = Dim {
        width: size,
        height: size,
    };
    // Every room but the start, in row order: the wumpus and the gold are taken out
    // of it as they are drawn, the pits drawn over what remains.
    let mut rooms: Vec<Pos> = (0..size)
        .flat_map(|y| (0..size).map(move |x| Pos::new(x, y)))
        .filter(|&pos| pos != start)
        .collect();
    let mut take = |rooms: &mut Vec<Pos>| {
        // At most 99 rooms: the count fits in a u32, and the index drawn is below it.
        let count = u32::try_from(rooms.len()).unwrap_or(u32::MAX);
        let index = usize::try_from(below(&mut rng, count)).unwrap_or(0);
        rooms.remove(index.min(rooms.len() - 1))
    };
    let wumpus = take(&mut rooms);
    let gold = take(&mut rooms);
    let pit_rooms: Vec<Pos> = rooms
        .into_iter()
        .filter(|_| below(&mut rng, MILLION) < pits)
        .collect();
    // Every room is inside the cave and holds one thing: placing cannot fail.
    let mut builder = match CaveBuilder::new(dim, player) {
        Ok(builder) => builder,
        Err(error) => unreachable!("the start is inside the cave: {error}"),
    };
    let things = [(Thing::Wumpus, wumpus), (Thing::Gold, gold)]
        .into_iter()
        .chain(pit_rooms.into_iter().map(|pos| (Thing::Pit, pos)))
        .chain(std::iter::once((Thing::Exit, start)));
    for (thing, pos) in things {
        if let Err(error) = builder.place(thing, pos) {
            unreachable!("a drawn room is inside and empty: {error}");
        }
    }
    match builder.build() {
        Some(cave) => cave,
        None => unreachable!("the exit was placed"),
    }
}

/// The textbook's performance measure: +1000 for climbing out with the gold, -1000
/// for a pit or the wumpus, -1 for each action carried out (the climb too) and -10
/// for spending the arrow. `outcome` is how the game ended (`None`: still going).
pub fn performance(outcome: Option<Outcome>, actions: u64, arrow_spent: bool) -> i64 {
    let ending = match outcome {
        Some(Outcome::Won) => 1000,
        Some(Outcome::Died) => -1000,
        _ => 0,
    };
    let actions = i64::try_from(actions).unwrap_or(i64::MAX / 2);
    ending - actions - if arrow_spent { 10 } else { 0 }
}

/// Whether the gold can be reached from the player's room walking only through
/// rooms with no pit, no blocked rock, and no wumpus unless `through_wumpus`: an
/// oracle that sees the whole cave, the upper bound of an agent that takes no risks.
pub fn gold_reachable(cave: &Cave, through_wumpus: bool) -> bool {
    let Some(gold) = cave.gold() else {
        return cave.player().has_gold;
    };
    let dim = cave.dim();
    let open = |pos: Pos| match cave.thing_at(pos) {
        Some(Thing::Pit | Thing::Blocked) => false,
        Some(Thing::Wumpus) => through_wumpus,
        _ => true,
    };
    let start = cave.player().pos;
    if !open(start) {
        return false;
    }
    let mut seen = vec![false; dim.width * dim.height];
    let mut queue = std::collections::VecDeque::from([start]);
    seen[start.y * dim.width + start.x] = true;
    while let Some(pos) = queue.pop_front() {
        if pos == gold {
            return true;
        }
        for facing in Orientation::ALL {
            if let Some(next) = dim.neighbour(pos, facing) {
                let index = next.y * dim.width + next.x;
                if !seen[index] && open(next) {
                    seen[index] = true;
                    queue.push_back(next);
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_makes_one_world_for_ever() {
        // Pinned: if this changes, every recorded seed names another world.
        let cave = generate(1, Shape::default());
        assert_eq!(cave.to_string(), generate(1, Shape::default()).to_string());
        assert_eq!(cave.to_string(), PINNED_SEED_1);
        assert_ne!(cave, generate(2, Shape::default()));
    }

    const PINNED_SEED_1: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 3\ngold 1 2\npit 3 2\nexit 0 0\n";

    #[test]
    fn every_world_has_the_textbook_shape() {
        for size in MIN_SIZE..=MAX_SIZE {
            for seed in 0..200 {
                let shape = Shape {
                    size,
                    pits: MAX_PITS,
                };
                let cave = generate(seed, shape);
                let start = Pos::new(0, 0);
                assert_eq!(cave.dim().width, size);
                assert_eq!(cave.dim().height, size);
                assert_eq!(cave.player().pos, start);
                assert_eq!(cave.player().facing, Orientation::South);
                assert!(cave.player().has_arrow && !cave.player().has_gold);
                assert_eq!(cave.exit(), start);
                assert_eq!(cave.thing_at(start), Some(Thing::Exit));
                let wumpus = cave.wumpus().unwrap();
                let gold = cave.gold().unwrap();
                assert!(wumpus != start && gold != start && wumpus != gold);
                assert!(cave.blocked().is_empty());
                assert!(cave.pits().iter().all(|&p| p != start));
                // And it reads back as the same world.
                assert_eq!(super::super::parse_cave(&cave.to_string()).unwrap(), cave);
            }
        }
    }

    #[test]
    fn wumpus_and_gold_are_spread_and_pits_come_at_their_chance() {
        let mut wumpus = [0u32; 16];
        let mut gold = [0u32; 16];
        let mut pits = 0usize;
        let worlds = 7000;
        for seed in 0..worlds {
            let cave = generate(seed, Shape::default());
            let w = cave.wumpus().unwrap();
            let g = cave.gold().unwrap();
            wumpus[w.y * 4 + w.x] += 1;
            gold[g.y * 4 + g.x] += 1;
            pits += cave.pits().len();
        }
        assert_eq!((wumpus[0], gold[0]), (0, 0));
        // 7000 over 15 rooms: about 467 each.
        for count in wumpus.iter().chain(&gold).skip(1).filter(|&&c| c > 0) {
            assert!((380..560).contains(count), "{wumpus:?} {gold:?}");
        }
        assert_eq!(wumpus.iter().filter(|&&c| c > 0).count(), 15);
        assert_eq!(gold.iter().filter(|&&c| c > 0).count(), 15);
        // 13 rooms can hold a pit, each with chance 0.2: 2.6 a world.
        let mean = pits as f64 / worlds as f64;
        assert!((2.5..2.7).contains(&mean), "{mean}");
        let none = generate(5, Shape { size: 4, pits: 0 });
        assert!(none.pits().is_empty());
    }

    #[test]
    fn arguments() {
        assert_eq!(parse_args(&[]), Ok((Shape::default(), None)));
        assert_eq!(
            parse_args(&["SEED=7", "size=5", "Pits=0.25"]),
            Ok((
                Shape {
                    size: 5,
                    pits: 250_000
                },
                Some(7)
            ))
        );
        assert_eq!(parse_args(&["pits=.5"]).map(|(s, _)| s.pits), Ok(500_000));
        assert_eq!(parse_args(&["pits=0"]).map(|(s, _)| s.pits), Ok(0));
        let error = |args: &[&str]| parse_args(args).unwrap_err().to_string();
        assert_eq!(error(&["size=1"]), "size must be 2 to 10.");
        assert_eq!(error(&["size=11"]), "size must be 2 to 10.");
        for bad in [
            "pits=0.6",
            "pits=1",
            "pits=x",
            "pits=",
            "pits=.",
            "pits=-0.1",
        ] {
            assert_eq!(
                error(&[bad]),
                "pits must be a chance from 0 to 0.5, such as 0.2 (at most 6 decimals).",
                "{bad}"
            );
        }
        assert_eq!(
            error(&["pits=0.1234567"]),
            "pits must be a chance from 0 to 0.5, such as 0.2 (at most 6 decimals)."
        );
        assert_eq!(
            error(&["seed=-1"]),
            "seed must be a whole number from 0 to 18446744073709551615."
        );
        assert_eq!(
            error(&["seed=1", "seed=2"]),
            "seed is given twice: give it once."
        );
        assert_eq!(
            error(&["big"]),
            "Unknown argument: big. Use seed=N, size=N, pits=P."
        );
    }

    #[test]
    fn keys_name_the_world_in_one_order() {
        let world = |args: &[&str]| {
            let (shape, seed) = parse_args(args).unwrap();
            RandomWorld {
                shape,
                seed: seed.unwrap(),
            }
            .key()
        };
        assert_eq!(world(&["seed=7"]), "random seed=7");
        assert_eq!(world(&["size=4", "pits=0.20", "seed=7"]), "random seed=7");
        assert_eq!(
            world(&["pits=0.125", "size=6", "seed=7"]),
            "random seed=7 size=6 pits=0.125"
        );
        assert_eq!(chance_text(0), "0");
        assert_eq!(chance_text(500_000), "0.5");
        assert_eq!(chance_text(1), "0.000001");
    }

    #[test]
    fn the_textbook_score() {
        assert_eq!(performance(Some(Outcome::Won), 20, true), 970);
        assert_eq!(performance(Some(Outcome::Died), 3, false), -1003);
        assert_eq!(performance(Some(Outcome::Stopped), 1, false), -1);
    }

    #[test]
    fn the_oracle_walks_round_pits_and_the_wumpus() {
        let cave = |text: &str| super::super::parse_cave(text).unwrap();
        // The classic world: the gold at (3,3) beside the wumpus at (3,2).
        let classic =
            cave("dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n");
        assert!(gold_reachable(&classic, false));
        // Walled in by pits at (1,0) and (0,1).
        let walled = cave("dim 3 3\nplayer 0 0 1 0 1\ngold 2 2\npit 1 0\npit 0 1\nexit 0 0\n");
        assert!(!gold_reachable(&walled, true));
        // Behind the wumpus only.
        let behind = cave("dim 3 1\nplayer 0 0 0 0 1\nwumpus 1 0\ngold 2 0\nexit 0 0\n");
        assert!(!gold_reachable(&behind, false));
        assert!(gold_reachable(&behind, true));
    }
}
