//! `--bot-ladder-admin`: the ladder a bots run plays through (SPEC section 12). An
//! admin's telnet session opens it (`ladder open GAME seeds=A-B [move=T]`) and waits
//! until the built-in agents have played every seed (their baselines run on the
//! server's blocking threads, and would otherwise be measured with the bots); after
//! the last bot, it waits until every result has been checked by replay, which is the
//! ladder's own work for the bots' games, and counts how the results stand.
//!
//! The admin reads the ladder's table as a person does (`ladder N`) and parses its
//! rows: `seeds` is `counted/of`, and `waiting` the results whose replay has not run
//! (with `(K refused)` when some disagreed).

use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::connection::{Connection, LOBBY_PROMPT};
use super::failure::{Failure, Waiting};
use super::options::Error;

/// How long the baselines, or the replays after the run, may take before the run
/// gives up: 2048's expectimax plays a seed in about 1.4 s, so 100 seeds take minutes.
const SETTLE_LIMIT: Duration = Duration::from_secs(30 * 60);

/// How often the admin reads the table while waiting.
const POLL: Duration = Duration::from_millis(250);

/// What the run measured of its ladder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LadderReport {
    /// The ladder's number.
    pub id: i64,
    /// `move=`: its time per move, in milliseconds.
    pub move_ms: Option<u64>,
    /// From the opening to every built-in agent's last seed, in seconds (before the
    /// bots connect, so not in their wall time).
    pub baselines_seconds: f64,
    /// From the last bot done to every bot's result checked by replay, in seconds.
    pub settle_seconds: f64,
    /// Entrants on the table when it settled.
    pub entrants: u64,
    /// Their results that count (the replay agreed, or a forfeit).
    pub counted: u64,
    /// Their results still waiting for a replay when the run gave up (0 when settled).
    pub waiting: u64,
    /// Their results whose replay disagreed.
    pub refused: u64,
    /// Seeds forfeited on time, as the bots were told.
    pub forfeits: u64,
    /// The ladder's `text` lines the bots skipped between states.
    pub texts: u64,
    /// The server's CPU time from the bots' first connect to the table settled, in
    /// seconds (`--server-pid`): the run's, and the replays that check its results.
    pub server_cpu_seconds_settled: Option<f64>,
}

/// One row of a ladder's table, as much as the run needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TableRow {
    built_in: bool,
    counted: u64,
    of: u64,
    waiting: u64,
    refused: u64,
}

/// An admin's session, logged in.
pub(crate) struct Admin {
    connection: Connection,
    timeout: Duration,
}

impl Admin {
    /// Connect to `addr` and log in as `name` with `password`.
    pub(crate) async fn log_in(
        addr: std::net::SocketAddr,
        name: &str,
        password: &str,
        timeout: Duration,
    ) -> Result<Admin, Error> {
        let failed = |failure: Failure| Error::Ladder(format!("the admin {name}: {failure}"));
        let mut connection = Connection::open(addr, None, false)
            .await
            .map_err(|error| Error::Ladder(format!("the admin cannot connect: {error}")))?;
        let deadline = || Instant::now() + timeout;
        connection
            .expect(LOBBY_PROMPT, Waiting::Banner, deadline())
            .await
            .map_err(failed)?;
        connection
            .send_line(&format!("name {name}"))
            .await
            .map_err(failed)?;
        connection
            .expect(b"Password: ", Waiting::Name, deadline())
            .await
            .map_err(failed)?;
        connection.send_line(password).await.map_err(failed)?;
        let said = connection
            .expect_reply(LOBBY_PROMPT, Waiting::Name, deadline())
            .await
            .map_err(failed)?;
        if !String::from_utf8_lossy(&said).contains(&format!("You are now {name}.")) {
            return Err(Error::Ladder(format!(
                "{name} did not log in (is it an --admin of the server, and LOADTEST_ADMIN_PASSWORD its password?): {}",
                String::from_utf8_lossy(&said).trim()
            )));
        }
        Ok(Admin {
            connection,
            timeout,
        })
    }

    /// `line`, and the server's answer without its prompt.
    async fn ask(&mut self, line: &str) -> Result<String, Error> {
        let failed = |failure: Failure| Error::Ladder(format!("`{line}`: {failure}"));
        self.connection.send_line(line).await.map_err(failed)?;
        let said = self
            .connection
            .expect_reply(LOBBY_PROMPT, Waiting::Setup, Instant::now() + self.timeout)
            .await
            .map_err(failed)?;
        Ok(String::from_utf8_lossy(&said).into_owned())
    }

    /// Open `ladder open GAME seeds=A-B [move=T]`; its number.
    pub(crate) async fn open(&mut self, opening: &str) -> Result<i64, Error> {
        let said = self.ask(&format!("ladder open {opening}")).await?;
        ladder_opened(&said).ok_or_else(|| {
            Error::Ladder(format!(
                "`ladder open {opening}` was answered: {}",
                said.trim()
            ))
        })
    }

    /// Wait until every built-in agent has played every seed of ladder `id`: how long.
    pub(crate) async fn baselines(&mut self, id: i64) -> Result<Duration, Error> {
        let start = Instant::now();
        self.wait(id, |rows| {
            let agents: Vec<&TableRow> = rows.iter().filter(|row| row.built_in).collect();
            !agents.is_empty() && agents.iter().all(|row| row.counted == row.of)
        })
        .await?;
        Ok(start.elapsed())
    }

    /// Wait until no entrant of ladder `id` has a result waiting for its replay; how
    /// long, and the entrants' rows then.
    pub(crate) async fn settle(
        &mut self,
        id: i64,
        entrants: u64,
    ) -> Result<(Duration, LadderTotals), Error> {
        let start = Instant::now();
        let rows = self
            .wait(id, |rows| {
                let bots: Vec<&TableRow> = rows.iter().filter(|row| !row.built_in).collect();
                bots.len() as u64 >= entrants && bots.iter().all(|row| row.waiting == 0)
            })
            .await?;
        Ok((start.elapsed(), LadderTotals::of(&rows)))
    }

    /// Read ladder `id`'s table until `done` says so: its rows then.
    async fn wait(
        &mut self,
        id: i64,
        done: impl Fn(&[TableRow]) -> bool,
    ) -> Result<Vec<TableRow>, Error> {
        let limit = Instant::now() + SETTLE_LIMIT;
        loop {
            let table = self.ask(&format!("ladder {id}")).await?;
            let rows = table_rows(&table);
            if done(&rows) {
                return Ok(rows);
            }
            if Instant::now() >= limit {
                return Err(Error::Ladder(format!(
                    "ladder {id} did not settle within {}: {}",
                    humantime::format_duration(SETTLE_LIMIT),
                    table.trim()
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// The entrants' results, added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LadderTotals {
    pub(crate) entrants: u64,
    pub(crate) counted: u64,
    pub(crate) waiting: u64,
    pub(crate) refused: u64,
}

impl LadderTotals {
    fn of(rows: &[TableRow]) -> LadderTotals {
        rows.iter()
            .filter(|row| !row.built_in)
            .fold(LadderTotals::default(), |totals, row| LadderTotals {
                entrants: totals.entrants + 1,
                counted: totals.counted + row.counted,
                waiting: totals.waiting + row.waiting,
                refused: totals.refused + row.refused,
            })
    }
}

/// The number in `Ladder N is open: ...`.
fn ladder_opened(said: &str) -> Option<i64> {
    let (_, rest) = said.split_once("Ladder ")?;
    let (number, rest) = rest.split_once(' ')?;
    rest.starts_with("is open").then_some(())?;
    number.parse().ok()
}

/// The rows of a `ladder N` table (docs/bots.md, "The table"): `#  entrant  seeds
/// mean  wins  vs-best  waiting [(K refused)]`, the seeds as `counted/of`. The
/// entrant's name may hold spaces (`NAME [bot]`, `NAME (built-in)`), so the columns
/// are found from the seeds.
fn table_rows(table: &str) -> Vec<TableRow> {
    table
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|word| {
                word.split_once('/')
                    .is_some_and(|(a, b)| a.parse::<u64>().is_ok() && b.parse::<u64>().is_ok())
            })?;
            let (counted, of) = words[at].split_once('/')?;
            let waiting = words.get(at + 4)?.parse().ok()?;
            let refused = match words.get(at + 5) {
                Some(word) => word.trim_start_matches('(').parse().ok()?,
                None => 0,
            };
            Some(TableRow {
                built_in: line.contains("(built-in)"),
                counted: counted.parse().ok()?,
                of: of.parse().ok()?,
                waiting,
                refused,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_gives_the_ladders_number() {
        assert_eq!(
            ladder_opened("Ladder 12 is open: Ladder 12: wumpus, seeds 1-3, open.\n> "),
            Some(12)
        );
        assert_eq!(ladder_opened("Only admins can do that.\n> "), None);
        assert_eq!(ladder_opened("Ladder 3: wumpus, seeds 1-3.\n"), None);
    }

    #[test]
    fn table_rows_are_read_by_their_seeds_column() {
        let table = "Ladder 1: wumpus, seeds 1-3, open.\n  #  entrant               seeds  mean score  wins  vs best  waiting\n  1  loadbot-0 [bot]         3/3      -292.0     0   -800.5  0\n  2  ada                     1/3          -2     0        -  2 (1 refused)\n  -  kb (built-in)           3/3       536.0     -        -  0\n> ";
        let rows = table_rows(table);
        assert_eq!(
            rows,
            [
                TableRow {
                    built_in: false,
                    counted: 3,
                    of: 3,
                    waiting: 0,
                    refused: 0
                },
                TableRow {
                    built_in: false,
                    counted: 1,
                    of: 3,
                    waiting: 2,
                    refused: 1
                },
                TableRow {
                    built_in: true,
                    counted: 3,
                    of: 3,
                    waiting: 0,
                    refused: 0
                },
            ]
        );
        let totals = LadderTotals::of(&rows);
        assert_eq!(
            totals,
            LadderTotals {
                entrants: 2,
                counted: 4,
                waiting: 2,
                refused: 1
            }
        );
    }
}
