//! A ladder's table (SPEC section 12): for each entrant the seeds played, the mean
//! score, the wins, and the mean difference from the best built-in agent seed by seed
//! (so that a hard seed costs every entrant alike), with the built-in agents as rows
//! of their own. Only results whose replay agreed count (forfeits too: they need no
//! replay); the others are shown as waiting or refused, never in the means.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How a result stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Its replay agreed: it counts.
    Counted,
    /// Its replay has not run yet.
    Pending,
    /// Its replay disagreed (a forged or damaged result): kept off the table.
    Refused,
    /// The time per move ran out: the seed counts with the game's forfeit score.
    Forfeit,
}

/// One seed played by one entrant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedResult {
    /// Who.
    pub entrant: String,
    /// A program.
    pub bot: bool,
    /// Which seed.
    pub seed: u64,
    /// The score, as a bot's state says it (the forfeit score for a forfeit).
    pub score: i64,
    /// Won or solved.
    pub won: bool,
    /// How it stands.
    pub standing: Standing,
}

/// A built-in agent's score on a seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    /// Which seed.
    pub seed: u64,
    /// Which agent (`kb`, `expectimax`, `random`).
    pub agent: String,
    /// Its score.
    pub score: i64,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The entrant's name, or the agent's.
    pub entrant: String,
    /// A program (a built-in agent is one).
    pub bot: bool,
    /// A built-in agent.
    pub agent: bool,
    /// Seeds that count.
    pub counted: u64,
    /// Seeds waiting for their replay.
    pub pending: u64,
    /// Seeds whose replay disagreed.
    pub refused: u64,
    /// Seeds forfeited on time (counted too).
    pub forfeits: u64,
    /// The mean score over the seeds that count.
    pub mean: Option<f64>,
    /// Wins among them.
    pub wins: u64,
    /// The mean of (score - the best agent's score) over the counted seeds with a
    /// baseline.
    pub vs_best: Option<f64>,
}

/// The score a forfeited seed counts with: what losing the game scores (the wumpus'
/// death, nothing for the others).
pub fn forfeit_score(game: &str) -> i64 {
    if game == "wumpus" {
        -1000
    } else {
        0
    }
}

/// The table: entrants and agents, best mean first (then most seeds counted, then
/// by name).
pub fn rows(results: &[SeedResult], baselines: &[Baseline]) -> Vec<Row> {
    let mut best: BTreeMap<u64, i64> = BTreeMap::new();
    for baseline in baselines {
        let entry = best.entry(baseline.seed).or_insert(baseline.score);
        *entry = (*entry).max(baseline.score);
    }
    let mut by_entrant: BTreeMap<(bool, &str), Vec<&SeedResult>> = BTreeMap::new();
    for result in results {
        by_entrant
            .entry((result.bot, result.entrant.as_str()))
            .or_default()
            .push(result);
    }
    let mut rows: Vec<Row> = by_entrant
        .into_iter()
        .map(|((bot, entrant), seeds)| {
            let count = |standing| seeds.iter().filter(|r| r.standing == standing).count() as u64;
            let counted: Vec<&&SeedResult> = seeds
                .iter()
                .filter(|r| matches!(r.standing, Standing::Counted | Standing::Forfeit))
                .collect();
            row(
                entrant,
                bot,
                false,
                counted.iter().map(|r| (r.seed, r.score, r.won)),
                &best,
                (
                    count(Standing::Pending),
                    count(Standing::Refused),
                    count(Standing::Forfeit),
                ),
            )
        })
        .collect();
    let mut agents: BTreeMap<&str, Vec<&Baseline>> = BTreeMap::new();
    for baseline in baselines {
        agents.entry(&baseline.agent).or_default().push(baseline);
    }
    for (agent, seeds) in agents {
        rows.push(row(
            agent,
            true,
            true,
            seeds.iter().map(|b| (b.seed, b.score, false)),
            &best,
            (0, 0, 0),
        ));
    }
    rows.sort_by(|a, b| {
        b.mean
            .unwrap_or(f64::MIN)
            .total_cmp(&a.mean.unwrap_or(f64::MIN))
            .then(b.counted.cmp(&a.counted))
            .then(a.entrant.cmp(&b.entrant))
    });
    rows
}

fn row(
    entrant: &str,
    bot: bool,
    agent: bool,
    counted: impl Iterator<Item = (u64, i64, bool)>,
    best: &BTreeMap<u64, i64>,
    (pending, refused, forfeits): (u64, u64, u64),
) -> Row {
    let (mut n, mut sum, mut wins, mut diffs, mut diff_sum) = (0u64, 0i128, 0u64, 0u64, 0i128);
    for (seed, score, won) in counted {
        n += 1;
        sum += i128::from(score);
        wins += u64::from(won);
        if let Some(best) = best.get(&seed) {
            diffs += 1;
            diff_sum += i128::from(score) - i128::from(*best);
        }
    }
    let mean = |total: i128, count: u64| (count > 0).then(|| total as f64 / count as f64);
    Row {
        entrant: entrant.to_string(),
        bot,
        agent,
        counted: n,
        pending,
        refused,
        forfeits,
        mean: mean(sum, n),
        wins,
        vs_best: mean(diff_sum, diffs),
    }
}

/// The table as `ladder N` shows it, within 80 columns; `seeds` is how many the
/// ladder has. `vs best` is the mean difference from the best built-in agent's score
/// on the same seeds; `waiting`, the seeds whose replay has not run yet.
pub fn render(rows: &[Row], seeds: u64) -> String {
    let mut text =
        String::from("  #  entrant               seeds  mean score  wins  vs best  waiting\n");
    let mut place = 0;
    for row in rows {
        let rank = if row.agent {
            String::from("-")
        } else {
            place += 1;
            place.to_string()
        };
        let name = if row.agent {
            format!("{} (built-in)", row.entrant)
        } else if row.bot {
            format!("{} [bot]", row.entrant)
        } else {
            row.entrant.clone()
        };
        let mean = row
            .mean
            .map_or_else(|| String::from("-"), |m| format!("{m:.1}"));
        let vs = row
            .vs_best
            .map_or_else(|| String::from("-"), |d| format!("{d:+.1}"));
        let waiting = if row.refused > 0 {
            format!("{} ({} refused)", row.pending, row.refused)
        } else {
            row.pending.to_string()
        };
        let _ = writeln!(
            text,
            "{rank:>3}  {:<21}  {:>5}  {mean:>10}  {:>4}  {vs:>7}  {waiting}",
            crate::text::fit(&name, 21),
            format!("{}/{seeds}", row.counted),
            // An agent's baseline keeps its score only.
            if row.agent {
                String::from("-")
            } else {
                row.wins.to_string()
            },
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(entrant: &str, seed: u64, score: i64, standing: Standing) -> SeedResult {
        SeedResult {
            entrant: entrant.to_string(),
            bot: entrant.ends_with("bot"),
            seed,
            score,
            won: score > 0,
            standing,
        }
    }

    fn baseline(agent: &str, seed: u64, score: i64) -> Baseline {
        Baseline {
            seed,
            agent: agent.to_string(),
            score,
        }
    }

    #[test]
    fn only_counted_seeds_make_the_means_and_luck_cancels_out() {
        let results = [
            result("ada-bot", 1, 900, Standing::Counted),
            result("ada-bot", 2, -10, Standing::Counted),
            // A forged score: its replay disagreed.
            result("ada-bot", 3, 5000, Standing::Refused),
            result("bob", 1, 800, Standing::Counted),
            result("bob", 2, -1000, Standing::Forfeit),
            result("bob", 3, 100, Standing::Pending),
        ];
        let baselines = [
            baseline("kb", 1, 950),
            baseline("kb", 2, -5),
            baseline("random", 1, -1000),
            baseline("random", 2, 0),
        ];
        let rows = rows(&results, &baselines);
        let ada = rows.iter().find(|r| r.entrant == "ada-bot").unwrap();
        assert_eq!((ada.counted, ada.refused, ada.pending), (2, 1, 0));
        assert_eq!(ada.mean, Some(445.0));
        assert_eq!(ada.wins, 1);
        // Seed 1: 900 - 950; seed 2: -10 - 0 (random's 0 beats kb's -5).
        assert_eq!(ada.vs_best, Some(-30.0));
        let bob = rows.iter().find(|r| r.entrant == "bob").unwrap();
        assert_eq!((bob.counted, bob.forfeits, bob.pending), (2, 1, 1));
        assert_eq!(bob.mean, Some(-100.0));
        let kb = rows.iter().find(|r| r.entrant == "kb").unwrap();
        assert!(kb.agent && kb.bot);
        assert_eq!(kb.mean, Some(472.5));
        // Best mean first.
        let order: Vec<&str> = rows.iter().map(|r| r.entrant.as_str()).collect();
        assert_eq!(order, ["kb", "ada-bot", "bob", "random"]);
        let text = render(&rows, 3);
        assert!(
            text.lines().all(|line| line.chars().count() <= 80),
            "{text}"
        );
        assert!(text.contains("  -  kb (built-in)"), "{text}");
        assert!(text.contains("  1  ada-bot [bot]"), "{text}");
        assert!(
            text.contains("1 (0 refused)") || text.contains("0 (1 refused)"),
            "{text}"
        );
    }

    #[test]
    fn forfeits_score_what_losing_scores() {
        assert_eq!(forfeit_score("wumpus"), -1000);
        assert_eq!(forfeit_score("2048"), 0);
    }
}
