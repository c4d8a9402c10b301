//! `/results.csv` (admins): every checked result since a date, for grading, streamed
//! from the store page by page so that a year of a school's results never sits in
//! memory at once. Each row names the recording that reaches the result and the race
//! it was played in, if any.

use std::time::UNIX_EPOCH;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;

use super::logins::Admin;
use super::state::Shared;
use crate::store::Graded;

/// `?since=DATE` of `/results.csv`.
#[derive(Debug, Deserialize)]
pub struct Since {
    since: Option<String>,
}

/// Results read from the store per query while the CSV streams.
const CSV_PAGE: u32 = 1000;

/// The CSV's first line. Columns are only ever added at the end, so that a
/// spreadsheet or script that reads the first ones by position goes on working.
const CSV_HEADER: [&str; 12] = [
    "player",
    "game",
    "level",
    "outcome",
    "moves",
    "pushes",
    "score",
    "seconds",
    "finished_at",
    // The recording that reaches the result (`/recordings/ID`).
    "recording_id",
    // The race it was played in, empty outside a race.
    "race_id",
    // `yes` when reached after `/hint` or `/solve` (SPEC section 13), else `no`.
    "hints_used",
];

/// `GET /results.csv?since=DATE` (admins): every checked result finished since DATE
/// (UTC; a day, or a day and a time), for grading, streamed page by page.
pub async fn results(State(web): State<Shared>, _: Admin, Query(since): Query<Since>) -> Response {
    let since_ms = match since.since.as_deref().map(str::trim) {
        None | Some("") => 0,
        Some(text) => match parse_since(text) {
            Some(ms) => ms,
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    format!(
                        "since={text}: give a day as 2026-11-23, or a day and a time as 2026-11-23T14:00:00 (UTC)\n"
                    ),
                )
                    .into_response()
            }
        },
    };
    let store = web.services.store.clone();
    let header = csv_line(&CSV_HEADER);
    // The state: the last id sent, or None once the store has no more.
    let pages = stream::unfold(Some(0i64), move |after| {
        let store = store.clone();
        async move {
            let after = after?;
            match store.results_since(since_ms, after, CSV_PAGE).await {
                Ok(rows) if rows.is_empty() => None,
                Ok(rows) => {
                    let next = rows.last().map(|row| row.id);
                    let text: String = rows.iter().map(csv_row).collect();
                    Some((Ok::<_, std::io::Error>(text), next))
                }
                Err(error) => {
                    tracing::error!(%error, "results.csv: the database does not answer");
                    Some((Err(std::io::Error::other(error.to_string())), None))
                }
            }
        }
    });
    let body = stream::iter([Ok(header)]).chain(pages);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"arcade-results.csv\"",
            ),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// `2026-11-23` or `2026-11-23T14:00:00` (UTC), as Unix milliseconds.
pub fn parse_since(text: &str) -> Option<i64> {
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else if text.ends_with('Z') {
        text.to_string()
    } else {
        format!("{text}Z")
    };
    let time = humantime::parse_rfc3339_weak(&full).ok()?;
    let since = time.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

fn csv_row(row: &Graded) -> String {
    let seconds = format!("{:.1}", row.duration_ms as f64 / 1000.0);
    csv_line(&[
        &row.player,
        &row.game,
        &row.level,
        &row.outcome,
        &row.moves.to_string(),
        &row.pushes.to_string(),
        &row.score.to_string(),
        &seconds,
        &crate::text::rfc3339(row.finished_at),
        &row.recording_id.to_string(),
        &row.race.map(|race| race.to_string()).unwrap_or_default(),
        if row.helped { "yes" } else { "no" },
    ])
}

/// The characters a spreadsheet may take a field starting with for a formula (OWASP's
/// list: a tab or carriage return first is read past by some).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// One CSV line, quoted where needed by the csv crate. A field that a spreadsheet
/// would take for a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first)
/// gets a `'` before it, as OWASP advises, unless it is a plain number (`-12`,
/// `+3.5`): a player's name or a level's must not run in the teacher's spreadsheet.
pub fn csv_line(fields: &[&str]) -> String {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let guarded: Vec<String> = fields
        .iter()
        .map(|field| {
            if field.starts_with(FORMULA_STARTS) && !is_plain_number(field) {
                format!("'{field}")
            } else {
                field.to_string()
            }
        })
        .collect();
    // Writing to memory cannot fail.
    let _ = writer.write_record(&guarded);
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A sign, digits, and at most one decimal point among them: what a spreadsheet reads
/// as a number and nothing else. Not Rust's float syntax, which also takes `-inf`,
/// `+NaN` and `-1e999`.
fn is_plain_number(field: &str) -> bool {
    let digits = field.strip_prefix(['-', '+']).unwrap_or(field);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    !whole.is_empty()
        && whole.bytes().all(|byte| byte.is_ascii_digit())
        && fraction.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_day_or_a_day_and_time_in_utc() {
        assert_eq!(parse_since("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_since("1970-01-01T00:01:00"), Some(60_000));
        assert_eq!(parse_since("1970-01-01 00:01:00"), Some(60_000));
        assert_eq!(parse_since("yesterday"), None);
        assert_eq!(parse_since("2026-13-01"), None);
        assert_eq!(crate::text::rfc3339(86_400_000), "1970-01-02T00:00:00Z");
    }

    #[test]
    fn a_row_ends_with_its_recording_and_race() {
        let mut graded = Graded {
            id: 1,
            player: String::from("ann"),
            game: String::from("sokoban"),
            level: String::from("classic"),
            outcome: String::from("solved"),
            moves: 18,
            pushes: 3,
            score: 0,
            duration_ms: 2500,
            finished_at: 86_400_000,
            recording_id: 12,
            race: None,
            helped: false,
        };
        assert_eq!(
            csv_row(&graded),
            "ann,sokoban,classic,solved,18,3,0,2.5,1970-01-02T00:00:00Z,12,,no\r\n"
        );
        graded.race = Some(4);
        assert!(csv_row(&graded).ends_with(",12,4,no\r\n"));
        assert_eq!(CSV_HEADER.len(), csv_row(&graded).split(',').count());
    }

    #[test]
    fn csv_fields_are_quoted_and_formulas_defused() {
        assert_eq!(csv_line(&["a", "b c", "x,y"]), "a,b c,\"x,y\"\r\n");
        assert_eq!(csv_line(&["=cmd()", "-12", "@x"]), "'=cmd(),-12,'@x\r\n");
        // A sign first: a plain number as it is, anything else guarded.
        assert_eq!(
            csv_line(&[
                "+3.5",
                "-0",
                "-inf",
                "+NaN",
                "-1e999",
                "-2+3",
                "+cmd|' /C calc'!A0"
            ]),
            "+3.5,-0,'-inf,'+NaN,'-1e999,'-2+3,'+cmd|' /C calc'!A0\r\n"
        );
        assert_eq!(csv_line(&["-", "+", "-.5", "\t=1"]), "'-,'+,'-.5,'\t=1\r\n");
    }
}
