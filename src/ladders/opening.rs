//! `ladder open GAME seeds=A-B [move=TIME] [until=DATE] [humans on|off]`: the admin's
//! words, read into an [`Opening`] or refused with what to type instead.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::seeds::SEEDED_GAMES;

/// The most seeds one ladder has: a ladder's seeds are played one game each by every
/// entrant, and its baselines are computed for every seed.
pub const MAX_SEEDS: u64 = 10_000;

/// The shortest time per move: a round trip on a class's network.
pub const MIN_MOVE: Duration = Duration::from_millis(10);

/// The longest time per move.
pub const MAX_MOVE: Duration = Duration::from_secs(600);

/// A ladder as an admin asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// The game (one of [`SEEDED_GAMES`]).
    pub game: &'static str,
    /// The first and the last seed.
    pub seeds: (u64, u64),
    /// The time per move; `None`: no clock.
    pub move_limit: Option<Duration>,
    /// When entering stops, in Unix milliseconds; `None`: until closed.
    pub until: Option<i64>,
    /// Whether people may enter (bots always may).
    pub humans: bool,
}

/// Why the words do not open a ladder: the whole sentence to say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadOpening(String);

/// How `ladder open` is typed.
pub const USAGE: &str =
    "Usage: ladder open GAME seeds=A-B [move=200ms] [until=2026-12-01] [humans on|off]";

fn bad(text: impl Into<String>) -> BadOpening {
    BadOpening(text.into())
}

/// Read the words after `ladder open`; `now_ms` is the time now, which `until` must
/// be after.
///
/// # Errors
/// [`BadOpening`] saying what is wrong.
pub fn parse(words: &[&str], now_ms: i64) -> Result<Opening, BadOpening> {
    let Some((game, rest)) = words.split_first() else {
        return Err(bad(USAGE));
    };
    let game = SEEDED_GAMES
        .into_iter()
        .find(|name| name.eq_ignore_ascii_case(game))
        .ok_or_else(|| {
            bad(format!(
                "A ladder is played on 2048, wumpus (random worlds) or starpusher (level numbers), not {game}."
            ))
        })?;
    let mut seeds = None;
    let mut move_limit = None;
    let mut until = None;
    let mut humans = true;
    let mut rest = rest.iter();
    while let Some(word) = rest.next() {
        let lower = word.to_ascii_lowercase();
        if lower == "humans" {
            humans = match rest.next().map(|w| w.to_ascii_lowercase()).as_deref() {
                Some("on") => true,
                Some("off") => false,
                _ => return Err(bad("humans takes on or off.")),
            };
            continue;
        }
        let Some((key, value)) = lower.split_once('=') else {
            return Err(bad(format!("Unknown word {word}. {USAGE}")));
        };
        match key {
            "seeds" => seeds = Some(parse_seeds(value)?),
            "move" => move_limit = Some(parse_move(value)?),
            "until" => until = Some(parse_until(value, now_ms)?),
            _ => return Err(bad(format!("Unknown setting {key}. {USAGE}"))),
        }
    }
    let seeds = seeds.ok_or_else(|| bad(format!("Which seeds? {USAGE}")))?;
    Ok(Opening {
        game,
        seeds,
        move_limit,
        until,
        humans,
    })
}

/// `A-B` (or `N`): at most [`MAX_SEEDS`] seeds, each within the store's integers.
fn parse_seeds(text: &str) -> Result<(u64, u64), BadOpening> {
    let (first, last) = super::seeds::range(text).ok_or_else(|| {
        bad(format!(
            "seeds={text}: give A-B with A <= B, such as seeds=1-100."
        ))
    })?;
    if last - first >= MAX_SEEDS {
        return Err(bad(format!("A ladder has at most {MAX_SEEDS} seeds.")));
    }
    Ok((first, last))
}

/// `200ms`, `2s`: within [`MIN_MOVE`] and [`MAX_MOVE`].
fn parse_move(text: &str) -> Result<Duration, BadOpening> {
    let limit = humantime::parse_duration(text).map_err(|_| {
        bad(format!(
            "move={text}: give a time such as move=200ms or move=5s."
        ))
    })?;
    if !(MIN_MOVE..=MAX_MOVE).contains(&limit) {
        return Err(bad(format!(
            "move={text}: the time per move is 10ms to 10m."
        )));
    }
    Ok(limit)
}

/// `2026-12-01` (the end of that day, UTC) or `2026-12-01T18:00:00` (UTC): after now.
fn parse_until(text: &str, now_ms: i64) -> Result<i64, BadOpening> {
    let wrong = || {
        bad(format!("until={text}: give a date such as until=2026-12-01 or until=2026-12-01T18:00:00 (UTC)."))
    };
    let time = if text.len() == 10 {
        humantime::parse_rfc3339_weak(&format!("{text}T23:59:59")).map_err(|_| wrong())?
    } else {
        humantime::parse_rfc3339_weak(&text.to_ascii_uppercase()).map_err(|_| wrong())?
    };
    let ms = time
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|since| i64::try_from(since.as_millis()).ok())
        .ok_or_else(wrong)?;
    if ms <= now_ms {
        return Err(bad(format!("until={text} has passed.")));
    }
    Ok(ms)
}

/// The time now in Unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|since| i64::try_from(since.as_millis()).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_790_000_000_000; // 2026-09

    fn open(words: &str) -> Result<Opening, BadOpening> {
        parse(&words.split_whitespace().collect::<Vec<_>>(), NOW)
    }

    #[test]
    fn the_spec_example_opens() {
        let opening = open("wumpus seeds=1-100 move=200ms").unwrap();
        assert_eq!(
            opening,
            Opening {
                game: "wumpus",
                seeds: (1, 100),
                move_limit: Some(Duration::from_millis(200)),
                until: None,
                humans: true,
            }
        );
        let opening = open("2048 SEEDS=5 until=2026-12-01 humans off").unwrap();
        assert_eq!(opening.seeds, (5, 5));
        assert!(!opening.humans);
        assert_eq!(
            opening.until.map(crate::text::rfc3339).as_deref(),
            Some("2026-12-01T23:59:59Z")
        );
    }

    #[test]
    fn wrong_words_say_what_to_type() {
        for (words, says) in [
            ("", "Usage"),
            ("sokoban seeds=1-3", "not sokoban"),
            ("wumpus", "Which seeds"),
            ("wumpus seeds=9-1", "A <= B"),
            ("wumpus seeds=1-20000", "at most 10000"),
            ("wumpus seeds=1-3 move=1ms", "10ms to 10m"),
            ("wumpus seeds=1-3 move=soon", "move=200ms"),
            ("wumpus seeds=1-3 until=2020-01-01", "has passed"),
            ("wumpus seeds=1-3 until=tomorrow", "until=2026-12-01"),
            ("wumpus seeds=1-3 humans maybe", "on or off"),
            ("wumpus seeds=1-3 colour=red", "Unknown setting"),
        ] {
            let error = open(words).unwrap_err().to_string();
            assert!(error.contains(says), "{words}: {error}");
        }
    }
}
