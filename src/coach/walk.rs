//! The moves that make a list of pushes from where the player stands: a walk to the
//! square behind each box (a breadth-first search around the boxes), then the push.
//!
//! Cached answers keep pushes only (they hold wherever the player stands in the same
//! area, so one search serves every position that differs by a walk); playing one out
//! needs the walks, made here. A push that cannot be made means the cache was wrong
//! about this position: `None`, and the caller searches again.

use std::collections::VecDeque;

use crate::games::world::{Direction, Ground, Step, World};
use crate::solver::Push;

/// Every move of `pushes` from `world` (which is left unchanged), or `None` when one
/// of them cannot be made.
pub fn steps_for(world: &World, pushes: &[Push]) -> Option<Vec<Step>> {
    let mut world = world.clone();
    let mut steps = Vec::new();
    for push in pushes {
        let behind = behind(push)?;
        for direction in path(&world, behind)? {
            steps.push(world.step(direction).ok()?);
        }
        let step = world.step(push.direction).ok()?;
        if !step.push {
            return None;
        }
        steps.push(step);
    }
    Some(steps)
}

/// The square the player pushes `push` from.
fn behind(push: &Push) -> Option<(usize, usize)> {
    let (row, column) = (push.row, push.column);
    match push.direction {
        Direction::Up => Some((row + 1, column)),
        Direction::Down => Some((row.checked_sub(1)?, column)),
        Direction::Left => Some((row, column + 1)),
        Direction::Right => Some((row, column.checked_sub(1)?)),
    }
}

/// The shortest walk (no push) from the player to `to`, or `None` if boxes and walls
/// are in the way.
fn path(world: &World, to: (usize, usize)) -> Option<Vec<Direction>> {
    let level = world.level();
    let (width, height) = (level.width(), level.height());
    let free = |(row, column): (usize, usize)| {
        row < height
            && column < width
            && level.ground(row * width + column) != Ground::Wall
            && !world.has_box(row, column)
    };
    if !free(to) {
        return None;
    }
    let start = world.player();
    let mut came: Vec<Option<Direction>> = vec![None; width * height];
    let mut seen = vec![false; width * height];
    seen[start.0 * width + start.1] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut walk = Vec::new();
            let mut here = at;
            while here != start {
                let direction = came[here.0 * width + here.1]?;
                walk.push(direction);
                here = next(here, direction.reverse())?;
            }
            walk.reverse();
            return Some(walk);
        }
        for direction in Direction::ALL {
            let Some(square) = next(at, direction) else {
                continue;
            };
            if free(square) && !seen[square.0 * width + square.1] {
                seen[square.0 * width + square.1] = true;
                came[square.0 * width + square.1] = Some(direction);
                queue.push_back(square);
            }
        }
    }
    None
}

fn next((row, column): (usize, usize), direction: Direction) -> Option<(usize, usize)> {
    match direction {
        Direction::Up => Some((row.checked_sub(1)?, column)),
        Direction::Down => Some((row + 1, column)),
        Direction::Left => Some((row, column.checked_sub(1)?)),
        Direction::Right => Some((row, column + 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::starpusher::xsb;
    use std::sync::Arc;

    fn world(rows: &str) -> World {
        let reading = xsb::parse_collection(rows);
        World::new(Arc::clone(&reading.collection.levels[0].level))
    }

    #[test]
    fn walks_round_to_push_and_refuses_the_impossible() {
        // The player walks down and round to push the box up onto the goal.
        let start = world("#####\n#.  #\n#$  #\n#  @#\n#####\n");
        let push = Push {
            row: 2,
            column: 1,
            direction: Direction::Up,
        };
        let steps = steps_for(&start, &[push]).unwrap();
        let lurd: String = steps.iter().map(ToString::to_string).collect();
        assert_eq!(lurd, "llU");
        let mut played = start.clone();
        for step in &steps {
            played.step(step.direction).unwrap();
        }
        assert!(played.is_solved());
        // No box there: refused.
        let wrong = Push {
            row: 1,
            column: 2,
            direction: Direction::Up,
        };
        assert_eq!(steps_for(&start, &[wrong]), None);
    }
}
