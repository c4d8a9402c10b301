//! `/ladders/N.csv` (admins): every seed played in ladder N, one row each, then the
//! built-in agents' score on every seed, for a spreadsheet or a script. Admins only,
//! as `/results.csv`: it is the whole of a ladder's results for grading, every
//! entrant's every seed at once.
//!
//! Streamed, as `/results.csv` is: one entrant's seeds are read from the store at a
//! time (at most the ladder's 10,000), the agents' scores once (10,000 for each agent
//! at most), so a ladder's whole results never sit in memory at once. A download
//! takes one of the page's places for downloads
//! ([`MAX_DOWNLOADS`](super::state::MAX_DOWNLOADS),
//! [`DOWNLOADS_PER_ADDRESS`](super::state::DOWNLOADS_PER_ADDRESS)) for as long as it
//! streams. Fields go through `csv.rs`'s [`csv_line`], which quotes them and defuses
//! what a spreadsheet would take for a formula.

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};

use super::csv::csv_line;
use super::html::store_down;
use super::recordings::TOO_MANY_DOWNLOADS;
use super::state::Web;
use crate::ladders::table::Standing;
use crate::records::ladder_cache::LadderTable;
use crate::records::ladder_tables::{self, best_agents};
use crate::records::places::Place;
use crate::store::{LadderResult, Store};

/// The CSV's first line. Columns are only ever added at the end.
pub const CSV_HEADER: [&str; 13] = [
    "ladder",
    "entrant",
    // `yes` for a program (a built-in agent is one), else `no`.
    "bot",
    "seed",
    "score",
    "moves",
    // How the game ended, as kept (`won`, `died`, `stopped`, `forfeit`, ...).
    "outcome",
    // `counted`, `checking`, `refused`, `forfeit`; `built-in` for an agent's score.
    "standing",
    // The best built-in agent on this seed and its score (empty until played).
    "best_agent",
    "best_agent_score",
    // score - best_agent_score.
    "difference",
    "recording_id",
    "finished_at",
];

/// Agents' rows written per piece of the stream.
const AGENT_ROWS: usize = 1000;

/// `GET /ladders/N.csv` for the admin at `peer`: `table`'s ladder, streamed.
pub async fn csv(web: &Web, peer: SocketAddr, table: Arc<LadderTable>) -> Response {
    let Ok(place) = web.downloads.take(peer.ip()) else {
        return (StatusCode::TOO_MANY_REQUESTS, TOO_MANY_DOWNLOADS).into_response();
    };
    let id = table.ladder.id;
    let store = web.services.store.clone();
    let mut baselines = match store.ladder_baselines(id).await {
        Ok(baselines) => baselines,
        Err(error) => return store_down(&error),
    };
    let best = best_agents(&baselines);
    // The agents' rows by agent, then seed: each agent's seeds together, as an
    // entrant's are.
    baselines.sort_unstable_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
    // Each entrant once, in the table's order (a name is one entrant whatever its
    // case, and may have played some seeds as a bot and some by hand).
    let mut seen = HashSet::new();
    let entrants: Vec<String> = table
        .rows
        .iter()
        .filter(|row| !row.agent)
        .map(|row| row.entrant.to_ascii_lowercase())
        .filter(|key| seen.insert(key.clone()))
        .collect();
    let rows = Rows {
        store,
        id,
        entrants,
        baselines,
        best,
        next: 0,
        _place: place,
    };
    let pieces = stream::unfold(Some(rows), |rows| async move {
        let mut rows = rows?;
        match rows.piece().await {
            Ok(Some(text)) => Some((Ok::<_, std::io::Error>(text), Some(rows))),
            Ok(None) => None,
            Err(error) => {
                tracing::error!(%error, ladder = rows.id, "ladder csv: the database does not answer");
                Some((Err(std::io::Error::other(error.to_string())), None))
            }
        }
    });
    let body = stream::iter([Ok(csv_line(&CSV_HEADER))]).chain(pieces);
    (
        [
            (
                header::CONTENT_TYPE,
                String::from("text/csv; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"arcade-ladder-{id}.csv\""),
            ),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// What is left to write, and the download's place, given back when it ends.
struct Rows {
    store: Store,
    id: i64,
    /// The entrants' names in lower case.
    entrants: Vec<String>,
    /// `(seed, agent, score)`, by agent then seed.
    baselines: Vec<(u64, String, i64)>,
    best: BTreeMap<u64, (String, i64)>,
    /// The next piece: an entrant's index, then past them the agents' rows by
    /// [`AGENT_ROWS`].
    next: usize,
    _place: Place,
}

impl Rows {
    /// The next piece of the CSV, or `None` at its end.
    async fn piece(&mut self) -> Result<Option<String>, crate::store::StoreError> {
        loop {
            let at = self.next;
            self.next += 1;
            if let Some(key) = self.entrants.get(at) {
                let results = self.store.ladder_results_of(self.id, key).await?;
                if results.is_empty() {
                    continue;
                }
                return Ok(Some(
                    results
                        .iter()
                        .map(|result| self.result_row(result))
                        .collect(),
                ));
            }
            let from = (at - self.entrants.len()) * AGENT_ROWS;
            let Some(piece) = self.baselines.get(from..) else {
                return Ok(None);
            };
            if piece.is_empty() {
                return Ok(None);
            }
            return Ok(Some(
                piece
                    .iter()
                    .take(AGENT_ROWS)
                    .map(|(seed, agent, score)| self.agent_row(*seed, agent, *score))
                    .collect(),
            ));
        }
    }

    fn result_row(&self, result: &LadderResult) -> String {
        let standing = match ladder_tables::standing(result) {
            Standing::Counted => "counted",
            Standing::Pending => "checking",
            Standing::Refused => "refused",
            Standing::Forfeit => "forfeit",
        };
        let (agent, best, difference) = self.against_best(result.seed, result.score);
        csv_line(&[
            &self.id.to_string(),
            &result.player,
            if result.bot { "yes" } else { "no" },
            &result.seed.to_string(),
            &result.score.to_string(),
            &result.moves.to_string(),
            &result.outcome,
            standing,
            &agent,
            &best,
            &difference,
            &result
                .recording_id
                .map(|id| id.to_string())
                .unwrap_or_default(),
            &crate::text::rfc3339(result.finished_at),
        ])
    }

    fn agent_row(&self, seed: u64, agent: &str, score: i64) -> String {
        let (best_agent, best, difference) = self.against_best(seed, score);
        csv_line(&[
            &self.id.to_string(),
            agent,
            "yes",
            &seed.to_string(),
            &score.to_string(),
            "",
            "",
            "built-in",
            &best_agent,
            &best,
            &difference,
            "",
            "",
        ])
    }

    /// The best agent on `seed`, its score, and `score` minus it; empty fields while
    /// no agent has played the seed.
    fn against_best(&self, seed: u64, score: i64) -> (String, String, String) {
        match self.best.get(&seed) {
            Some((agent, best)) => (
                agent.clone(),
                best.to_string(),
                (i128::from(score) - i128::from(*best)).to_string(),
            ),
            None => (String::new(), String::new(), String::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{DbUrl, LadderSpec, NewLadderResult};

    fn rows(store: Store, baselines: Vec<(u64, String, i64)>, entrants: &[&str]) -> Rows {
        let best = best_agents(&baselines);
        let mut baselines = baselines;
        baselines.sort_unstable_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
        Rows {
            store,
            id: 1,
            entrants: entrants.iter().map(|name| name.to_string()).collect(),
            baselines,
            best,
            next: 0,
            _place: crate::records::places::Places::new(1, 1)
                .take(std::net::Ipv4Addr::LOCALHOST.into())
                .unwrap(),
        }
    }

    #[tokio::test]
    async fn an_entrants_seeds_then_the_agents_scores_each_against_the_best() {
        let store = Store::open(&DbUrl::Memory).await.unwrap();
        let id = store
            .open_ladder(
                &LadderSpec {
                    game: String::from("wumpus"),
                    first_seed: 1,
                    last_seed: 2,
                    move_ms: None,
                    until: None,
                    humans: true,
                    opened_by: String::from("teacher"),
                },
                1,
            )
            .await
            .unwrap();
        for (seed, forfeit) in [(1, false), (2, true)] {
            store
                .add_ladder_result(&NewLadderResult {
                    ladder_id: id,
                    player: String::from("Ada-bot"),
                    player_key: String::from("ada-bot"),
                    bot: true,
                    seed,
                    recording_id: (!forfeit).then_some(7),
                    score: if forfeit { -1000 } else { -1 },
                    moves: 1,
                    outcome: String::from(if forfeit { "forfeit" } else { "stopped" }),
                    forfeit,
                    finished_at: 86_400_000,
                })
                .await
                .unwrap();
        }
        let baselines = vec![
            (1, String::from("kb"), 10),
            (1, String::from("random"), -1000),
            (2, String::from("kb"), -5),
        ];
        // An entrant with nothing (gone from the table since) writes nothing.
        let mut rows = rows(store, baselines, &["ada-bot", "nobody"]);
        let entrant = rows.piece().await.unwrap().expect("ada's seeds");
        assert_eq!(
            entrant,
            "1,Ada-bot,yes,1,-1,1,stopped,checking,kb,10,-11,7,1970-01-02T00:00:00Z\r\n\
             1,Ada-bot,yes,2,-1000,1,forfeit,forfeit,kb,-5,-995,,1970-01-02T00:00:00Z\r\n"
        );
        let agents = rows.piece().await.unwrap().expect("the agents' scores");
        assert_eq!(
            agents,
            "1,kb,yes,1,10,,,built-in,kb,10,0,,\r\n\
             1,kb,yes,2,-5,,,built-in,kb,-5,0,,\r\n\
             1,random,yes,1,-1000,,,built-in,kb,10,-1010,,\r\n"
        );
        assert_eq!(rows.piece().await.unwrap(), None);
        for line in entrant.lines().chain(agents.lines()) {
            assert_eq!(line.split(',').count(), CSV_HEADER.len(), "{line}");
        }
    }
}
