//! The wumpus agent over seeded random worlds, with the oracle's upper bound beside it
//! (docs/BENCHMARKS.md, "Built-in agents"):
//!
//! ```text
//! cargo run --release --example agent_wumpus -- --seeds 1-10000 [--size 4] [--pits 0.2]
//! ```
//!
//! Each seed's world is `play wumpus random seed=N size=S pits=P`; the agent plays the
//! real game by its command lines and is told the cave's size, as the player who typed
//! `size=` knows it. The score is the textbook's performance measure (+1000 out with
//! the gold, -1000 dead, -1 an action, -10 the arrow): arcade's wumpus keeps none.

use std::process::ExitCode;
use std::time::Instant;

use arcade::agents::wumpus::{play, Agent};
use arcade::games::twenty48::board::below;
use arcade::games::wumpus::random::{self, Shape};
use arcade::games::wumpus::Wumpus;
use arcade::games::Outcome;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

struct Options {
    first: u64,
    last: u64,
    shape: Shape,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut seeds = String::from("1-1000");
    let mut size = String::from("4");
    let mut pits = String::from("0.2");
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--seeds" => seeds = value,
            "--size" => size = value,
            "--pits" => pits = value,
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    let (first, last) = seeds
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .filter(|(a, b)| a <= b)
        .ok_or("--seeds wants A-B")?;
    let words = [format!("size={size}"), format!("pits={pits}")];
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (shape, _) = random::parse_args(&words).map_err(|e| e.to_string())?;
    Ok(Options { first, last, shape })
}

/// The textbook's own worlds for comparison (AIMA 7.2: "in about 21% of the
/// environments the gold is in a pit or surrounded by pits"): pits on every room but
/// the start, the wumpus and the gold each anywhere but the start, independently, so
/// the gold may lie in a pit or with the wumpus. Whether the gold is reachable through
/// rooms with no pit (and no wumpus unless `through_wumpus`).
fn textbook_world_reachable(seed: u64, shape: Shape, through_wumpus: bool) -> bool {
    let size = shape.size;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7465_7874_626f_6f6b);
    let rooms = size * size;
    let pit: Vec<bool> = (0..rooms)
        .map(|room| room != 0 && below(&mut rng, 1_000_000) < shape.pits)
        .collect();
    let others = u32::try_from(rooms - 1).unwrap_or(u32::MAX);
    let wumpus = 1 + below(&mut rng, others) as usize;
    let gold = 1 + below(&mut rng, others) as usize;
    let open = |room: usize| !pit[room] && (through_wumpus || room != wumpus);
    let mut seen = vec![false; rooms];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(room) = stack.pop() {
        if room == gold {
            return true;
        }
        let (x, y) = (room % size, room / size);
        let mut next = Vec::new();
        if x > 0 {
            next.push(room - 1);
        }
        if x + 1 < size {
            next.push(room + 1);
        }
        if y > 0 {
            next.push(room - size);
        }
        if y + 1 < size {
            next.push(room + size);
        }
        for n in next {
            if !seen[n] && open(n) {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    false
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("agent_wumpus: {error}");
            return ExitCode::FAILURE;
        }
    };
    let Options { first, last, shape } = options;
    let started = Instant::now();
    let (mut won, mut died, mut out, mut other) = (0u64, 0u64, 0u64, 0u64);
    let (mut score, mut actions, mut won_actions, mut arrows) = (0i64, 0u64, 0u64, 0u64);
    let (mut oracle, mut oracle_through, mut won_of_oracle) = (0u64, 0u64, 0u64);
    let (mut won_beyond_oracle, mut stuck_at_start) = (0u64, 0u64);
    let mut oracle_but_stuck = 0u64;
    let (mut textbook, mut textbook_through) = (0u64, 0u64);
    for seed in first..=last {
        let cave = random::generate(seed, shape);
        let reachable = random::gold_reachable(&cave, false);
        oracle += u64::from(reachable);
        oracle_through += u64::from(random::gold_reachable(&cave, true));
        textbook += u64::from(textbook_world_reachable(seed, shape, false));
        textbook_through += u64::from(textbook_world_reachable(seed, shape, true));
        let mut agent = Agent::new(Some(cave.dim()));
        let mut game = Wumpus::new(cave);
        let episode = play(&mut game, &mut agent, 100_000);
        score += episode.score();
        actions += episode.actions;
        arrows += u64::from(episode.arrow_spent);
        let stuck = episode.lines == ["climb"];
        stuck_at_start += u64::from(stuck);
        oracle_but_stuck += u64::from(stuck && reachable);
        match episode.outcome {
            Some(Outcome::Won) => {
                won += 1;
                won_actions += episode.actions;
                won_of_oracle += u64::from(reachable);
                won_beyond_oracle += u64::from(!reachable);
            }
            Some(Outcome::Died) => died += 1,
            Some(Outcome::Stopped) => out += 1,
            _ => other += 1,
        }
    }
    let worlds = last - first + 1;
    let elapsed = started.elapsed();
    let share = |n: u64| 100.0 * n as f64 / worlds as f64;
    println!(
        "wumpus agent: seeds {first}-{last} ({worlds} worlds), {size}x{size}, pits {pits}",
        size = shape.size,
        pits = random::chance_text(shape.pits)
    );
    println!("| measure | worlds | share |");
    println!("|---|---:|---:|");
    let row = |name: &str, n: u64| println!("| {name} | {n} | {:.2}% |", share(n));
    row("gold brought out", won);
    row("died", died);
    row("climbed out without the gold", out);
    row(
        "  of which climbed at once (no safe first move)",
        stuck_at_start,
    );
    row("other (gave up, out of actions)", other);
    row("arrow shot", arrows);
    row("oracle: gold reachable with no pit, no wumpus", oracle);
    row(
        "oracle: gold reachable with no pit (wumpus shot)",
        oracle_through,
    );
    row(
        "textbook's worlds (gold may be in a pit): reachable, no pit, no wumpus",
        textbook,
    );
    row(
        "textbook's worlds (gold may be in a pit): reachable, no pit",
        textbook_through,
    );
    println!(
        "| agent's wins among the oracle's worlds | {won_of_oracle} of {oracle} | {:.2}% |",
        100.0 * won_of_oracle as f64 / oracle.max(1) as f64
    );
    row(
        "agent's wins the oracle (no wumpus) calls impossible",
        won_beyond_oracle,
    );
    row(
        "oracle's worlds with no safe first move (a breeze at the start)",
        oracle_but_stuck,
    );
    println!(
        "mean score {:.1} (textbook measure); mean actions {:.2}, {:.2} in games won",
        score as f64 / worlds as f64,
        actions as f64 / worlds as f64,
        won_actions as f64 / won.max(1) as f64
    );
    println!(
        "gap to the oracle (no pit, no wumpus): {:.2} points; {:.1} us a world ({:.2} s)",
        share(oracle) - share(won),
        elapsed.as_secs_f64() * 1e6 / worlds as f64,
        elapsed.as_secs_f64()
    );
    if died > 0 {
        eprintln!("agent_wumpus: the agent died {died} times: it must take no risks");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
