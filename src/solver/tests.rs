//! The solver's tests over whole levels: solutions replayed with the game's own rules,
//! answers against a brute-force search on tiny random levels under both win rules,
//! warnings against the solver's own solutions, and every warning of random play
//! checked by a larger search.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use proptest::prelude::{
    any, prop_assert, prop_assert_eq, prop_assert_ne, proptest, ProptestConfig,
};

use super::Strategy;
use super::*;
use crate::games::world::{Cell, Level, WinRule, World};

fn budget(nodes: u64) -> Budget {
    Budget::new(nodes, 256 << 20)
}

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

/// Play a solution's steps on a fresh copy of `world`: it must end solved.
fn replays(world: &World, solution: &Solution) -> bool {
    let mut world = world.clone();
    solution
        .steps()
        .iter()
        .all(|step| world.step(step.direction) == Ok(*step))
        && world.is_solved()
        && solution.steps().iter().filter(|step| step.push).count() == solution.push_count()
}

/// The fewest pushes that solve `world` by brute force over every (player, boxes)
/// state, walks free: `None` when nothing solves it.
fn brute_force(world: &World) -> Option<usize> {
    type State = (usize, Vec<usize>);
    let state = |world: &World| -> State { (world.player_square(), world.box_squares().collect()) };
    let mut best: HashMap<State, usize> = HashMap::new();
    let mut queue: VecDeque<(World, usize)> = VecDeque::new();
    best.insert(state(world), 0);
    queue.push_back((world.clone(), 0));
    while let Some((here, pushes)) = queue.pop_front() {
        if best.get(&state(&here)).is_some_and(|&b| b < pushes) {
            continue;
        }
        if here.is_solved() {
            return Some(pushes);
        }
        for direction in Direction::ALL {
            let mut next = here.clone();
            let Ok(step) = next.step(direction) else {
                continue;
            };
            let cost = pushes + usize::from(step.push);
            let key = state(&next);
            if best.get(&key).is_none_or(|&b| cost < b) {
                best.insert(key, cost);
                if step.push {
                    queue.push_back((next, cost));
                } else {
                    queue.push_front((next, cost));
                }
            }
        }
    }
    None
}

/// A small random level from `seed`: a walled room with some inner walls, and
/// boxes, goals and the player on distinct floor squares.
fn random_level(seed: u64) -> Option<Arc<Level>> {
    let mut state = seed;
    let mut next = |below: u64| board::splitmix(&mut state) % below;
    let (width, height) = (3 + next(4) as usize, 3 + next(3) as usize);
    let rule = if next(2) == 0 {
        WinRule::EveryBox
    } else {
        WinRule::EveryGoal
    };
    let mut rows = vec![vec![Cell::Wall; width + 2]; height + 2];
    let mut floor = Vec::new();
    for (row, cells) in rows.iter_mut().enumerate().skip(1).take(height) {
        for (column, cell) in cells.iter_mut().enumerate().skip(1).take(width) {
            if next(5) != 0 {
                *cell = Cell::Floor;
                floor.push((row, column));
            }
        }
    }
    let boxes = 1 + next(3) as usize;
    let goals = match rule {
        WinRule::EveryBox => 1 + next(3) as usize,
        WinRule::EveryGoal => 1 + next(boxes as u64) as usize,
    };
    if floor.len() < 1 + boxes + goals {
        return None;
    }
    let mut take = |cell: Cell, rows: &mut Vec<Vec<Cell>>| {
        let (row, column) = floor.swap_remove(next(floor.len() as u64) as usize);
        rows[row][column] = cell;
    };
    take(Cell::Player, &mut rows);
    for _ in 0..boxes {
        take(Cell::Box, &mut rows);
    }
    for _ in 0..goals {
        take(Cell::Goal, &mut rows);
    }
    // Now and then a box starts on a goal.
    if next(4) == 0 {
        if let Some(row) = rows.iter_mut().find(|row| row.contains(&Cell::Box)) {
            if let Some(cell) = row.iter_mut().find(|cell| **cell == Cell::Box) {
                *cell = Cell::BoxOnGoal;
            }
        }
    }
    Level::from_rows(&rows, rule).ok().map(Arc::new)
}

fn microban(count: usize) -> Vec<Arc<Level>> {
    collection("microban_155.xsb", count)
}

/// The first `count` levels of a collection in `../shared/data/levels/`.
fn collection(name: &str, count: usize) -> Vec<Arc<Level>> {
    let Some(text) = crate::games::testing::shared_levels(name) else {
        return Vec::new();
    };
    crate::games::starpusher::xsb::parse_collection(&text)
        .collection
        .levels
        .into_iter()
        .take(count)
        .map(|level| level.level)
        .collect()
}

#[test]
fn microbans_first_levels_are_solved_and_no_warning_fires_along_the_solutions() {
    let levels = microban(20);
    for (number, level) in levels.iter().enumerate() {
        let analysis = Analysis::new(level);
        let world = World::new(Arc::clone(level));
        let Verdict::Solved(solution) = solve(
            &analysis,
            &world,
            Strategy::Quick,
            &budget(200_000),
            &never(),
        ) else {
            panic!("Microban {} not solved", number + 1);
        };
        assert!(replays(&world, &solution), "Microban {}", number + 1);
        let mut playing = world.clone();
        for step in solution.steps() {
            playing.step(step.direction).unwrap();
            if step.push {
                let (row, column) = playing.player();
                let pushed = match step.direction {
                    Direction::Left => (row, column - 1),
                    Direction::Right => (row, column + 1),
                    Direction::Up => (row - 1, column),
                    Direction::Down => (row + 1, column),
                };
                assert_eq!(
                    deadlock(&analysis, &playing, Some(pushed)),
                    None,
                    "Microban {}",
                    number + 1
                );
                assert_eq!(
                    corral_deadlock(&analysis, &playing, &budget(2_000), &never()),
                    None,
                    "Microban {}",
                    number + 1
                );
            }
        }
    }
}

/// Every Microban level has a solution: a quick search (PI-corral pruning on) must
/// never claim otherwise. 96 and 97 caught a wrong P condition once.
#[test]
fn the_quick_search_never_calls_a_microban_level_unsolvable() {
    for (number, level) in microban(100).iter().enumerate().skip(85) {
        let analysis = Analysis::new(level);
        let world = World::new(Arc::clone(level));
        let verdict = solve(
            &analysis,
            &world,
            Strategy::Quick,
            &budget(20_000),
            &never(),
        );
        assert_ne!(verdict, Verdict::NoSolution, "Microban {}", number + 1);
    }
}

/// Star Pusher 17 (Sasquatch I 16): eleven boxes to pack into a goal room in one
/// order. The forward search alone is lost among the wrong orders; backwards, the
/// boxes come out of the room in any order that works.
#[test]
fn the_pull_search_packs_a_goal_room_the_forward_search_cannot() {
    let Some(level) = collection("starPusherLevels.txt", 17).pop() else {
        return;
    };
    let analysis = Analysis::new(&level);
    let world = World::new(Arc::clone(&level));
    let forwards = solve_with(
        &analysis,
        &world,
        &budget(200_000),
        &never(),
        |problem, limits| search::search(problem, search::Order::Regions, limits),
    );
    assert_eq!(forwards, Verdict::GaveUp(Limit::Nodes));
    let Verdict::Solved(solution) = solve(
        &analysis,
        &world,
        Strategy::Quick,
        &budget(400_000),
        &never(),
    ) else {
        panic!("Star Pusher 17 not solved");
    };
    assert!(replays(&world, &solution));
}

#[test]
fn fewest_pushes_is_optimal_on_microban_1() {
    let Some(level) = microban(1).pop() else {
        return;
    };
    let analysis = Analysis::new(&level);
    let world = World::new(Arc::clone(&level));
    let Verdict::Solved(solution) = solve(
        &analysis,
        &world,
        Strategy::FewestPushes,
        &budget(1_000_000),
        &never(),
    ) else {
        panic!("Microban 1 not solved");
    };
    assert!(replays(&world, &solution));
    // Microban 1's best known solution has 8 pushes (and 33 moves).
    assert_eq!(solution.push_count(), 8);
}

#[test]
fn budgets_are_honoured() {
    // Microban 153: the quick search has no solution within its first 256 expansions,
    // when the stop flag is first read.
    let Some(level) = microban(155).into_iter().nth(152) else {
        return;
    };
    let analysis = Analysis::new(&level);
    let world = World::new(Arc::clone(&level));
    let verdict = solve(
        &analysis,
        &world,
        Strategy::FewestPushes,
        &budget(500),
        &never(),
    );
    assert_eq!(verdict, Verdict::GaveUp(Limit::Nodes));
    let tiny = Budget::new(u64::MAX, 64 << 10);
    let verdict = solve(&analysis, &world, Strategy::FewestPushes, &tiny, &never());
    assert_eq!(verdict, Verdict::GaveUp(Limit::Memory));
    let stopped = AtomicBool::new(true);
    let verdict = solve(
        &analysis,
        &world,
        Strategy::Quick,
        &budget(u64::MAX),
        &stopped,
    );
    assert_eq!(verdict, Verdict::GaveUp(Limit::Stopped));
    let mut past = budget(u64::MAX);
    past.deadline = Some(std::time::Instant::now());
    let verdict = solve(&analysis, &world, Strategy::FewestPushes, &past, &never());
    assert_eq!(verdict, Verdict::GaveUp(Limit::Time));
}

#[test]
fn position_key_ignores_where_the_player_stands_in_its_area() {
    let level = board::tests::level("#######\n#@   .#\n#  $  #\n#######", WinRule::EveryBox);
    let mut world = World::new(Arc::clone(&level));
    let key = position_key(&world);
    world.step(Direction::Right).unwrap();
    assert_eq!(position_key(&world), key);
    world.step(Direction::Down).unwrap();
    world.step(Direction::Right).unwrap();
    assert!(world.step(Direction::Right).unwrap().push);
    assert_ne!(position_key(&world), key);
}

#[test]
fn the_warnings_name_what_they_found() {
    let level = board::tests::level("######\n#    #\n# $ .#\n#@   #\n######", WinRule::EveryBox);
    let analysis = Analysis::new(&level);
    let mut world = World::new(Arc::clone(&level));
    assert_eq!(deadlock(&analysis, &world, None), None);
    world.step(Direction::Right).unwrap();
    assert!(world.step(Direction::Up).unwrap().push);
    // Against the top wall, which has no goal.
    assert_eq!(
        deadlock(&analysis, &world, Some((1, 2))),
        Some(Deadlock::DeadSquare {
            row: 1,
            column: 2,
            why: DeadWhy::AgainstWallWithoutGoal
        })
    );
    let corner = board::tests::level("#####\n#@ $#\n#.  #\n#####", WinRule::EveryBox);
    let world = World::new(Arc::clone(&corner));
    assert!(matches!(
        deadlock(&Analysis::new(&corner), &world, None),
        Some(Deadlock::DeadSquare {
            row: 1,
            column: 3,
            why: DeadWhy::Corner
        })
    ));
    // Under EveryGoal with a surplus box, one lost box is fine, two are not.
    let surplus = board::tests::level(
        "#######\n#$@   #\n#  $. #\n#     #\n#######",
        WinRule::EveryGoal,
    );
    let world = World::new(Arc::clone(&surplus));
    assert_eq!(deadlock(&Analysis::new(&surplus), &world, None), None);
    let surplus = board::tests::level("#######\n#$@  $#\n#   . #\n#######", WinRule::EveryGoal);
    let world = World::new(Arc::clone(&surplus));
    assert!(matches!(
        deadlock(&Analysis::new(&surplus), &world, None),
        Some(Deadlock::DeadSquare { .. })
    ));
    let frozen = board::tests::level(
        "#######\n#@    #\n#     #\n#.$$. #\n#######",
        WinRule::EveryBox,
    );
    let world = World::new(Arc::clone(&frozen));
    assert_eq!(
        deadlock(&Analysis::new(&frozen), &world, Some((3, 3))),
        Some(Deadlock::Frozen {
            boxes: vec![(3, 2), (3, 3)]
        })
    );
    // The same pair on goals is no deadlock.
    let placed = board::tests::level(
        "#######\n#@    #\n#     #\n# ** $.#\n#######",
        WinRule::EveryBox,
    );
    let world = World::new(Arc::clone(&placed));
    assert_eq!(deadlock(&Analysis::new(&placed), &world, None), None);
}

#[test]
fn corrals_are_proven_dead_on_random_levels_and_only_when_brute_force_agrees() {
    let (mut proofs, mut no_corral) = (0, 0);
    for seed in 0..1500u64 {
        let Some(level) = random_level(seed) else {
            continue;
        };
        let analysis = Analysis::new(&level);
        let mut world = World::new(Arc::clone(&level));
        let mut state = seed;
        for _ in 0..30 {
            let direction = Direction::ALL[(board::splitmix(&mut state) % 4) as usize];
            if !world.step(direction).is_ok_and(|step| step.push) {
                continue;
            }
            if deadlock(&analysis, &world, None).is_some() {
                break;
            }
            let proven = corral_deadlock(&analysis, &world, &budget(20_000), &never());
            // The cheap filter never hides a corral the search would prove dead.
            if proven.is_some() {
                assert!(has_corral(&analysis, &world), "seed {seed}");
            } else if !has_corral(&analysis, &world) {
                no_corral += 1;
            }
            if let Some(corral) = proven {
                assert_eq!(brute_force(&world), None, "seed {seed}: {corral:?}");
                proofs += 1;
                break;
            }
        }
    }
    assert!(proofs > 0, "no corral was ever proven");
    assert!(no_corral > 0, "the filter never spared a search");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// On tiny random levels of either rule the solver agrees with brute force: a
    /// solution replays, the fewest pushes are the fewest, "no solution" is true, and
    /// the bound never exceeds the answer.
    #[test]
    fn the_solver_agrees_with_brute_force(seed in any::<u64>()) {
        let Some(level) = random_level(seed) else { return Ok(()); };
        let analysis = Analysis::new(&level);
        let world = World::new(Arc::clone(&level));
        let truth = brute_force(&world);
        for strategy in [Strategy::Quick, Strategy::FewestPushes] {
            match solve(&analysis, &world, strategy, &budget(1_000_000), &never()) {
                Verdict::Solved(solution) => {
                    prop_assert!(replays(&world, &solution));
                    prop_assert!(truth.is_some());
                    if strategy == Strategy::FewestPushes {
                        prop_assert_eq!(Some(solution.push_count()), truth);
                    }
                }
                Verdict::NoSolution => prop_assert_eq!(truth, None),
                Verdict::GaveUp(limit) => prop_assert!(false, "gave up: {limit:?}"),
            }
        }
        // The pull search alone in either order, where it applies (the quick search
        // reaches it only when the forward search runs out of its share).
        for order in [search::Order::Regions, search::Order::Greedy] {
            let mut applied = false;
            let pulls = |problem: &search::Problem<'_>, limits: &search::Limits<'_>| {
                applied = backward::applies(problem);
                if applied {
                    backward::search(problem, order, limits)
                } else {
                    search::Outcome::NoSolution
                }
            };
            let backwards = solve_with(&analysis, &world, &budget(1_000_000), &never(), pulls);
            if applied {
                match backwards {
                    Verdict::Solved(solution) => {
                        prop_assert!(replays(&world, &solution));
                        prop_assert!(truth.is_some());
                    }
                    Verdict::NoSolution => prop_assert_eq!(truth, None),
                    Verdict::GaveUp(limit) => prop_assert!(false, "backwards gave up: {limit:?}"),
                }
            }
        }
        // Budgets so small that each phase of the quick search gives up at once and
        // hands the rest to the next.
        for nodes in [2, 6, 20, 60] {
            match solve(&analysis, &world, Strategy::Quick, &budget(nodes), &never()) {
                Verdict::Solved(solution) => {
                    prop_assert!(replays(&world, &solution));
                    prop_assert!(truth.is_some());
                }
                Verdict::NoSolution => prop_assert_eq!(truth, None),
                // `Stopped` without a stop flag: pushes found that did not play through.
                Verdict::GaveUp(limit) => prop_assert_ne!(limit, Limit::Stopped),
            }
        }
        if truth.is_some() {
            prop_assert_eq!(deadlock(&analysis, &world, None), None);
            prop_assert_eq!(corral_deadlock(&analysis, &world, &budget(10_000), &never()), None);
        }
    }

    /// Random play on tiny random levels and on Microban's first levels: every
    /// position a warning is given for cannot be solved (brute force on the tiny
    /// ones, a larger search on Microban's).
    #[test]
    fn every_warning_of_random_play_is_true(seed in any::<u64>(), pick in 0usize..8) {
        let mut state = seed;
        let level = if pick < 5 {
            match random_level(seed) { Some(level) => level, None => return Ok(()) }
        } else {
            match microban(6).into_iter().nth(pick) { Some(level) => level, None => return Ok(()) }
        };
        let tiny = pick < 5;
        let analysis = Analysis::new(&level);
        let mut world = World::new(Arc::clone(&level));
        for _ in 0..60 {
            let direction = Direction::ALL[(board::splitmix(&mut state) % 4) as usize];
            let Ok(step) = world.step(direction) else { continue; };
            if !step.push {
                continue;
            }
            let warned = deadlock(&analysis, &world, None)
                .or_else(|| corral_deadlock(&analysis, &world, &budget(5_000), &never()));
            if let Some(warning) = warned {
                if tiny {
                    prop_assert_eq!(brute_force(&world), None, "{:?}", warning);
                } else {
                    let verdict = solve(&analysis, &world, Strategy::Quick, &budget(300_000), &never());
                    prop_assert!(!matches!(verdict, Verdict::Solved(_)), "{:?}", warning);
                }
                break;
            }
        }
    }
}
