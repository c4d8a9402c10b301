//! Measures the built-in 2048 agents on arcade's own seeded games (issue 34).
//!
//! Each seed is a real game made as the lobby makes `play 2048 seed=N`
//! (`twenty48::from_args(["seed=N"])`: 4x4, ChaCha8 seeded with N) and played through
//! the game's own keys (`w`, `a`, `s`, `d` given to `Game::handle`), until no move is
//! left. Winning at 2048 only prints `You win!`: the game goes on, so the 4096 and
//! 8192 rates come from the same games. Only the agent's choice is timed.
//!
//! ```text
//! cargo run --release --example agent_2048 -- --seeds 1-100 [--depth D (4) | --adaptive MAX]
//!     [--agent expectimax|random] [--threads N] [--per-seed]
//! ```

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arcade::agents::random::Random;
use arcade::agents::twenty48::search::NODE_BUDGET;
use arcade::agents::twenty48::{Choice, Depth, Expectimax};
use arcade::games::twenty48::{self, board::Direction};
use arcade::games::{Game, Memory};

/// Which agent plays.
#[derive(Clone, Copy)]
enum Agent {
    Expectimax(Depth),
    Random,
}

/// What the command line asks for.
struct Options {
    first: u64,
    last: u64,
    agent: Agent,
    threads: usize,
    per_seed: bool,
    /// Nodes a move may visit.
    budget: u64,
}

/// One seed's game.
struct Played {
    seed: u64,
    score: u128,
    largest: u128,
    moves: u64,
    /// The time of each choice.
    times: Vec<Duration>,
    /// The most nodes one choice visited.
    max_nodes: u64,
    /// Choices whose deepest search was abandoned at the budget.
    cut_short: u64,
}

fn usage() -> String {
    String::from(
        "usage: agent_2048 --seeds A-B [--depth D | --adaptive MAX] \
         [--agent expectimax|random] [--budget NODES] [--threads N] [--per-seed]",
    )
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        first: 1,
        last: 100,
        agent: Agent::Expectimax(Depth::Fixed(4)),
        threads: 1,
        per_seed: false,
        budget: NODE_BUDGET,
    };
    let mut random = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let mut value = || words.next().ok_or_else(|| format!("{word} needs a value"));
        match word.as_str() {
            "--seeds" => {
                let range = value()?;
                let (a, b) = range.split_once('-').unwrap_or((range, range));
                options.first = a.parse().map_err(|_| format!("bad seed {a}"))?;
                options.last = b.parse().map_err(|_| format!("bad seed {b}"))?;
            }
            "--depth" => {
                let depth = value()?.parse().map_err(|_| "bad depth".to_string())?;
                options.agent = Agent::Expectimax(Depth::Fixed(depth));
            }
            "--adaptive" => {
                let max = value()?.parse().map_err(|_| "bad depth".to_string())?;
                options.agent = Agent::Expectimax(Depth::Adaptive { max });
            }
            "--agent" => match value()?.as_str() {
                "expectimax" => random = false,
                "random" => random = true,
                other => return Err(format!("unknown agent {other}")),
            },
            "--threads" => {
                options.threads = value()?.parse().map_err(|_| "bad threads".to_string())?;
            }
            "--per-seed" => options.per_seed = true,
            "--budget" => {
                options.budget = value()?.parse().map_err(|_| "bad budget".to_string())?;
            }
            other => return Err(format!("unknown argument {other}\n{}", usage())),
        }
    }
    if random {
        options.agent = Agent::Random;
    }
    if options.first > options.last || options.threads == 0 {
        return Err(usage());
    }
    Ok(options)
}

fn key(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "w",
        Direction::Left => "a",
        Direction::Down => "s",
        Direction::Right => "d",
    }
}

/// Play seed `seed` to the end.
fn play(seed: u64, agent: Agent, budget: u64) -> Result<Played, String> {
    let argument = format!("seed={seed}");
    let mut game = twenty48::from_args(&[argument.as_str()]).map_err(|e| e.to_string())?;
    let mut memory = Memory::default();
    let _ = game.start(&mut memory);
    let mut expectimax = match agent {
        Agent::Expectimax(depth) => Some(Expectimax::with_depth(depth).with_budget(budget)),
        Agent::Random => None,
    };
    let mut random = Random::new(seed);
    let mut times = Vec::new();
    let (mut max_nodes, mut cut_short) = (0, 0);
    loop {
        let started = Instant::now();
        let choice = match expectimax.as_mut() {
            Some(agent) => agent.choose(game.board()),
            None => random.twenty48(game.board()),
        };
        times.push(started.elapsed());
        if let Some(Choice::Searched { counts, .. }) = expectimax.as_ref().map(Expectimax::last) {
            max_nodes = max_nodes.max(counts.nodes);
            cut_short += u64::from(counts.cut_short);
        }
        let Some(direction) = choice else {
            break;
        };
        let before = *game.board();
        let _ = game.handle(key(direction), &mut memory);
        if *game.board() == before {
            return Err(format!("seed {seed}: {direction:?} had no effect"));
        }
    }
    // The last choice found no move: not a move, not timed.
    times.pop();
    Ok(Played {
        seed,
        score: game.score(),
        largest: game.board().max_tile().map_or(0, |tile| tile.value()),
        moves: game.step(),
        times,
        max_nodes,
        cut_short,
    })
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let next = AtomicU64::new(options.first);
    let results = Mutex::new(Vec::new());
    let failed = Mutex::new(None);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.threads {
            scope.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed > options.last {
                    break;
                }
                match play(seed, options.agent, options.budget) {
                    Ok(played) => {
                        if options.per_seed {
                            println!(
                                "seed {:>5}  tile {:>6}  score {:>7}  moves {:>6}",
                                played.seed, played.largest, played.score, played.moves
                            );
                        }
                        if let Ok(mut results) = results.lock() {
                            results.push(played);
                        }
                    }
                    Err(message) => {
                        if let Ok(mut failed) = failed.lock() {
                            *failed = Some(message);
                        }
                        break;
                    }
                }
            });
        }
    });
    if let Some(message) = failed.into_inner().ok().flatten() {
        eprintln!("{message}");
        return ExitCode::FAILURE;
    }
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|played| played.seed);
    report(&options, &results, started.elapsed());
    ExitCode::SUCCESS
}

fn report(options: &Options, results: &[Played], wall: Duration) {
    let games = results.len();
    if games == 0 {
        println!("no games");
        return;
    }
    let agent = match options.agent {
        Agent::Expectimax(Depth::Fixed(depth)) => format!("expectimax, depth {depth}"),
        Agent::Expectimax(Depth::Adaptive { max }) => {
            format!("expectimax, adaptive depth up to {max}")
        }
        Agent::Random => String::from("random"),
    };
    let share = |tile: u128| {
        let count = results.iter().filter(|p| p.largest >= tile).count();
        format!(
            "{count}/{games} ({:.0}%)",
            100.0 * count as f64 / games as f64
        )
    };
    let mean_score = results.iter().map(|p| p.score as f64).sum::<f64>() / games as f64;
    let mut times: Vec<Duration> = results.iter().flat_map(|p| p.times.clone()).collect();
    times.sort();
    let moves = times.len();
    let total: Duration = times.iter().sum();
    let p = |q: f64| times[((moves as f64 * q) as usize).min(moves.saturating_sub(1))];
    let mut scores: Vec<u128> = results.iter().map(|p| p.score).collect();
    scores.sort();
    println!(
        "2048 {agent}; seeds {}-{} ({games} games), {} thread(s)",
        options.first, options.last, options.threads
    );
    println!("| measure | value |");
    println!("|---|---|");
    for tile in [1024u128, 2048, 4096, 8192, 16384] {
        println!("| reached {tile} | {} |", share(tile));
    }
    println!("| mean score | {mean_score:.0} |");
    println!("| median score | {} |", scores[games / 2]);
    println!(
        "| moves (mean a game) | {moves} ({:.0}) |",
        moves as f64 / games as f64
    );
    if moves > 0 {
        println!(
            "| ms a move: mean / p50 / p99 / max | {:.2} / {:.2} / {:.2} / {:.2} |",
            ms(total) / moves as f64,
            ms(p(0.5)),
            ms(p(0.99)),
            ms(times[moves - 1])
        );
    }
    if matches!(options.agent, Agent::Expectimax(_)) {
        let max_nodes = results.iter().map(|p| p.max_nodes).max().unwrap_or(0);
        let cut: u64 = results.iter().map(|p| p.cut_short).sum();
        println!("| node budget a move | {} |", options.budget);
        println!("| most nodes in one move | {max_nodes} |");
        println!(
            "| moves cut short by the budget | {cut} ({:.3}%) |",
            100.0 * cut as f64 / moves.max(1) as f64
        );
    }
    println!("| wall time | {:.0} s |", wall.as_secs_f64());
}
