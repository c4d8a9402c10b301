//! Corral deadlocks, proven by a small search.
//!
//! A corral is an area the player cannot enter, fenced by boxes. Take away every box
//! but the fence's: any solution of the whole position, with the pushes of the boxes
//! taken away left out, still solves what remains (taking boxes away only frees
//! squares), provided every box must end on a goal. So when a search proves the
//! fence's boxes alone cannot all reach goals, the position is dead. Under `EveryGoal`
//! with surplus boxes taking boxes away makes it harder, so nothing is claimed there.

use std::sync::atomic::AtomicBool;

use super::board::NONE;
use super::search::{self, Limits, Order, Outcome, Problem};
use super::{position, Analysis, Budget, Deadlock, Position};
use crate::games::world::World;

/// Whether `world` has a corral that [`corral_deadlock`] could prove dead: a flood
/// fill, no search, so that the search is asked for only when there is something to
/// prove (after most pushes there is not).
pub fn has_corral(analysis: &Analysis, world: &World) -> bool {
    position(analysis, world).is_some_and(|position| !fences(&position).is_empty())
}

/// The corral check within `budget` (a search): `Some` only when proven.
pub fn corral_deadlock(
    analysis: &Analysis,
    world: &World,
    budget: &Budget,
    stop: &AtomicBool,
) -> Option<Deadlock> {
    let position = position(analysis, world)?;
    let limits = Limits {
        nodes: budget.nodes,
        deadline: budget.deadline,
        memory: budget.memory,
        stop,
    };
    for fence in fences(&position) {
        let problem = Problem {
            board: position.board,
            boxes: fence.clone(),
            player: position.player,
            strict: true,
        };
        match search::search(&problem, Order::Greedy, &limits) {
            Outcome::NoSolution => {
                let mut boxes: Vec<(usize, usize)> =
                    fence.iter().map(|&b| position.at(b)).collect();
                boxes.sort_unstable();
                return Some(Deadlock::Corral { boxes });
            }
            Outcome::GaveUp(search::Stop::Nodes) | Outcome::Solved(_) => {}
            Outcome::GaveUp(_) => return None,
        }
    }
    None
}

/// The fences of the corrals worth a search, each the boxes around one corral: none
/// unless every box must end on a goal (see the top of this file); a corral whose
/// fence is all on goals with no goal inside is already fine.
fn fences(position: &Position<'_>) -> Vec<Vec<u16>> {
    if !position.strict || position.outside_broken {
        return Vec::new();
    }
    let board = position.board;
    let squares = board.squares();
    let mut is_box = vec![false; squares];
    for &square in &position.boxes {
        is_box[square as usize] = true;
    }
    // 0: not yet seen; 1: the player's area; 2 + n: corral n.
    let mut area = vec![0u32; squares];
    let fill = |from: u32, mark: u32, area: &mut Vec<u32>| {
        let mut stack = vec![from];
        area[from as usize] = mark;
        while let Some(at) = stack.pop() {
            for &next in &board.next[at as usize] {
                if next != NONE && area[next as usize] == 0 && !is_box[next as usize] {
                    area[next as usize] = mark;
                    stack.push(next);
                }
            }
        }
    };
    fill(position.player, 1, &mut area);
    let mut corrals = 0u32;
    for square in 0..squares as u32 {
        if area[square as usize] == 0 && !is_box[square as usize] {
            fill(square, 2 + corrals, &mut area);
            corrals += 1;
        }
    }
    (0..corrals)
        .map(|corral| 2 + corral)
        .filter_map(|mark| {
            let fence: Vec<u16> = position
                .boxes
                .iter()
                .copied()
                .filter(|&b| {
                    board.next[b as usize]
                        .iter()
                        .any(|&n| n != NONE && area[n as usize] == mark)
                })
                .collect();
            let settled = fence.iter().all(|&b| board.goal[b as usize])
                && !corral_has_goal(&area, board, mark);
            (!fence.is_empty() && !settled).then_some(fence)
        })
        .collect()
}

/// Whether corral `mark` holds an empty goal.
fn corral_has_goal(area: &[u32], board: &super::board::Board, mark: u32) -> bool {
    area.iter()
        .enumerate()
        .any(|(square, &a)| a == mark && board.goal[square])
}
