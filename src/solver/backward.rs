//! The pull search: the quick search run backwards, from the boxes on their goals to
//! the position given, each step a pull.
//!
//! Levels whose boxes must be packed into a goal room or a goal corridor in one right
//! order are hard forwards (a box pushed in too early walls the others out, and the
//! bound cannot see it) and easy backwards: from the packed room the boxes come out
//! in any order that works, and the order found is the packing order. Solvers that
//! search both ways (YASS, Sokolution) solve such levels where a forward search alone
//! runs out of time. The search is the forward one's mirror: a box at `b` with the
//! player at `b + d` is pulled to `b + d`, the player stepping back to `b + 2d`; the
//! matching bound counts pulls to the start's boxes on a [`Board::reversed`]; the
//! positions are grouped by the player's regions, the groups taking turns. It starts
//! from every area the player may finish in and ends at the position given, with the
//! player anywhere in its own area.
//!
//! Every position stays in the table and only boxes on squares from which no pull
//! brings a box back to the start's squares are dropped, so running out of positions
//! proves, as forwards, that no solution exists.

use super::board::{reverse, Board, Reach, NONE};
use super::bound::{Matching, DEAD};
use super::open::Open;
use super::recent::Recent;
use super::regions::Regions;
use super::search::{clamp, greedy_priority, Limits, Order, Outcome, Problem};
use super::table::{player_mix, Nodes, NO_NODE};

/// Whether the pull search applies to `problem`: only when every box must end on a
/// goal and every goal takes a box is the solved position one set of squares.
pub(crate) fn applies(problem: &Problem<'_>) -> bool {
    let k = problem.boxes.len();
    problem.strict && k == problem.board.goals.len() && k > 0
}

/// Search `problem` backwards within `limits` (it must [`applies`]), in the quick
/// search's `order` ([`Order::Optimal`] is taken as [`Order::Greedy`]: the pull
/// search finds a solution, not the fewest pushes).
pub(crate) fn search(problem: &Problem<'_>, order: Order, limits: &Limits<'_>) -> Outcome {
    let forward = problem.board;
    let k = problem.boxes.len();
    let mut target = problem.boxes.clone();
    target.sort_unstable();
    if target.windows(2).any(|pair| pair[0] == pair[1]) {
        return Outcome::NoSolution;
    }
    let board = forward.reversed(&target);
    let Some(mut base) = Matching::new(&board, k, true) else {
        return Outcome::NoSolution;
    };
    let mut work = base.clone();
    let mut recent = Recent::new(&base, k, limits.memory);
    let squares = board.squares();
    let mut box_at = vec![0u16; squares];
    let mut reach = Reach::new(squares);
    let mut child_reach = Reach::new(squares);
    let mut queue = Vec::with_capacity(squares);
    let mut regions = Regions::new(squares);

    // The player's area in the position to reach, by its smallest square.
    for &square in &target {
        box_at[square as usize] = 1;
    }
    let wanted = reach.fill(&board, &box_at, &mut queue, problem.player);
    for &square in &target {
        box_at[square as usize] = 0;
    }

    let mut nodes = Nodes::new(k);
    let mut open = Open::default();
    let solved: Vec<u16> = forward.goals.iter().map(|&goal| goal as u16).collect();
    for &square in &solved {
        if board.dead[square as usize] {
            return Outcome::NoSolution;
        }
        box_at[square as usize] = 1;
    }
    let bound = base.solve(&board, &solved);
    if bound == DEAD {
        return Outcome::NoSolution;
    }
    let box_hash = solved
        .iter()
        .fold(0, |hash, &square| hash ^ board.box_key[square as usize]);
    // One root per area the player may finish in: each square is flooded once.
    let mut covered = vec![false; squares];
    for square in 0..squares as u32 {
        if box_at[square as usize] != 0 || covered[square as usize] {
            continue;
        }
        let least = reach.fill(&board, &box_at, &mut queue, square);
        for &reached in &queue {
            covered[reached as usize] = true;
        }
        if bound == 0 && least == wanted {
            return Outcome::Solved(Vec::new());
        }
        let root = nodes.insert(
            Nodes::hash(box_hash, player_mix(least as u16)),
            box_hash,
            &solved,
            least as u16,
            NO_NODE,
            (0, 0),
            0,
            clamp(bound),
        );
        let cell = cell(order, &mut regions, &board, &box_at);
        open.push(cell, greedy_priority(0, clamp(bound)), root);
    }
    for &square in &solved {
        box_at[square as usize] = 0;
    }

    let fixed_bytes = 2 * board.bytes() + squares * 14 + k * k * 16;
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
        nodes.closed[node as usize] = true;
        let cost = nodes.cost[node as usize];
        let kept = recent.restore(node, &board, &mut boxes, &mut base);
        if !kept {
            boxes.copy_from_slice(nodes.boxes(node));
        }
        let node_hash = nodes.box_hash(node);
        for (slot, &square) in boxes.iter().enumerate() {
            box_at[square as usize] = slot as u16 + 1;
        }
        reach.fill(&board, &box_at, &mut queue, u32::from(nodes.player(node)));
        if !kept {
            base.solve(&board, &boxes);
        }
        let mut outcome = None;
        'boxes: for slot in 0..k {
            let from = u32::from(boxes[slot]);
            for direction in 0..4 {
                // The player stands at `to` and steps back to `back`, pulling the box.
                let to = board.next[from as usize][direction];
                if to == NONE || !reach.has(to) {
                    continue;
                }
                let back = board.next[to as usize][direction];
                if back == NONE || box_at[back as usize] != 0 || board.dead[to as usize] {
                    continue;
                }
                box_at[from as usize] = 0;
                box_at[to as usize] = slot as u16 + 1;
                generated += 1;
                child.copy_from_slice(&boxes);
                child[slot] = to as u16;
                child.sort_unstable();
                let player = child_reach.fill(&board, &box_at, &mut queue, back);
                let box_hash =
                    node_hash ^ board.box_key[from as usize] ^ board.box_key[to as usize];
                let hash = Nodes::hash(box_hash, player_mix(player as u16));
                // The matching only for a position not seen before, as forwards.
                if nodes.find(hash, &child, player as u16).is_none() {
                    work.copy_from(&base);
                    let bound = work.moved(&board, slot, to as u16);
                    if bound != DEAD {
                        // Forwards, this pull is the push of the box on `to` back to
                        // `from`, the player on `back`.
                        let new = nodes.insert(
                            hash,
                            box_hash,
                            &child,
                            player as u16,
                            node,
                            (to as u16, reverse(direction) as u8),
                            cost.saturating_add(1),
                            clamp(bound),
                        );
                        recent.keep(new, &boxes, slot, to as u16, &work);
                        if bound == 0 && player == wanted {
                            outcome = Some(Outcome::Solved(pulls(&nodes, new)));
                        } else {
                            let cell = cell(order, &mut regions, &board, &box_at);
                            open.push(
                                cell,
                                greedy_priority(cost.saturating_add(1), clamp(bound)),
                                new,
                            );
                        }
                    }
                }
                box_at[to as usize] = 0;
                box_at[from as usize] = slot as u16 + 1;
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
            box_at[square as usize] = 0;
        }
        if let Some(outcome) = outcome {
            return outcome;
        }
    }
    Outcome::NoSolution
}

/// A position's cell of the open list: its number of player regions by
/// [`Order::Regions`], else one cell for all.
fn cell(order: Order, regions: &mut Regions, board: &Board, box_at: &[u16]) -> u32 {
    match order {
        Order::Regions => regions.count(board, box_at),
        Order::Optimal | Order::Greedy => 0,
    }
}

/// The pulls from a root to `node`, as the pushes they undo: the last pull is the
/// first push.
fn pulls(nodes: &Nodes, node: u32) -> Vec<(u16, u8)> {
    let mut pushes = Vec::new();
    let mut at = node;
    while nodes.parent[at as usize] != NO_NODE {
        pushes.push(nodes.push[at as usize]);
        at = nodes.parent[at as usize];
    }
    pushes
}
