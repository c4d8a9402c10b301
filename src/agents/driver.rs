//! Built-in agents as bots: each one plays any game it knows from what a bot is told
//! (the observation and the legal actions of [`crate::games::bot`]) and answers with an
//! action word, played as the line it stands for. The same game, the same
//! observations and the same actions as a student's bot over TCP, so a built-in agent
//! is a baseline a ladder can put beside the students' on equal terms.
//!
//! `arcade bots run` plays them offline over a range of seeds.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::games::bot::{self, Observation};
use crate::games::twenty48::board::{Board, Direction};
use crate::games::world::{Cell, Level, WinRule, World};
use crate::games::wumpus::bot::{heading_named, percept_named};
use crate::games::wumpus::cave::{Action, Dim, Percept, Pos};
use crate::games::{Game, Memory, Outcome, Status};
use crate::solver::{self, Analysis, Budget, Strategy, Verdict};

use super::random::Random;
use super::twenty48::{Depth, Expectimax};
use super::wumpus;

/// An agent that chooses a bot's next action.
pub trait Policy {
    /// One of `observed.legal`, or `None` to stop (nothing sensible is left).
    fn choose(&mut self, observed: &Observation) -> Option<&'static str>;
}

/// The built-in agents by name, and the games each plays.
pub const AGENTS: &[(&str, &str)] = &[
    ("random", "every game: a legal action drawn at random"),
    ("expectimax", "2048: expectimax over a bitboard"),
    (
        "kb",
        "wumpus: the textbook's knowledge-based agent, which takes no risks",
    ),
    (
        "solver",
        "sokoban, starpusher: the Sokoban solver's moves, one at a time",
    ),
];

/// The agent `name` for `game`, seeded with `seed` where it draws at random; `None`
/// when it does not play that game.
pub fn agent(name: &str, game: &str, seed: u64) -> Option<Box<dyn Policy + Send>> {
    match (name, game) {
        ("random", _) => Some(Box::new(RandomPolicy(Random::new(seed)))),
        ("expectimax", "2048") => Some(Box::new(ExpectimaxPolicy(Expectimax::with_depth(
            Depth::Adaptive { max: 4 },
        )))),
        ("kb", "wumpus") => Some(Box::new(KbPolicy(None))),
        ("solver", "sokoban") => Some(Box::new(SolverPolicy::new(WinRule::EveryBox))),
        ("solver", "starpusher") => Some(Box::new(SolverPolicy::new(WinRule::EveryGoal))),
        _ => None,
    }
}

/// A legal action drawn at random.
struct RandomPolicy(Random);

impl Policy for RandomPolicy {
    fn choose(&mut self, observed: &Observation) -> Option<&'static str> {
        self.0.pick(&observed.legal)
    }
}

/// 2048's expectimax agent, on the grid the observation gives.
struct ExpectimaxPolicy(Expectimax);

impl Policy for ExpectimaxPolicy {
    fn choose(&mut self, observed: &Observation) -> Option<&'static str> {
        let rows: Vec<Vec<u128>> = observed.observation["grid"]
            .as_array()?
            .iter()
            .map(|row| {
                row.as_array()
                    .map(|cells| {
                        cells
                            .iter()
                            .map(|v| u128::from(v.as_u64().unwrap_or(0)))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        let rows: Vec<&[u128]> = rows.iter().map(Vec::as_slice).collect();
        let board = Board::from_values(&rows)?;
        let name = match self.0.choose(&board)? {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        };
        observed.legal.contains(&name).then_some(name)
    }
}

/// The wumpus knowledge-based agent, made at the first observation (it is told the
/// cave's size, as the player who typed `size=` knows it).
struct KbPolicy(Option<wumpus::Agent>);

impl Policy for KbPolicy {
    fn choose(&mut self, observed: &Observation) -> Option<&'static str> {
        let seen = &observed.observation;
        let room = |value: &serde_json::Value| -> Option<(usize, usize)> {
            let x = usize::try_from(value.get(0)?.as_u64()?).ok()?;
            let y = usize::try_from(value.get(1)?.as_u64()?).ok()?;
            Some((x, y))
        };
        let (width, height) = room(&seen["size"])?;
        let (x, y) = room(&seen["position"])?;
        let facing = heading_named(seen["heading"].as_str()?)?;
        let percepts: Vec<Percept> = seen["percepts"]
            .as_array()?
            .iter()
            .filter_map(|name| percept_named(name.as_str()?))
            .collect();
        let agent = self
            .0
            .get_or_insert_with(|| wumpus::Agent::new(Some(Dim { width, height })));
        let action = agent.act(&wumpus::Observation {
            pos: Pos::new(x, y),
            facing,
            percepts: &percepts,
        })?;
        let name = match action {
            Action::MoveForward => "forward",
            Action::TurnLeft => "left",
            Action::TurnRight => "right",
            Action::Shoot => "shoot",
            Action::Grab => "grab",
            Action::Climb => "climb",
        };
        observed.legal.contains(&name).then_some(name)
    }
}

/// The Sokoban solver (`crate::solver`), played move by move: it solves the board it
/// is shown, then plays the solution's steps; shown a board its plan did not expect (a
/// new level), it solves again. Gives up (leaves) when the search does.
struct SolverPolicy {
    rule: WinRule,
    /// The steps left, each with a hash of the board it is played on: 8 bytes a step
    /// where the board itself is a few hundred (a plan is a level's whole solution).
    plan: VecDeque<(Direction, u64)>,
}

/// A board's rows, hashed. Two boards that collide would only make the agent play a
/// planned step on the wrong board: a wasted move, never a wrong rule.
fn board_hash<S: AsRef<str>>(rows: &[S]) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for row in rows {
        row.as_ref().hash(&mut hasher);
    }
    hasher.finish()
}

/// What one of the solver agent's searches may spend: of the order of a player's
/// `/solve`.
const SOLVER_NODES: u64 = 2_000_000;
const SOLVER_MEMORY: usize = 64 << 20;

impl SolverPolicy {
    fn new(rule: WinRule) -> SolverPolicy {
        SolverPolicy {
            rule,
            plan: VecDeque::new(),
        }
    }

    /// The board of an observation as the solver's world.
    fn world(&self, rows: &[String]) -> Option<World> {
        let cells: Vec<Vec<Cell>> = rows
            .iter()
            .map(|row| {
                row.chars()
                    .map(|glyph| match glyph {
                        '#' => Some(Cell::Wall),
                        ' ' => Some(Cell::Floor),
                        '.' => Some(Cell::Goal),
                        '$' => Some(Cell::Box),
                        '*' => Some(Cell::BoxOnGoal),
                        '@' => Some(Cell::Player),
                        '+' => Some(Cell::PlayerOnGoal),
                        _ => None,
                    })
                    .collect()
            })
            .collect::<Option<_>>()?;
        let level = Level::from_rows(&cells, self.rule).ok()?;
        Some(World::new(Arc::new(level)))
    }

    /// Solve `rows` and plan the steps; false when the search found none.
    fn plan(&mut self, rows: &[String]) -> bool {
        self.plan.clear();
        let Some(mut world) = self.world(rows) else {
            return false;
        };
        let analysis = Analysis::new(world.level());
        let budget = Budget::new(SOLVER_NODES, SOLVER_MEMORY);
        let stop = AtomicBool::new(false);
        let Verdict::Solved(solution) =
            solver::solve(&analysis, &world, Strategy::Quick, &budget, &stop)
        else {
            return false;
        };
        // Each step with the board it is played on, drawn as observations draw it.
        for step in solution.steps() {
            self.plan
                .push_back((step.direction, board_hash(&bot::board_rows(&world))));
            if world.step(step.direction).is_err() {
                self.plan.clear();
                return false;
            }
        }
        true
    }
}

impl Policy for SolverPolicy {
    fn choose(&mut self, observed: &Observation) -> Option<&'static str> {
        let rows: Vec<String> = observed.observation["rows"]
            .as_array()?
            .iter()
            .filter_map(|row| row.as_str().map(String::from))
            .collect();
        let on_plan = self
            .plan
            .front()
            .is_some_and(|(_, board)| *board == board_hash(&rows));
        if !on_plan && !self.plan(&rows) {
            return None;
        }
        let (direction, _) = self.plan.pop_front()?;
        let name = match direction {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        };
        observed.legal.contains(&name).then_some(name)
    }
}

/// How a game played by an agent went.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    /// The score of the last observation.
    pub score: i64,
    /// Actions played.
    pub moves: u64,
    /// How the game came to its end by its rules, if it did.
    pub outcome: Option<Outcome>,
}

/// Play `game` with `policy` until the game ends, the agent stops, or `max_moves`
/// actions were played.
pub fn play(game: &mut dyn Game, policy: &mut dyn Policy, max_moves: u64) -> Played {
    let mut memory = Memory::default();
    let mut ended = game.start(&mut memory).status == Status::Ended;
    let mut moves = 0;
    while !ended && moves < max_moves {
        let observed = game.observe(&memory);
        let Some(line) = policy
            .choose(&observed)
            .and_then(|action| game.action_line(action))
        else {
            break;
        };
        ended = game.handle(line, &mut memory).status == Status::Ended;
        moves += 1;
    }
    Played {
        score: game.observe(&memory).score,
        moves,
        outcome: game.progress().ended,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::games::twenty48::{Settings, Twenty48};
    use crate::games::wumpus::random::{self, Shape};
    use crate::games::wumpus::Wumpus;

    fn wumpus_world(seed: u64) -> Wumpus {
        let (shape, _): (Shape, _) = random::parse_args(&[]).unwrap();
        Wumpus::new(random::generate(seed, shape))
    }

    #[test]
    fn the_kb_agent_as_a_bot_scores_as_it_does_on_the_game_itself() {
        // Over the same worlds, the agent driven through observations and action
        // words plays exactly as when it drives the game by its lines.
        for seed in 1..=60 {
            let mut game = wumpus_world(seed);
            let mut policy = agent("kb", "wumpus", seed).unwrap();
            let played = play(&mut game, policy.as_mut(), 1000);

            let mut direct = wumpus_world(seed);
            let mut kb = wumpus::Agent::new(Some(direct.cave().dim()));
            let episode = wumpus::play(&mut direct, &mut kb, 1000);
            assert_eq!(played.score, episode.score(), "seed {seed}");
            assert_ne!(played.outcome, Some(Outcome::Died), "seed {seed}");
        }
    }

    #[test]
    fn random_agents_play_legal_actions_to_the_end_and_replay_by_seed() {
        let settings = Settings::default();
        let game = |seed| Twenty48::new(settings, ChaCha8Rng::seed_from_u64(seed)).unwrap();
        let mut first = game(3);
        let played = play(
            &mut first,
            agent("random", "2048", 9).unwrap().as_mut(),
            100_000,
        );
        assert!(played.moves > 10);
        assert_eq!(played.outcome, Some(Outcome::Stopped), "{played:?}");
        let mut again = game(3);
        let replayed = play(
            &mut again,
            agent("random", "2048", 9).unwrap().as_mut(),
            100_000,
        );
        assert_eq!(replayed, played);

        let level = crate::games::sokoban::parse_level("#####\n#P+-#\n#####\n").unwrap();
        let mut sokoban = crate::games::sokoban::Sokoban::new(Arc::new(level));
        let played = play(
            &mut sokoban,
            agent("random", "sokoban", 1).unwrap().as_mut(),
            10,
        );
        assert_eq!(played.outcome, Some(Outcome::Solved));
        assert_eq!((played.moves, played.score), (1, 1));
    }

    #[test]
    fn the_solver_agent_solves_a_level_move_by_move() {
        // Two boxes, each pushed around a corner of its own (sokoban's glyphs: P the
        // player, + a box, - a goal).
        let level = crate::games::sokoban::parse_level(
            "#######\n#.....#\n#.+#+.#\n#.-#-.#\n#..P..#\n#######\n",
        )
        .unwrap();
        let mut game = crate::games::sokoban::Sokoban::new(Arc::new(level));
        let mut policy = agent("solver", "sokoban", 1).unwrap();
        let played = play(&mut game, policy.as_mut(), 1_000);
        assert_eq!(played.outcome, Some(Outcome::Solved), "{played:?}");
        assert_eq!(played.score, 2);
        assert!(agent("solver", "2048", 1).is_none());
    }

    #[test]
    fn expectimax_plays_legal_slides_as_a_bot() {
        // Its strength is measured in release builds (docs/BENCHMARKS.md); here, that
        // it reads the grid and answers with legal actions.
        let mut game = Twenty48::new(Settings::default(), ChaCha8Rng::seed_from_u64(1)).unwrap();
        let mut policy = agent("expectimax", "2048", 1).unwrap();
        let played = play(&mut game, policy.as_mut(), 12);
        assert_eq!((played.moves, played.outcome), (12, None), "{played:?}");
        assert!(played.score > 0);
        assert!(agent("expectimax", "wumpus", 1).is_none());
        assert!(agent("kb", "2048", 1).is_none());
    }
}
