//! A ladder's table and one entrant's seeds, read from the store (SPEC section 12):
//! what `ladder N`, `ladder results N NAME` and the web page's `/ladders` pages show.
//! The ranking itself is `ladders::table`'s; here its inputs are gathered.

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
    let baselines = store.ladder_baselines(id).await?;
    Ok(results
        .into_iter()
        .map(|result| {
            let best = baselines
                .iter()
                .filter(|(seed, _, _)| *seed == result.seed)
                .max_by_key(|(_, _, score)| *score)
                .map(|(_, agent, score)| (agent.clone(), *score));
            SeedLine {
                standing: standing(&result),
                result,
                best,
            }
        })
        .collect())
}
