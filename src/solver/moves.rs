//! From pushes to moves: the walks between a solution's pushes, played on a copy of
//! the player's [`World`] with [`World::step`], so that a solution handed out has been
//! checked by the game's own rules.

use std::collections::VecDeque;

use crate::games::world::{Direction, Ground, Step, World};

/// The shortest walk (no pushes) from the player's square to grid square `target`, as
/// directions; `None` when boxes or walls shut it off.
fn walk_to(world: &World, target: usize) -> Option<Vec<Direction>> {
    let level = world.level();
    let (width, height) = (level.width(), level.height());
    let start = world.player_square();
    if start == target {
        return Some(Vec::new());
    }
    let free = |index: usize| {
        level.ground(index) != Ground::Wall && !world.has_box(index / width, index % width)
    };
    let mut came: Vec<Option<Direction>> = vec![None; width * height];
    let mut queue = VecDeque::from([start]);
    let mut seen = vec![false; width * height];
    seen[start] = true;
    while let Some(index) = queue.pop_front() {
        let (row, column) = (index / width, index % width);
        for direction in Direction::ALL {
            let next = match direction {
                Direction::Left => (column > 0).then(|| index - 1),
                Direction::Up => (row > 0).then(|| index - width),
                Direction::Right => (column + 1 < width).then(|| index + 1),
                Direction::Down => (row + 1 < height).then(|| index + width),
            };
            let Some(next) = next.filter(|&next| !seen[next] && free(next)) else {
                continue;
            };
            seen[next] = true;
            came[next] = Some(direction);
            if next == target {
                let mut directions = Vec::new();
                let mut at = next;
                while let Some(direction) = came[at] {
                    directions.push(direction);
                    at = match direction {
                        Direction::Left => at + 1,
                        Direction::Up => at + width,
                        Direction::Right => at - 1,
                        Direction::Down => at - width,
                    };
                }
                directions.reverse();
                return Some(directions);
            }
            queue.push_back(next);
        }
    }
    None
}

/// Play `pushes` (grid square of the box, direction) from `world`: every step taken,
/// walks included, or `None` if one cannot be played or they do not solve the level
/// (a bug in the search).
pub(crate) fn play(world: &World, pushes: &[(usize, Direction)]) -> Option<Vec<Step>> {
    let mut world = world.clone();
    let width = world.level().width();
    let mut steps = Vec::new();
    for &(box_square, direction) in pushes {
        let (row, column) = (box_square / width, box_square % width);
        let behind = match direction {
            Direction::Left => (column + 1 < width).then(|| box_square + 1),
            Direction::Up => Some(box_square + width),
            Direction::Right => column.checked_sub(1).map(|_| box_square - 1),
            Direction::Down => row.checked_sub(1).map(|_| box_square - width),
        }
        .filter(|&behind| behind < width * world.level().height())?;
        for walk in walk_to(&world, behind)? {
            steps.push(world.step(walk).ok().filter(|step| !step.push)?);
        }
        steps.push(world.step(direction).ok().filter(|step| step.push)?);
    }
    world.is_solved().then_some(steps)
}
