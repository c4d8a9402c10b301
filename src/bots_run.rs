//! `arcade bots run GAME AGENT --seeds A-B [ARGS]`: a built-in agent plays every seed
//! offline, as a bot would (the agents of `arcade::agents::driver`, on the games'
//! observations and legal actions), one line a seed, then the table's summary: games,
//! mean score, wins, moves and time (SPEC section 12).
//!
//! A seed is what a ladder's seed is for the game: 2048's `seed=N`, a random wumpus
//! world's `seed=N` (`wumpus random seed=N`), a Star Pusher collection's level number.
//! Classic Sokoban's levels have names, not numbers: it has no seeds.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use arcade::agents::driver::{self, AGENTS};
use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, GameKind};
use arcade::games::Outcome;
use arcade::ladders::seeds;

/// The most actions one seed's game may take: a random agent in a level of boxes
/// never ends it by itself.
const MAX_MOVES: u64 = 100_000;

/// Seeds `A-B` (or one seed `N`).
pub fn parse_seeds(text: &str) -> Result<(u64, u64), String> {
    seeds::range(text).ok_or_else(|| format!("--seeds {text}: give A-B with A <= B, such as 1-100"))
}

/// Run `agent` on `game` over `seeds`, printing one line a seed and the summary.
pub fn run(game: &str, agent: &str, seeds: &str, extra: &[String]) -> ExitCode {
    match table(game, agent, seeds, extra, &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("arcade bots run: {message}");
            ExitCode::FAILURE
        }
    }
}

fn table(
    game: &str,
    agent: &str,
    seeds: &str,
    extra: &[String],
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let kind = GameKind::from_name(game)
        .ok_or_else(|| arcade::console::lobby::unknown_game(Some(game)))?;
    let (first, last) = parse_seeds(seeds)?;
    if driver::agent(agent, kind.name, first).is_none() {
        let known: Vec<String> = AGENTS
            .iter()
            .map(|(name, plays)| format!("  {name}: {plays}"))
            .collect();
        return Err(format!(
            "{agent} does not play {}. The agents:\n{}",
            kind.name,
            known.join("\n")
        ));
    }
    let context = Arc::new(Context {
        levels: Levels::built_in().0,
        data_dir: PathBuf::from("."),
    });
    let write = |out: &mut dyn std::io::Write, line: String| {
        writeln!(out, "{line}").map_err(|error| format!("writing the table: {error}"))
    };
    write(out, String::from("seed  score  moves  outcome"))?;
    let started = Instant::now();
    let (mut games, mut total, mut wins, mut moves) = (0u64, 0i64, 0u64, 0u64);
    for seed in first..=last {
        let args = seeds::play_args(kind.name, seed, extra).map_err(|error| error.to_string())?;
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut game =
            (kind.start)(&words, &context).map_err(|message| format!("seed {seed}: {message}"))?;
        let Some(mut policy) = driver::agent(agent, kind.name, seed) else {
            return Err(format!("{agent} does not play {}", kind.name));
        };
        let played = driver::play(game.as_mut(), policy.as_mut(), MAX_MOVES);
        let outcome = played.outcome.map_or("unfinished", Outcome::as_str);
        write(
            out,
            format!(
                "{seed:>4}  {:>5}  {:>5}  {outcome}",
                played.score, played.moves
            ),
        )?;
        games += 1;
        total = total.saturating_add(played.score);
        moves += played.moves;
        wins += u64::from(matches!(
            played.outcome,
            Some(Outcome::Won | Outcome::Solved)
        ));
    }
    let games_f = games as f64;
    write(
        out,
        format!(
            "{games} games of {} by {agent}: mean score {:.2}, wins {wins} ({:.2}%), mean moves {:.1}, {:.2} s",
            kind.name,
            total as f64 / games_f,
            100.0 * wins as f64 / games_f,
            moves as f64 / games_f,
            started.elapsed().as_secs_f64()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_a_range() {
        assert_eq!(parse_seeds("1-100"), Ok((1, 100)));
        assert_eq!(parse_seeds("7"), Ok((7, 7)));
        assert!(parse_seeds("9-1").is_err());
        assert!(parse_seeds("a-b").is_err());
    }

    #[test]
    fn the_kb_agent_never_dies_and_every_seed_has_its_line() {
        let mut out = Vec::new();
        table("wumpus", "kb", "1-30", &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 32, "{text}");
        assert!(!text.contains("died"), "{text}");
        assert!(
            lines[31].starts_with("30 games of wumpus by kb: mean score"),
            "{text}"
        );
        let error = table("sokoban", "random", "1-3", &[], &mut Vec::new()).unwrap_err();
        assert!(error.contains("no seeds"), "{error}");
        let error = table("2048", "kb", "1-3", &[], &mut Vec::new()).unwrap_err();
        assert!(error.contains("kb does not play 2048"), "{error}");
    }
}
