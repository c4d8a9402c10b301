//! `/hint` and `/solve` answered: the search a request runs on a solver thread, with
//! its budget, and what it found. Pure and synchronous (no tokio), so it is tested
//! without a server; [`super::Coach`] runs it on the pool and keeps its answers.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::games::boxes::Undo;
use crate::games::world::{Step, World};
use crate::solver::{self, Analysis, Budget, Push, Strategy, Verdict};

/// The most a request may search: its time, nodes and memory.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time for the whole request (the search for the last safe position
    /// included).
    pub time: Duration,
    /// Positions expanded, per search.
    pub nodes: u64,
    /// Bytes of the search's tables, per search.
    pub memory: usize,
}

/// What a player's request may spend by default: three seconds and 64 MiB, on one of
/// the solver's threads (docs/operating.md, "Help for stuck players").
pub const LIMITS: Limits = Limits {
    time: Duration::from_secs(3),
    nodes: 3_000_000,
    memory: 64 << 20,
};

/// What the player asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// `/hint`: the next push.
    Hint,
    /// `/solve`: how many pushes are left at best.
    Solve,
}

/// The position to help with, taken from the game when the player asked.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Where the player and the boxes are.
    pub world: World,
    /// The moves that led here, oldest first, as far back as the game keeps them.
    pub history: Vec<Step>,
    /// How the player goes back.
    pub undo: Undo,
}

/// Pushes known to solve a position (from wherever the player stands in its area).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// A whole solution's pushes, shared by the positions along it.
    pub solution: Arc<[Push]>,
    /// Where in `solution` this position's pushes start.
    pub next: usize,
    /// Whether no solution has fewer pushes (a search that proves it).
    pub fewest: bool,
}

impl Plan {
    /// This position's pushes, in order.
    pub fn pushes(&self) -> &[Push] {
        self.solution.get(self.next..).unwrap_or(&[])
    }
}

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A solution from here.
    Plan(Plan),
    /// None from here: the last position that can be solved is this many moves back
    /// (`None`: not within the kept moves, or not found within the budget).
    Stuck {
        /// Moves to take back.
        moves_back: Option<usize>,
    },
    /// The budget ran out before anything was proven.
    TooHard,
}

/// Search for `ask` from `snapshot`, within `limits`, until `stop` is raised.
pub fn search(
    ask: Ask,
    snapshot: &Snapshot,
    analysis: &Analysis,
    limits: Limits,
    stop: &AtomicBool,
) -> Found {
    let deadline = Instant::now() + limits.time;
    let budget = |until: Instant| Budget {
        nodes: limits.nodes,
        deadline: Some(until),
        memory: limits.memory,
    };
    let quick = |world: &World, until: Instant| {
        solver::solve(analysis, world, Strategy::Quick, &budget(until), stop)
    };
    let (verdict, fewest) = match ask {
        Ask::Hint => (quick(&snapshot.world, deadline), false),
        // The fewest pushes first, within two thirds of the time; any solution after.
        Ask::Solve => {
            let fewest_until = Instant::now() + limits.time * 2 / 3;
            match solver::solve(
                analysis,
                &snapshot.world,
                Strategy::FewestPushes,
                &budget(fewest_until),
                stop,
            ) {
                Verdict::GaveUp(_) => (quick(&snapshot.world, deadline), false),
                found => (found, true),
            }
        }
    };
    match verdict {
        Verdict::Solved(solution) => Found::Plan(Plan {
            solution: Arc::from(solution.pushes()),
            next: 0,
            fewest,
        }),
        Verdict::NoSolution => Found::Stuck {
            moves_back: last_safe(snapshot, analysis, |world| quick(world, deadline)),
        },
        Verdict::GaveUp(_) => Found::TooHard,
    }
}

/// How many moves back the last position is that can still be solved: each earlier
/// position, from the latest, right before each push (a walk changes nothing that
/// matters), until one is solved. `None` when none is found within the kept moves, or
/// a search gives up.
fn last_safe(
    snapshot: &Snapshot,
    analysis: &Analysis,
    mut solve: impl FnMut(&World) -> Verdict,
) -> Option<usize> {
    let mut world = snapshot.world.clone();
    for (back, step) in snapshot.history.iter().rev().enumerate() {
        world.undo(*step);
        if !step.push || solver::deadlock(analysis, &world, None).is_some() {
            continue;
        }
        match solve(&world) {
            Verdict::Solved(_) => return Some(back + 1),
            Verdict::NoSolution => continue,
            Verdict::GaveUp(_) => return None,
        }
    }
    None
}
