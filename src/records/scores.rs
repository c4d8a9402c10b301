//! `top`, `stats` and `recordings` (SPEC section 8): what they ask the store, and the
//! text they answer with.
//!
//! The store does the ranking (one line per player, ties to the earlier result);
//! this module parses the commands' words and renders the rows.

use std::fmt::Write as _;

use crate::catalog::table::{Board, GameKind};
use crate::games::{Finish, Outcome};
use crate::store::{Listed, Ranked, RecordingState, Stats, Store, StoreError};
use crate::text::{count, fit, wrap, COLUMNS};

/// Recordings listed by `recordings`.
pub const LISTED: u32 = 20;

/// A question for the store, from the player's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `top`: the leaderboards there are.
    Boards,
    /// `top [bots] GAME [LEVEL]`.
    Top {
        /// The game.
        kind: &'static GameKind,
        /// The level, as the store keys it.
        level: String,
        /// The bots' boards (SPEC section 12: ranked apart from people's).
        bots: bool,
    },
    /// `stats NAME`.
    Stats {
        /// The name in lower case.
        key: String,
    },
    /// `recordings [NAME]`.
    Recordings {
        /// Only this player's (lower case).
        key: Option<String>,
    },
}

/// `top [bots] [GAME [LEVEL...]]`: the query, or the line that says what is wrong.
///
/// # Errors
/// The one-line reason, with the choices.
pub fn parse_top(words: &[&str]) -> Result<Query, String> {
    let (bots, words) = match words.split_first() {
        Some((first, rest)) if first.eq_ignore_ascii_case("bots") => (true, rest),
        _ => (false, words),
    };
    let Some((game, level)) = words.split_first() else {
        return Ok(Query::Boards);
    };
    let kind = GameKind::from_name(game).ok_or_else(|| {
        format!(
            "Unknown game: {game}. Choose one of: {}.",
            GameKind::names()
        )
    })?;
    // The level as `play GAME LEVEL...` would key it: no words, the default level
    // (none for Star Pusher, which then lists its boards).
    let args: Vec<String> = level.iter().map(|word| word.to_string()).collect();
    let level = (kind.level_key)(&args);
    Ok(Query::Top { kind, level, bots })
}

impl Query {
    /// Ask the store; the text to show.
    ///
    /// # Errors
    /// [`StoreError`] from the database.
    pub async fn run(self, store: &Store) -> Result<String, StoreError> {
        match self {
            Query::Boards => Ok(boards(&store.boards().await?)),
            Query::Top { kind, level, .. } if level.is_empty() => {
                // Star Pusher has no default level: list its boards.
                let boards: Vec<_> = store
                    .boards()
                    .await?
                    .into_iter()
                    .filter(|(game, _, _)| game == kind.name)
                    .collect();
                if boards.is_empty() {
                    Ok(format!("No results for {} yet.\n", kind.name))
                } else {
                    Ok(format!(
                        "Type top {} COLLECTION N for one of them.\n{}",
                        kind.name,
                        self::boards(&boards)
                    ))
                }
            }
            Query::Top { kind, level, bots } => {
                let mut text = String::new();
                if bots {
                    text.push_str("Bots' results (people's: top GAME [LEVEL]):\n");
                }
                for &board in kind.boards {
                    let rows = store.top(kind.name, &level, board, bots).await?;
                    top(kind, &level, board, &rows, &mut text);
                }
                Ok(text)
            }
            Query::Stats { key } => Ok(stats(&key, &store.stats(&key).await?)),
            Query::Recordings { key } => {
                let rows = store.recordings(key.as_deref(), LISTED).await?;
                Ok(recordings(key.as_deref(), &rows))
            }
        }
    }
}

/// `top`: every leaderboard with a result.
fn boards(boards: &[(String, String, u64)]) -> String {
    if boards.is_empty() {
        return String::from(
            "No results yet: finish a game with a name (name NAME) to be the first.\n",
        );
    }
    let mut text = String::from("Leaderboards (top GAME LEVEL):\n");
    for (game, level, count) in boards {
        let results = if *count == 1 { "result" } else { "results" };
        let _ = writeln!(
            text,
            "  {:<34} {count} {results}",
            format!("{game} {level}")
        );
    }
    text
}

/// One leaderboard.
fn top(kind: &GameKind, level: &str, board: Board, rows: &[Ranked], text: &mut String) {
    let title = match board {
        Board::Moves => "fewest moves, then pushes",
        Board::Pushes => "fewest pushes, then moves",
        Board::Score => "highest score",
        Board::Gold => "most wins with the gold, then fewest actions",
    };
    let _ = writeln!(text, "{} {level}, {title}:", kind.name);
    if rows.is_empty() {
        text.push_str("  no results yet\n");
        return;
    }
    for (place, row) in rows.iter().enumerate() {
        let what = match board {
            Board::Moves | Board::Pushes => {
                format!(
                    "{}, {}",
                    count(row.moves, "move", "moves"),
                    count(row.pushes, "push", "pushes")
                )
            }
            Board::Score => format!("score {}, tile {}", row.score, row.largest_tile),
            Board::Gold => format!(
                "{}, best in {}",
                count(row.wins, "win", "wins"),
                count(row.moves, "action", "actions")
            ),
        };
        // Help (`/hint`, `/solve`) is said: such a result comes after every one
        // without (SPEC section 13).
        let helped = if row.helped { ", with hints" } else { "" };
        let _ = writeln!(
            text,
            "  {:>2}. {:<16} {what}  ({}{helped})",
            place + 1,
            row.player,
            duration(row.duration_ms)
        );
    }
}

/// `stats NAME`.
fn stats(key: &str, stats: &Stats) -> String {
    let Some(player) = &stats.player else {
        return format!("No games recorded for {key}.\n");
    };
    let mut text = format!(
        "{player}: {} recorded, {} played, {}.\n",
        count(stats.games, "game", "games"),
        duration(stats.played_ms),
        count(
            u64::try_from(stats.results.len()).unwrap_or(u64::MAX),
            "result",
            "results"
        )
    );
    // The best per game and level by the game's main board, in the order first
    // reached.
    let mut best: Vec<(&str, &Finish, Board)> = Vec::new();
    for (game, finish) in &stats.results {
        let Some(&board) = GameKind::from_name(game).and_then(|kind| kind.boards.first()) else {
            continue;
        };
        match best
            .iter_mut()
            .find(|(kept_game, kept, _)| kept_game == game && kept.level == finish.level)
        {
            Some((_, kept, _)) => {
                if board.rank(finish) < board.rank(kept) {
                    *kept = finish;
                }
            }
            None => best.push((game, finish, board)),
        }
    }
    let level = |finish: &Finish| finish.level.clone().unwrap_or_default();
    let solved: Vec<String> = best
        .iter()
        .filter(|(_, finish, _)| finish.outcome == Outcome::Solved)
        .map(|(game, finish, _)| format!("{game} {}", level(finish)))
        .collect();
    if !solved.is_empty() {
        let line = format!("Solved: {}.\n", solved.join(", "));
        text.push_str(&wrap(&line, COLUMNS, "  "));
    }
    if !best.is_empty() {
        text.push_str("Best results:\n");
    }
    for (game, finish, board) in best {
        let _ = writeln!(
            text,
            "  {game} {}: {}",
            level(finish),
            board.describe(finish)
        );
    }
    text
}

/// `recordings [NAME]`.
fn recordings(key: Option<&str>, rows: &[Listed]) -> String {
    if rows.is_empty() {
        return match key {
            Some(key) => format!("No recordings of {key}.\n"),
            None => String::from("No recordings yet.\n"),
        };
    }
    // Two lines a recording, so that each fits 80 columns: what a teacher scans for
    // (who, what, how it ended, when) on the first, the level (a 2048 seed is 20
    // digits) and the time played under it.
    let mut text = String::from("Recordings (replay ID [SPEED]):\n");
    for row in rows {
        let result = how_it_stands(row);
        let level = if row.args.is_empty() {
            String::from("(default level)")
        } else {
            row.args.clone()
        };
        let _ = writeln!(
            text,
            "{:>6}  {:<16} {:<10} {:<10} {:>11}  {}",
            row.id,
            row.player,
            row.game,
            result,
            count(row.inputs, "line", "lines"),
            date(row.started_at)
        );
        let played = duration(row.duration_ms);
        let _ = writeln!(
            text,
            "        {}  {played}",
            fit(&level, COLUMNS - 10 - played.len())
        );
    }
    text
}

/// Where a recording stands in one word, as `recordings` and the web page's list say
/// it: `playing`, `unfinished`, `discarded`, how it ended (`solved`, `won`, ...), or
/// `left`.
pub fn how_it_stands(row: &Listed) -> &'static str {
    match (row.state, row.outcome) {
        (RecordingState::Open, _) => "playing",
        (RecordingState::Unfinished, _) => "unfinished",
        (RecordingState::Discarded, _) => "discarded",
        (RecordingState::Ended, Some(outcome)) => outcome.as_str(),
        (RecordingState::Ended, None) => "left",
    }
}

/// `1h02m`, `3m05s`, `12s`.
pub fn duration(ms: u64) -> String {
    crate::text::clock(std::time::Duration::from_millis(ms))
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM` UTC.
pub fn date(unix_ms: i64) -> String {
    crate::text::date(unix_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_durations() {
        assert_eq!(date(0), "1970-01-01 00:00");
        assert_eq!(date(1_795_000_000_000), "2026-11-18 11:06");
        assert_eq!(duration(59_999), "59s");
        assert_eq!(duration(185_000), "3m05s");
        assert_eq!(duration(3_720_000), "1h02m");
    }

    #[test]
    fn top_words() {
        assert_eq!(parse_top(&[]), Ok(Query::Boards));
        let sokoban = GameKind::from_name("sokoban").unwrap();
        assert_eq!(
            parse_top(&["SOKOBAN"]),
            Ok(Query::Top {
                kind: sokoban,
                level: String::from("classic"),
                bots: false,
            })
        );
        let twenty48 = GameKind::from_name("2048").unwrap();
        for words in [
            &["2048"][..],
            &["2048", "SIZE=4"],
            &["2048", "seed=9", "size=4"],
        ] {
            assert_eq!(
                parse_top(words),
                Ok(Query::Top {
                    kind: twenty48,
                    level: String::from("size=4"),
                    bots: false,
                })
            );
        }
        // Another win value is a board of its own.
        for words in [&["2048", "win=64"][..], &["2048", "size=4", "WIN=64"]] {
            assert_eq!(
                parse_top(words),
                Ok(Query::Top {
                    kind: twenty48,
                    level: String::from("size=4 win=64"),
                    bots: false,
                })
            );
        }
        assert!(parse_top(&["chess"])
            .unwrap_err()
            .starts_with("Unknown game: chess."));
    }
}
