//! A ladder's table and one entrant's seeds, read from the store (SPEC section 12):
//! what `ladder N`, `ladder results N NAME` and the web page's `/ladders` pages show.
//! The ranking itself is `ladders::table`'s; here its inputs are gathered.

use std::collections::BTreeMap;

use crate::ladders::table::{self, Baseline, Row, SeedResult, Standing};
use crate::store::{Ladder, LadderResult, Store, StoreError};

/// How a kept result stands.
pub fn standing(result: &LadderResult) -> Standing {
    match (result.forfeit, result.verified) {
        (true, _) => Standing::Forfeit,
        (false, Some(true)) => Standing::Counted,
        (false, Some(false)) => Standing::Refused,
        (false, None) => Standing::Pending,
    }
}

/// A ladder, its table, and how many seeds it has; `None` when there is no such
/// ladder.
///
/// # Errors
/// [`StoreError`] from the store.
pub async fn table(store: &Store, id: i64) -> Result<Option<(Ladder, Vec<Row>, u64)>, StoreError> {
    let Some(ladder) = store.ladder(id).await? else {
        return Ok(None);
    };
    let results = store.ladder_results(id).await?;
    let baselines = store.ladder_baselines(id).await?;
    let results: Vec<SeedResult> = results
        .iter()
        .map(|result| SeedResult {
            entrant: result.player.clone(),
            bot: result.bot,
            seed: result.seed,
            score: result.score,
            won: matches!(result.outcome.as_str(), "won" | "solved"),
            standing: standing(result),
        })
        .collect();
    let baselines: Vec<Baseline> = baselines
        .into_iter()
        .map(|(seed, agent, score)| Baseline { seed, agent, score })
        .collect();
    let seeds = ladder.last_seed.saturating_sub(ladder.first_seed) + 1;
    Ok(Some((ladder, table::rows(&results, &baselines), seeds)))
}

/// The best built-in agent on each seed and its score, from the baselines as the
/// store gives them (by seed, then agent): of agents with the same score, the last in
/// byte order. A map, so that a ladder of 10,000 seeds is not searched once per
/// result.
pub fn best_agents(baselines: &[(u64, String, i64)]) -> BTreeMap<u64, (String, i64)> {
    let mut best: BTreeMap<u64, (String, i64)> = BTreeMap::new();
    for (seed, agent, score) in baselines {
        match best.get_mut(seed) {
            Some(kept) if kept.1 > *score => {}
            Some(kept) => *kept = (agent.clone(), *score),
            None => {
                best.insert(*seed, (agent.clone(), *score));
            }
        }
    }
    best
}

/// One seed of one entrant, with the best built-in agent's score on it.
#[derive(Debug, Clone)]
pub struct SeedLine {
    /// The result as kept.
    pub result: LadderResult,
    /// How it stands.
    pub standing: Standing,
    /// The best agent on this seed and its score, once its baseline is played.
    pub best: Option<(String, i64)>,
}

/// Every seed played in ladder `id`, by `player_key` (every entrant when `None`),
/// each with the best agent's score on it.
///
/// # Errors
/// [`StoreError`] from the store.
pub async fn seeds(
    store: &Store,
    id: i64,
    player_key: Option<&str>,
) -> Result<Vec<SeedLine>, StoreError> {
    let results = match player_key {
        Some(key) => store.ladder_results_of(id, key).await?,
        None => store.ladder_results(id).await?,
    };
    let best = best_agents(&store.ladder_baselines(id).await?);
    Ok(results
        .into_iter()
        .map(|result| {
            let best = best.get(&result.seed).cloned();
            SeedLine {
                standing: standing(&result),
                result,
                best,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_agent_of_a_seed_is_its_highest_score_the_last_of_a_tie() {
        let baselines = [
            (1, String::from("kb"), 900),
            (1, String::from("random"), -1000),
            (2, String::from("kb"), -5),
            (2, String::from("random"), -5),
            (3, String::from("random"), 7),
        ];
        let best = best_agents(&baselines);
        assert_eq!(best.get(&1), Some(&(String::from("kb"), 900)));
        // A tie goes to the last in byte order, as `max_by_key` chose before.
        assert_eq!(best.get(&2), Some(&(String::from("random"), -5)));
        assert_eq!(best.get(&3), Some(&(String::from("random"), 7)));
        assert_eq!(best.get(&4), None);
    }
}
