//! Help for stuck Sokoban players (SPEC section 13): a warning after a push that
//! leaves the level unsolvable, `/hint` and `/solve`, all backed by the [`solver`].
//!
//! One [`Coach`] per server, a cheap handle in every seat's services. Warnings are the
//! solver's cheap checks (no search) on the level's analysis, which is made once per
//! level on the solver's threads; every search runs there too ([`pool`]), within a
//! budget ([`ask::LIMITS`]), and its answers are kept per position ([`answers`]).
//! What a player may spend is bounded three ways: one request at a time per session
//! (the session waits for its answer), [`PER_ADDRESS`] at a time per address, and the
//! pool's queue for everyone.
//!
//! [`solver`]: crate::solver

pub mod analyses;
pub mod answers;
pub mod ask;
pub mod pool;
pub mod walk;
pub mod words;

use std::net::IpAddr;
use std::sync::Arc;

use crate::games::boxes::Boxes;
use crate::players::inbox::{InboxSender, Message};
use crate::records::places::{Full, Places};
use crate::solver;

use analyses::Analyses;
use answers::Answers;
use ask::{Ask, Found, Limits, Snapshot};
use pool::Pool;

/// Requests searching or waiting at once from one address (a class behind one NAT
/// shares it; the pool's queue is the bound for everyone).
pub const PER_ADDRESS: usize = 8;

/// What the corral check after a push may spend: it runs after every push of a
/// player with warnings on, so it is small.
pub const CORRAL_LIMITS: Limits = Limits {
    time: std::time::Duration::from_millis(50),
    nodes: 20_000,
    memory: 4 << 20,
};

/// What a player is told when the solver cannot take the request now.
pub const BUSY: &str = "The solver is busy: ask again in a few seconds.\n";

/// The server's help for stuck players: a cheap handle.
#[derive(Debug, Clone)]
pub struct Coach(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    pool: Pool,
    analyses: Arc<Analyses>,
    answers: Arc<Answers>,
    places: Places,
    limits: Limits,
    /// `--allow-solutions`: `/solve` plays the solution out.
    allow_solutions: bool,
}

impl Default for Coach {
    fn default() -> Self {
        Coach::new(false)
    }
}

impl Coach {
    /// The help, on [`pool::SOLVER_WORKERS`] threads of its own; `allow_solutions`
    /// lets `/solve` play the solution out (`--allow-solutions`).
    pub fn new(allow_solutions: bool) -> Coach {
        Coach::with(pool::SOLVER_WORKERS, ask::LIMITS, allow_solutions)
    }

    /// The help with `workers` threads and `limits` per request (tests use small ones).
    pub fn with(workers: usize, limits: Limits, allow_solutions: bool) -> Coach {
        Coach(Arc::new(Shared {
            pool: Pool::new(workers, pool::SOLVER_QUEUE),
            analyses: Arc::new(Analyses::default()),
            answers: Arc::new(Answers::default()),
            places: Places::new(workers + pool::SOLVER_QUEUE, PER_ADDRESS),
            limits,
            allow_solutions,
        }))
    }

    /// Whether `/solve` plays the solution out.
    pub fn allows_solutions(&self) -> bool {
        self.0.allow_solutions
    }

    /// The warning for the position `boxes` shows, if it is a deadlock the cheap
    /// checks prove. When they prove nothing, a corral the player cannot enter may
    /// still be dead: that takes a search, so it is asked of the solver's threads
    /// within [`CORRAL_LIMITS`], and a proof goes to `inbox` as a
    /// [`Message::Deadlock`] for this position (skipped when the queue is full: a
    /// warning is never wrong, it may be missing). `None` also while the level's
    /// analysis is being made.
    pub fn warning(&self, boxes: &Boxes<'_>, inbox: &InboxSender) -> Option<String> {
        let analysis = self.0.analyses.ready(boxes.world.level(), &self.0.pool)?;
        let pushed = last_pushed(boxes);
        if let Some(deadlock) = solver::deadlock(&analysis, boxes.world, pushed) {
            return Some(words::warning(&deadlock, pushed, boxes.undo));
        }
        // Most pushes leave no corral: a flood fill here spares them the hand-off to
        // the solver's thread (row 13 of docs/BENCHMARKS.md measured it).
        if !solver::has_corral(&analysis, boxes.world) {
            return None;
        }
        let world = boxes.world.clone();
        let undo = boxes.undo;
        let inbox = inbox.clone();
        let _queued = self.0.pool.submit(move || {
            let budget = solver::Budget {
                nodes: CORRAL_LIMITS.nodes,
                deadline: Some(std::time::Instant::now() + CORRAL_LIMITS.time),
                memory: CORRAL_LIMITS.memory,
            };
            let stop = std::sync::atomic::AtomicBool::new(false);
            if let Some(deadlock) = solver::corral_deadlock(&analysis, &world, &budget, &stop) {
                let _gone = inbox.send(Message::Deadlock {
                    position: solver::position_key(&world),
                    text: words::warning(&deadlock, None, undo),
                });
            }
        });
        None
    }

    /// Have the analysis of the level `boxes` is played on made (a game begins with
    /// warnings on), so that the first push is warned about.
    pub fn prepare(&self, boxes: &Boxes<'_>) {
        let _ = self.0.analyses.ready(boxes.world.level(), &self.0.pool);
    }

    /// Search for `ask` from `snapshot` on the solver's threads, for a player at
    /// `address`; an answer already known is given at once.
    ///
    /// # Errors
    /// [`BUSY`] (as the error) when the address or the queue has no room.
    pub async fn ask(
        &self,
        ask: Ask,
        snapshot: Snapshot,
        address: IpAddr,
    ) -> Result<Found, &'static str> {
        if let Some(plan) = self.0.answers.get(&snapshot.world) {
            if ask == Ask::Hint || plan.fewest {
                return Ok(Found::Plan(plan));
            }
        }
        let place = self.0.places.take(address).map_err(|_: Full| BUSY)?;
        let analyses = Arc::clone(&self.0.analyses);
        let answers = Arc::clone(&self.0.answers);
        let limits = self.0.limits;
        let found = self
            .0
            .pool
            .run(move |stop| {
                let _place = place;
                let analysis = analyses.make(snapshot.world.level());
                let found = ask::search(ask, &snapshot, &analysis, limits, stop);
                if let Found::Plan(plan) = &found {
                    answers.keep(&snapshot.world, plan);
                }
                found
            })
            .await
            .map_err(|_| BUSY)?;
        Ok(found)
    }
}

/// Where the last move pushed its box to, if the last move was a push.
fn last_pushed(boxes: &Boxes<'_>) -> Option<(usize, usize)> {
    let last = boxes.history.back().filter(|step| step.push)?;
    let (row, column) = boxes.world.player();
    use crate::games::world::Direction;
    match last.direction {
        Direction::Up => Some((row.checked_sub(1)?, column)),
        Direction::Down => Some((row + 1, column)),
        Direction::Left => Some((row, column.checked_sub(1)?)),
        Direction::Right => Some((row, column + 1)),
    }
}
