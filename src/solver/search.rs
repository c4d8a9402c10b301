//! The push search: best-first over normalised positions, each push a step.
//!
//! A* on pushes + matching bound finds the fewest pushes (the bound is consistent, so
//! a position's first expansion is at its best cost); the quick search orders by the
//! bound first, which finds a solution long before A* would on hard levels, and
//! groups positions by the player's regions and the goals packed in order, the groups
//! taking turns (FESS's connectivity and packing features: `regions.rs`,
//! `packing.rs`, `open.rs`). All keep
//! every position in the transposition table, so all are complete: running out of
//! positions proves there is no solution. Pruning only ever drops dead positions (dead
//! squares, frozen boxes off goals, an impossible matching), so that proof stands.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::board::{reverse, Board, Reach, NONE};
use super::bound::{Matching, DEAD};
use super::freeze::Freeze;
use super::open::Open;
use super::packing::Packing;
use super::pi::{Corrals, Cut};
use super::recent::Recent;
use super::regions::Regions;
use super::table::{player_mix, Nodes, NO_NODE};

/// Why a search stopped without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Nodes,
    Time,
    Memory,
    Stopped,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The pushes, in order: the box's square before each, and the direction index.
    Solved(Vec<(u16, u8)>),
    /// Every position reachable was seen: none is solved.
    NoSolution,
    /// A limit came first.
    GaveUp(Stop),
}

/// How the open positions are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// By pushes so far + bound: the fewest pushes.
    Optimal,
    /// By the bound, then pushes: any solution, fast.
    Greedy,
    /// As `Greedy` among the positions of one number of player regions and of goals
    /// packed in order, the groups taking turns: any solution, fast, where the bound
    /// alone leads astray.
    Regions,
}

/// The limits of one search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits<'a> {
    pub(crate) nodes: u64,
    pub(crate) deadline: Option<Instant>,
    pub(crate) memory: usize,
    pub(crate) stop: &'a AtomicBool,
}

/// A position to solve on a board.
#[derive(Debug, Clone)]
pub(crate) struct Problem<'a> {
    pub(crate) board: &'a Board,
    /// The boxes' squares (any order).
    pub(crate) boxes: Vec<u16>,
    /// The player's square.
    pub(crate) player: u32,
    /// Every box must end on a goal (`EveryBox`, or as many boxes as goals);
    /// otherwise surplus boxes may stay anywhere.
    pub(crate) strict: bool,
}

/// How often the clock and the stop flag are read, in expansions. An expansion takes
/// microseconds with few boxes but milliseconds with a hundred and more (its matching
/// alone is cubic in the boxes), and 256 of those overran a 3 s deadline by 4 s; a
/// clock read every 8 costs well under 1% with few boxes.
const CHECK_EVERY: u64 = 8;

impl Limits<'_> {
    /// Why a search must stop after `expanded` expansions (the stop flag raised, or the
    /// deadline past), read once every [`CHECK_EVERY`].
    pub(crate) fn interrupted(&self, expanded: u64) -> Option<Stop> {
        if !expanded.is_multiple_of(CHECK_EVERY) {
            return None;
        }
        if self.stop.load(Ordering::Relaxed) {
            return Some(Stop::Stopped);
        }
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
            .then_some(Stop::Time)
    }

    /// Why a search must stop having generated `generated` positions held in `bytes`.
    pub(crate) fn spent(&self, generated: u64, bytes: usize) -> Option<Stop> {
        if generated >= self.nodes {
            Some(Stop::Nodes)
        } else {
            (bytes > self.memory).then_some(Stop::Memory)
        }
    }
}

/// The search's scratch space, sized for one board.
struct Scratch {
    /// 1 + the slot of the box on each square, 0 for none.
    box_at: Vec<u16>,
    /// Squares the player reaches in the expanded position.
    reach: Reach,
    /// The same for a child's normalisation.
    child_reach: Reach,
    queue: Vec<u32>,
}

impl Scratch {
    fn new(squares: usize) -> Scratch {
        Scratch {
            box_at: vec![0; squares],
            reach: Reach::new(squares),
            child_reach: Reach::new(squares),
            queue: Vec::with_capacity(squares),
        }
    }
}

/// Search `problem` within `limits`.
pub(crate) fn search(problem: &Problem<'_>, order: Order, limits: &Limits<'_>) -> Outcome {
    let board = problem.board;
    let k = problem.boxes.len();
    let Some(mut base) = Matching::new(board, k, problem.strict) else {
        return Outcome::NoSolution;
    };
    let mut work = base.clone();
    let mut recent = Recent::new(&base, k, limits.memory);
    let mut scratch = Scratch::new(board.squares());
    let mut freeze = Freeze::default();
    let mut corrals = Corrals::new(board.squares());
    // Every goal must end with a box (else extra goals may stay empty).
    let fill = !problem.strict || k == board.goals.len();
    let mut allowed = vec![true; k];
    let mut nodes = Nodes::new(k);
    let mut open = Open::default();
    // A position's cell of the open list (by Regions: the player's regions in the low
    // byte, the goals packed in order above) and its priority there.
    let mut regions = (order == Order::Regions).then(|| Regions::new(board.squares()));
    let packing = (order == Order::Regions).then(|| Packing::new(board));
    let mut rank = |cost: u16, bound: u16, box_at: &[u16]| -> (u32, usize) {
        match order {
            Order::Optimal => (0, usize::from(cost) + usize::from(bound)),
            Order::Greedy | Order::Regions => (
                regions
                    .as_mut()
                    .map_or(0, |regions| regions.count(board, box_at).min(255))
                    + packing
                        .as_ref()
                        .map_or(0, |packing| packing.count(box_at) << 8),
                greedy_priority(cost, bound),
            ),
        }
    };

    let mut start = problem.boxes.clone();
    start.sort_unstable();
    if start.windows(2).any(|pair| pair[0] == pair[1]) {
        return Outcome::NoSolution;
    }
    for &square in &start {
        scratch.box_at[square as usize] = 1;
    }
    let player = scratch
        .reach
        .fill(board, &scratch.box_at, &mut scratch.queue, problem.player);
    if problem.strict {
        for &square in &start {
            if board.dead[square as usize]
                || frozen_off_goal(problem, board, &scratch.box_at, &mut freeze, square.into())
            {
                return Outcome::NoSolution;
            }
        }
    }
    let bound = base.solve(board, &start);
    if bound == DEAD {
        return Outcome::NoSolution;
    }
    if bound == 0 {
        return Outcome::Solved(Vec::new());
    }
    let (cell, priority) = rank(0, clamp(bound), &scratch.box_at);
    for &square in &start {
        scratch.box_at[square as usize] = 0;
    }
    let box_hash = start
        .iter()
        .fold(0, |hash, &square| hash ^ board.box_key[square as usize]);
    let root = nodes.insert(
        Nodes::hash(box_hash, player_mix(player as u16)),
        box_hash,
        &start,
        player as u16,
        NO_NODE,
        (0, 0),
        0,
        clamp(bound),
    );
    open.push(cell, priority, root);

    let fixed_bytes = board.bytes() + board.squares() * 14 + k * k * 16;
    let mut generated: u64 = 0;
    let mut expanded: u64 = 0;
    let mut boxes = vec![0u16; k];
    let mut child = vec![0u16; k];
    while let Some(node) = open.pop() {
        if nodes.closed[node as usize] {
            continue;
        }
        expanded += 1;
        if let Some(stop) = limits.interrupted(expanded) {
            return Outcome::GaveUp(stop);
        }
        let cost = nodes.cost[node as usize];
        if order == Order::Optimal && nodes.bound[node as usize] == 0 {
            return Outcome::Solved(path(&nodes, node));
        }
        nodes.closed[node as usize] = true;
        // The boxes in the row order of the matching kept, or as stored.
        let kept = recent.restore(node, board, &mut boxes, &mut base);
        if !kept {
            boxes.copy_from_slice(nodes.boxes(node));
        }
        let node_hash = nodes.box_hash(node);
        for (slot, &square) in boxes.iter().enumerate() {
            scratch.box_at[square as usize] = slot as u16 + 1;
        }
        scratch.reach.fill(
            board,
            &scratch.box_at,
            &mut scratch.queue,
            u32::from(nodes.player(node)),
        );
        if !kept {
            base.solve(board, &boxes);
        }
        // PI-corrals cut the quick search only: A* keeps every push, so that its
        // fewest pushes need no argument beyond the bound's.
        let cut = if order != Order::Optimal {
            let reach = &scratch.reach;
            corrals.cut(
                board,
                &scratch.box_at,
                &|s| reach.has(s),
                problem.strict,
                fill,
            )
        } else {
            Cut::None
        };
        match &cut {
            Cut::None => allowed.fill(true),
            Cut::Only(slots) => {
                allowed.fill(false);
                for &slot in slots {
                    allowed[slot as usize] = true;
                }
            }
            Cut::Dead => allowed.fill(false),
        }
        let mut outcome = None;
        'boxes: for slot in 0..k {
            if !allowed[slot] {
                continue;
            }
            let from = u32::from(boxes[slot]);
            for direction in 0..4 {
                let behind = board.next[from as usize][reverse(direction)];
                if behind == NONE || !scratch.reach.has(behind) {
                    continue;
                }
                let to = board.next[from as usize][direction];
                if to == NONE || scratch.box_at[to as usize] != 0 {
                    continue;
                }
                if problem.strict && board.dead[to as usize] {
                    continue;
                }
                scratch.box_at[from as usize] = 0;
                scratch.box_at[to as usize] = slot as u16 + 1;
                if !frozen_off_goal(problem, board, &scratch.box_at, &mut freeze, to) {
                    generated += 1;
                    child.copy_from_slice(&boxes);
                    child[slot] = to as u16;
                    child.sort_unstable();
                    let player =
                        scratch
                            .child_reach
                            .fill(board, &scratch.box_at, &mut scratch.queue, from)
                            as u16;
                    let box_hash =
                        node_hash ^ board.box_key[from as usize] ^ board.box_key[to as usize];
                    let hash = Nodes::hash(box_hash, player_mix(player));
                    let child_cost = cost.saturating_add(1);
                    match nodes.find(hash, &child, player) {
                        Some(known) => {
                            let better = child_cost < nodes.cost[known as usize];
                            if order == Order::Optimal && better && !nodes.closed[known as usize] {
                                nodes.cost[known as usize] = child_cost;
                                nodes.parent[known as usize] = node;
                                nodes.push[known as usize] = (from as u16, direction as u8);
                                let bound = nodes.bound[known as usize];
                                let (cell, priority) = rank(child_cost, bound, &scratch.box_at);
                                open.push(cell, priority, known);
                            }
                        }
                        // The matching only for a position not seen before: most
                        // children are, and the matching is most of a child's cost.
                        None => {
                            work.copy_from(&base);
                            let bound = work.moved(board, slot, to as u16);
                            if bound != DEAD {
                                let bound = clamp(bound);
                                let new = nodes.insert(
                                    hash,
                                    box_hash,
                                    &child,
                                    player,
                                    node,
                                    (from as u16, direction as u8),
                                    child_cost,
                                    bound,
                                );
                                recent.keep(new, &boxes, slot, to as u16, &work);
                                if order != Order::Optimal && bound == 0 {
                                    outcome = Some(Outcome::Solved(path(&nodes, new)));
                                } else {
                                    let (cell, priority) = rank(child_cost, bound, &scratch.box_at);
                                    open.push(cell, priority, new);
                                }
                            }
                        }
                    }
                }
                scratch.box_at[to as usize] = 0;
                scratch.box_at[from as usize] = slot as u16 + 1;
                if outcome.is_none() {
                    let bytes = nodes.bytes() + open.bytes + recent.bytes() + fixed_bytes;
                    outcome = limits.spent(generated, bytes).map(Outcome::GaveUp);
                }
                if outcome.is_some() {
                    break 'boxes;
                }
            }
        }
        for &square in &boxes {
            scratch.box_at[square as usize] = 0;
        }
        if let Some(outcome) = outcome {
            return outcome;
        }
    }
    Outcome::NoSolution
}

/// Whether the box just pushed to `to` (`box_at` already shows the push) is frozen
/// with a box off its goal, when every box must end on one: the child is dead.
fn frozen_off_goal(
    problem: &Problem<'_>,
    board: &Board,
    box_at: &[u16],
    freeze: &mut Freeze,
    to: u32,
) -> bool {
    if !problem.strict {
        return false;
    }
    let is_box = |square: u32| box_at[square as usize] != 0;
    freeze.frozen(board, &is_box, to, true) && freeze.group.iter().any(|&s| !board.goal[s as usize])
}

/// A position's priority in the quick search's orders, lower first: the bound first,
/// then the pushes so far up to 3 (deep first among equal bounds, no further).
pub(crate) fn greedy_priority(cost: u16, bound: u16) -> usize {
    usize::from(bound) * 4 + usize::from(cost).min(3)
}

/// A bound as stored (bounds past `u16` are rare and only order the search).
pub(crate) fn clamp(bound: u32) -> u16 {
    bound.min(u32::from(u16::MAX - 1)) as u16
}

/// The pushes from the root to `node`, in order.
fn path(nodes: &Nodes, node: u32) -> Vec<(u16, u8)> {
    let mut pushes = Vec::new();
    let mut at = node;
    while nodes.parent[at as usize] != NO_NODE {
        pushes.push(nodes.push[at as usize]);
        at = nodes.parent[at as usize];
    }
    pushes.reverse();
    pushes
}
