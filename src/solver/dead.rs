//! The cheap checks after a push, no search: boxes on dead squares, frozen groups not
//! all on goals, and boxes that cannot all reach goals (Hall's condition on the
//! box-goal pairs that pushes on an empty board allow). Each only reports what it
//! proved.
//!
//! Under `EveryBox`, or `EveryGoal` with as many boxes as goals, every box must end on
//! a goal, so one box on a dead square, or frozen off a goal, is a deadlock. Under
//! `EveryGoal` with surplus boxes, such boxes are merely lost: the position is dead
//! only when too few boxes are left to fill the goals.

use super::board::{Board, NONE};
use super::freeze::Freeze;
use super::{position, Analysis, DeadWhy, Deadlock, Position};
use crate::games::world::World;

/// Cheap checks after a push, no search; never wrong. `pushed`: the square (row,
/// column) the box was pushed to, if known (reported first when it is to blame).
pub fn deadlock(
    analysis: &Analysis,
    world: &World,
    pushed: Option<(usize, usize)>,
) -> Option<Deadlock> {
    let position = position(analysis, world)?;
    let board = position.board;
    let pushed = pushed.and_then(|(row, column)| board.square_at(row, column));
    let mut is_box = vec![false; board.squares()];
    for &square in &position.boxes {
        is_box[square as usize] = true;
    }
    // The pushed box first, then the others.
    let mut order: Vec<u32> = pushed.filter(|&s| is_box[s as usize]).into_iter().collect();
    order.extend(
        position
            .boxes
            .iter()
            .map(|&s| u32::from(s))
            .filter(|&s| Some(s) != pushed),
    );
    let mut freeze = Freeze::default();
    let box_test = |square: u32| is_box[square as usize];
    if position.strict {
        for &square in &order {
            if board.dead[square as usize] && !board.goal[square as usize] {
                let (row, column) = board.row_column(square);
                let why = why_dead(board, square);
                return Some(Deadlock::DeadSquare { row, column, why });
            }
        }
        for &square in &order {
            if freeze.frozen(board, &box_test, square, true)
                && freeze.group.iter().any(|&s| !board.goal[s as usize])
            {
                return Some(frozen(board, &freeze.group));
            }
        }
        return hall(&position, None);
    }
    // Surplus boxes: count those that can still fill a goal.
    let mut lost_dead = Vec::new();
    let mut lost_frozen = Vec::new();
    for &square in &order {
        if board.goal[square as usize] {
            continue;
        }
        if board.dead[square as usize] {
            lost_dead.push(square);
        } else if freeze.frozen(board, &box_test, square, false) {
            lost_frozen.push(square);
        }
    }
    let usable = position.boxes.len() - lost_dead.len() - lost_frozen.len();
    if usable < board.goals.len() {
        if let Some(&square) = lost_dead.first().filter(|_| lost_frozen.is_empty()) {
            let (row, column) = board.row_column(square);
            let why = why_dead(board, square);
            return Some(Deadlock::DeadSquare { row, column, why });
        }
        let mut lost = lost_dead;
        lost.extend(lost_frozen);
        return Some(frozen(board, &lost));
    }
    hall(&position, None)
}

fn frozen(board: &Board, group: &[u32]) -> Deadlock {
    let mut boxes: Vec<(usize, usize)> = group.iter().map(|&s| board.row_column(s)).collect();
    boxes.sort_unstable();
    boxes.dedup();
    Deadlock::Frozen { boxes }
}

/// Why a square is dead: a corner, a wall stretch without a goal, or otherwise.
pub(crate) fn why_dead(board: &Board, square: u32) -> DeadWhy {
    let around = board.next[square as usize];
    let wall = |direction: usize| around[direction] == NONE;
    if (wall(0) || wall(2)) && (wall(1) || wall(3)) {
        return DeadWhy::Corner;
    }
    // Along a wall on side `side`, both ways until the wall stops or a wall blocks.
    for side in 0..4 {
        if !wall(side) {
            continue;
        }
        let mut goal_or_gap = false;
        for along in [(side + 1) % 4, (side + 3) % 4] {
            let mut at = square;
            loop {
                if board.goal[at as usize] || board.next[at as usize][side] != NONE {
                    goal_or_gap = true;
                    break;
                }
                let next = board.next[at as usize][along];
                if next == NONE {
                    break;
                }
                at = next;
            }
        }
        if !goal_or_gap {
            return DeadWhy::AgainstWallWithoutGoal;
        }
    }
    DeadWhy::NoPushReachesGoal
}

/// Hall's condition: a maximum matching of boxes to goals they can reach (strict), or
/// of goals to boxes that can reach them (surplus). When it is not perfect, the
/// alternating tree from an unmatched one is the proof: `n` of them can reach fewer
/// than `n` of the other side.
fn hall(position: &Position<'_>, _unused: Option<()>) -> Option<Deadlock> {
    let board = position.board;
    let boxes = &position.boxes;
    let goals = board.goals.len();
    let reach = |b: usize, g: usize| board.distance(g, u32::from(boxes[b])) != super::board::FAR;
    // Left side: boxes (strict) or goals (surplus).
    let (left, right) = if position.strict {
        (boxes.len(), goals)
    } else {
        (goals, boxes.len())
    };
    let edge = |l: usize, r: usize| {
        if position.strict {
            reach(l, r)
        } else {
            reach(r, l)
        }
    };
    let mut owner = vec![usize::MAX; right];
    for l in 0..left {
        let mut seen = vec![false; right];
        if !augment(l, &edge, right, &mut owner, &mut seen) {
            // The alternating tree from `l`: its left nodes outnumber their
            // neighbours by one.
            let mut in_tree = vec![false; left];
            let mut seen_right = vec![false; right];
            let mut stack = vec![l];
            in_tree[l] = true;
            while let Some(at) = stack.pop() {
                for r in 0..right {
                    if edge(at, r) && !seen_right[r] {
                        seen_right[r] = true;
                        let next = owner[r];
                        if next != usize::MAX && !in_tree[next] {
                            in_tree[next] = true;
                            stack.push(next);
                        }
                    }
                }
            }
            let many = in_tree.iter().filter(|&&t| t).count();
            let few = seen_right.iter().filter(|&&s| s).count();
            return Some(if position.strict {
                Deadlock::ClosedArea {
                    boxes: many,
                    goals: few,
                }
            } else {
                Deadlock::GoalsOutOfReach {
                    goals: many,
                    boxes: few,
                }
            });
        }
    }
    None
}

/// Kuhn's augmenting path from left node `l`.
fn augment(
    l: usize,
    edge: &dyn Fn(usize, usize) -> bool,
    right: usize,
    owner: &mut [usize],
    seen: &mut [bool],
) -> bool {
    for r in 0..right {
        if edge(l, r) && !seen[r] {
            seen[r] = true;
            if owner[r] == usize::MAX || augment(owner[r], edge, right, owner, seen) {
                owner[r] = l;
                return true;
            }
        }
    }
    false
}
