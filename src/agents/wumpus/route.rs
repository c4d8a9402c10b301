//! Routes for the wumpus agent: the fewest actions (steps and quarter turns, each one
//! action) from where the agent stands and faces to a goal, through rooms it may
//! enter, found by breadth-first search over (room, facing).

use crate::games::wumpus::cave::{Action, Dim, Orientation, Pos};

/// The first action of a shortest route from `from` facing `facing` to a state that
/// satisfies `goal`, entering only rooms for which `enter` holds: `Some(None)` when
/// the agent already is in such a state, `None` when no route exists.
pub fn first_action(
    dim: Dim,
    from: Pos,
    facing: Orientation,
    enter: impl Fn(Pos) -> bool,
    goal: impl Fn(Pos, Orientation) -> bool,
) -> Option<Option<Action>> {
    if !dim.contains(from) {
        return None;
    }
    if goal(from, facing) {
        return Some(None);
    }
    let state = |pos: Pos, facing: Orientation| (pos.y * dim.width + pos.x) * 4 + facing as usize;
    let mut seen = vec![false; dim.width * dim.height * 4];
    seen[state(from, facing)] = true;
    let mut queue = std::collections::VecDeque::new();
    // Each state carries the first action of the route that reached it.
    queue.push_back((from, facing, None::<Action>));
    while let Some((pos, facing, started)) = queue.pop_front() {
        let moves = [
            (
                Action::MoveForward,
                dim.neighbour(pos, facing).filter(|&next| enter(next)),
                facing,
            ),
            (Action::TurnLeft, Some(pos), facing.left()),
            (Action::TurnRight, Some(pos), facing.right()),
        ];
        for (action, next, next_facing) in moves {
            let Some(next) = next else { continue };
            let at = state(next, next_facing);
            if seen[at] {
                continue;
            }
            seen[at] = true;
            let started = started.or(Some(action));
            if goal(next, next_facing) {
                return Some(started);
            }
            queue.push_back((next, next_facing, started));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIM: Dim = Dim {
        width: 3,
        height: 3,
    };

    #[test]
    fn straight_ahead_turns_and_walls() {
        let open = |_: Pos| true;
        let at = |target: Pos| move |pos: Pos, _: Orientation| pos == target;
        let start = Pos::new(0, 0);
        assert_eq!(
            first_action(DIM, start, Orientation::South, open, at(Pos::new(0, 2))),
            Some(Some(Action::MoveForward))
        );
        assert_eq!(
            first_action(DIM, start, Orientation::South, open, at(Pos::new(2, 0))),
            Some(Some(Action::TurnLeft))
        );
        assert_eq!(
            first_action(DIM, start, Orientation::North, open, at(Pos::new(2, 0))),
            Some(Some(Action::TurnRight))
        );
        assert_eq!(
            first_action(DIM, start, Orientation::West, open, at(start)),
            Some(None)
        );
        // (1,0) and (0,1) closed: nowhere to go.
        let closed = |pos: Pos| pos != Pos::new(1, 0) && pos != Pos::new(0, 1);
        assert_eq!(
            first_action(DIM, start, Orientation::South, closed, at(Pos::new(2, 2))),
            None
        );
        // A goal on facing: turn to face east.
        let facing_east = |_: Pos, facing: Orientation| facing == Orientation::East;
        assert_eq!(
            first_action(DIM, start, Orientation::South, open, facing_east),
            Some(Some(Action::TurnLeft))
        );
    }
}
