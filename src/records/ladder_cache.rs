//! The ladders' tables as everyone reads them (`ladder N` on telnet and SSH,
//! `/ladders/N` and the entrants of `/ladders/N.csv` on the page): one read of the
//! store at a time, each table kept for [`FRESH`] and shared by everyone who asks for
//! it in that time.
//!
//! A table is [`ladder_tables::table`]: it reads every result of the ladder (10,000
//! seeds times every entrant, at most) to rank a few rows. A page that refreshes
//! itself every few seconds in thirty browsers, or a class typing `ladder 1` over and
//! over, would make as many such reads at once; here they make one, and the memory a
//! read holds is one ladder's results, whatever the number of readers. The tables kept
//! are a few rows each, at most [`KEPT`] of them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ladder_tables;
use crate::ladders::table::Row;
use crate::store::{Ladder, Store, StoreError};

/// How long a table read is shown to everyone who asks: under the page's own refresh,
/// so that a refreshing page shows a new read each time.
pub const FRESH: Duration = Duration::from_secs(2);

/// Tables kept at once (the ladders asked for most recently): a class watches one or
/// two.
const KEPT: usize = 16;

/// A ladder and its table, as `ladder N` shows them.
#[derive(Debug)]
pub struct LadderTable {
    /// The ladder.
    pub ladder: Ladder,
    /// Its rows, ranked: entrants and built-in agents.
    pub rows: Vec<Row>,
    /// How many seeds it has.
    pub seeds: u64,
}

/// The tables read lately, behind the lock that lets one read run at a time.
#[derive(Debug, Default)]
pub struct Tables {
    kept: tokio::sync::Mutex<Vec<Kept>>,
}

#[derive(Debug)]
struct Kept {
    id: i64,
    read: Instant,
    table: Arc<LadderTable>,
}

impl Tables {
    /// Ladder `id`'s table, read at most [`FRESH`] ago; `None` when there is no such
    /// ladder. A request that finds another reading waits for it (and then, most
    /// often, shares what it read).
    ///
    /// # Errors
    /// [`StoreError`] from the store.
    pub async fn table(
        &self,
        store: &Store,
        id: i64,
    ) -> Result<Option<Arc<LadderTable>>, StoreError> {
        // Held across the read: the one-at-a-time is the point.
        let mut kept = self.kept.lock().await;
        if let Some(fresh) = kept
            .iter()
            .find(|kept| kept.id == id && kept.read.elapsed() < FRESH)
        {
            return Ok(Some(Arc::clone(&fresh.table)));
        }
        let Some((ladder, rows, seeds)) = ladder_tables::table(store, id).await? else {
            return Ok(None);
        };
        let table = Arc::new(LadderTable {
            ladder,
            rows,
            seeds,
        });
        kept.retain(|kept| kept.id != id);
        if kept.len() >= KEPT {
            if let Some(oldest) = (0..kept.len()).min_by_key(|&at| kept[at].read) {
                kept.swap_remove(oldest);
            }
        }
        kept.push(Kept {
            id,
            read: Instant::now(),
            table: Arc::clone(&table),
        });
        Ok(Some(table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{DbUrl, LadderSpec, NewLadderResult};

    fn spec() -> LadderSpec {
        LadderSpec {
            game: String::from("wumpus"),
            first_seed: 1,
            last_seed: 2,
            move_ms: None,
            until: None,
            humans: true,
            opened_by: String::from("teacher"),
        }
    }

    #[tokio::test]
    async fn a_table_is_shared_while_fresh_and_the_kept_ones_are_bounded() {
        let store = Store::open(&DbUrl::Memory).await.unwrap();
        let tables = Tables::default();
        assert!(tables.table(&store, 1).await.unwrap().is_none());
        let id = store.open_ladder(&spec(), 1).await.unwrap();
        let first = tables.table(&store, id).await.unwrap().expect("the ladder");
        assert!(first.rows.is_empty());
        assert_eq!(first.seeds, 2);
        store
            .add_ladder_result(&NewLadderResult {
                ladder_id: id,
                player: String::from("ann"),
                player_key: String::from("ann"),
                bot: false,
                seed: 1,
                recording_id: None,
                score: -1000,
                moves: 3,
                outcome: String::from("forfeit"),
                forfeit: true,
                finished_at: 2,
            })
            .await
            .unwrap();
        // Within FRESH the same read is shared; the new result is not in it yet.
        let again = tables.table(&store, id).await.unwrap().expect("the ladder");
        assert!(Arc::ptr_eq(&first, &again));
        // Once stale, the next ask reads again.
        tables.kept.lock().await[0].read = Instant::now() - FRESH;
        let later = tables.table(&store, id).await.unwrap().expect("the ladder");
        assert_eq!(later.rows.len(), 1);
        assert_eq!(later.rows[0].mean, Some(-1000.0));

        for _ in 0..KEPT + 3 {
            let id = store.open_ladder(&spec(), 1).await.unwrap();
            tables.table(&store, id).await.unwrap().expect("the ladder");
        }
        assert_eq!(tables.kept.lock().await.len(), KEPT);
    }
}
