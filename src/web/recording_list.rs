//! `/recordings`: the recordings, newest first, a page of [`PAGE`] at a time, found by
//! player, game, level and day (a GET form, so a filtered list is a link to keep or
//! send). Each row links to `/recordings/ID`, where it plays.
//!
//! Who sees what follows `recordings.rs`: registered players' recordings are public,
//! a guest's are listed for admins only. The filters are read and checked here, and
//! applied by the store's query (`Store::find_recordings`), never after it: a page is
//! always [`PAGE`] rows of what was asked for.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use serde::Deserialize;

use super::csv::parse_since;
use super::html::{layout, page, store_down, url_part};
use super::logins::Admin;
use super::state::Shared;
use crate::catalog::table::{GameKind, GAMES};
use crate::records::scores;
use crate::store::{Listed, RecordingFilter};

/// Rows on one page of the list: a class's morning fits on a few.
pub const PAGE: u32 = 50;

/// The longest filter value looked at: a name, a level's name.
const MAX_FILTER: usize = 100;

/// One day, in milliseconds.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The form's fields, as typed (each may be missing or empty: not filtered).
#[derive(Debug, Default, Deserialize)]
pub struct Filters {
    #[serde(default)]
    player: String,
    #[serde(default)]
    game: String,
    #[serde(default)]
    level: String,
    #[serde(default)]
    date: String,
    /// The next page: ids below this one.
    before: Option<i64>,
}

/// Why the filters cannot be used, in words for the page.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum BadFilter {
    #[error("Unknown game: {0}. Choose one of: {games}.", games = GameKind::names())]
    Game(String),
    #[error("Give the day as 2026-11-23 (UTC).")]
    Date,
    #[error("A filter is at most {MAX_FILTER} characters.")]
    TooLong,
    /// A level alone would make the store walk every recording (the index is by game,
    /// then level): a level is some game's.
    #[error("Choose the game too: a level is a game's (sokoban classic, 2048 size=4).")]
    LevelWithoutGame,
}

impl Filters {
    /// The store's filter for what was typed; guests' recordings only for an admin.
    fn to_filter(&self, admin: bool) -> Result<RecordingFilter, BadFilter> {
        let text = |value: &str| -> Result<Option<String>, BadFilter> {
            let value = value.trim();
            if value.chars().count() > MAX_FILTER {
                return Err(BadFilter::TooLong);
            }
            Ok((!value.is_empty()).then(|| value.to_string()))
        };
        let game = match text(&self.game)? {
            Some(game) => Some(
                GameKind::from_name(&game)
                    .ok_or(BadFilter::Game(game))?
                    .name
                    .to_string(),
            ),
            None => None,
        };
        let (from_ms, until_ms) = match text(&self.date)? {
            Some(day) if day.len() == 10 => {
                let from = parse_since(&day).ok_or(BadFilter::Date)?;
                (Some(from), Some(from.saturating_add(DAY_MS)))
            }
            Some(_) => return Err(BadFilter::Date),
            None => (None, None),
        };
        let level = text(&self.level)?;
        if level.is_some() && game.is_none() {
            return Err(BadFilter::LevelWithoutGame);
        }
        Ok(RecordingFilter {
            player_key: text(&self.player)?.map(|name| name.to_lowercase()),
            game,
            level,
            from_ms,
            until_ms,
            registered_only: !admin,
            before_id: self.before,
        })
    }

    /// This list's address with `before` set: the next page.
    fn next_page(&self, before: i64) -> String {
        let mut url = String::from("/recordings?");
        for (name, value) in [
            ("player", &self.player),
            ("game", &self.game),
            ("level", &self.level),
            ("date", &self.date),
        ] {
            if !value.trim().is_empty() {
                url.push_str(&format!("{name}={}&", url_part(value.trim())));
            }
        }
        url.push_str(&format!("before={before}"));
        url
    }
}

/// `GET /recordings?player=&game=&level=&date=`: the recordings found, newest first.
pub async fn list(
    State(web): State<Shared>,
    admin: Option<Admin>,
    Query(filters): Query<Filters>,
) -> Response {
    // For an admin, what was played before the page was asked for is in it: a game
    // just ended is listed as ended, as telnet's `recordings` lists it (one flush
    // serves every asker at once; past 2 s the database is slow). Not for anyone:
    // a visitor asking again and again would turn the writer's once-a-second batch
    // into a commit per request.
    if admin.is_some() {
        web.services
            .recorder
            .flush(std::time::Duration::from_secs(2))
            .await;
    }
    let (status, found) = match filters.to_filter(admin.is_some()) {
        Ok(filter) => match web.services.store.find_recordings(&filter, PAGE).await {
            Ok(rows) => (StatusCode::OK, Ok(rows)),
            Err(error) => return store_down(&error),
        },
        Err(bad) => (StatusCode::BAD_REQUEST, Err(bad)),
    };
    let body = html! {
        h1 { "Recordings" }
        (form(&filters))
        @match &found {
            Err(bad) => { p class="problem" id="problem" { (bad) } }
            Ok(rows) if rows.is_empty() => { p id="none" { "No recordings match." } }
            Ok(rows) => {
                (table(rows))
                @if rows.len() == PAGE as usize {
                    @if let Some(last) = rows.last() {
                        p { a id="older" href=(filters.next_page(last.id)) { "Older recordings" } }
                    }
                }
            }
        }
        @if admin.is_none() {
            p class="muted" { "Guests' recordings are listed for admins only." }
        }
    };
    page(status, layout("Recordings", admin.as_ref(), body, None))
}

/// The filters' form, filled with what was asked.
fn form(filters: &Filters) -> Markup {
    html! {
        form method="get" action="/recordings" id="filters" {
            label { "Player " input name="player" id="player" value=(filters.player) maxlength=(MAX_FILTER) size="12"; } " "
            label {
                "Game "
                select name="game" id="game" {
                    option value="" { "any" }
                    @for kind in GAMES {
                        option value=(kind.name)
                            selected[filters.game.trim().eq_ignore_ascii_case(kind.name)] { (kind.name) }
                    }
                }
            } " "
            label { "Level " input name="level" id="level" value=(filters.level) maxlength=(MAX_FILTER) size="12"; } " "
            label { "Day " input name="date" id="date" type="date" value=(filters.date); } " "
            button type="submit" id="find" { "Find" }
        }
    }
}

/// The recordings found, each linked to its page.
fn table(rows: &[Listed]) -> Markup {
    html! {
        table id="recordings" {
            thead {
                tr {
                    th { "#" } th { "Player" } th { "Game" } th { "Level" } th { "How" }
                    th { "Lines" } th { "Time" } th { "Started" }
                }
            }
            tbody {
                @for row in rows {
                    tr {
                        td { a href={ "/recordings/" (row.id) } { (row.id) } }
                        td { (row.player) }
                        td { (row.game) }
                        // The level the filter matches (what `top` names it), what
                        // was typed on hover; a recording older than the level
                        // column shows what was typed.
                        td title=(row.args) { (row.level.as_deref().unwrap_or(&row.args)) }
                        td { (scores::how_it_stands(row)) }
                        td { (row.inputs) }
                        td { (scores::duration(row.duration_ms)) }
                        td { (scores::date(row.started_at)) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(player: &str, game: &str, level: &str, date: &str) -> Filters {
        Filters {
            player: player.to_string(),
            game: game.to_string(),
            level: level.to_string(),
            date: date.to_string(),
            before: None,
        }
    }

    #[test]
    fn what_was_typed_becomes_the_stores_filter() {
        let filter = typed(" Ann ", "SOKOBAN", "classic", "1970-01-02")
            .to_filter(false)
            .unwrap();
        assert_eq!(
            filter,
            RecordingFilter {
                player_key: Some(String::from("ann")),
                game: Some(String::from("sokoban")),
                level: Some(String::from("classic")),
                from_ms: Some(DAY_MS),
                until_ms: Some(2 * DAY_MS),
                registered_only: true,
                before_id: None,
            }
        );
        assert_eq!(
            typed("", "", "", "").to_filter(true).unwrap(),
            RecordingFilter::default()
        );
        assert!(matches!(
            typed("", "chess", "", "").to_filter(true),
            Err(BadFilter::Game(_))
        ));
        assert_eq!(
            typed("", "", "", "monday").to_filter(true),
            Err(BadFilter::Date)
        );
        assert_eq!(
            typed(&"x".repeat(101), "", "", "").to_filter(true),
            Err(BadFilter::TooLong)
        );
        // A level alone would walk every recording: its game is asked for.
        assert_eq!(
            typed("", "", "classic", "").to_filter(true),
            Err(BadFilter::LevelWithoutGame)
        );
        assert!(typed("", "sokoban", "classic", "").to_filter(true).is_ok());
    }

    #[test]
    fn the_next_page_keeps_the_filters_escaped() {
        assert_eq!(
            typed("a&b", "", "x y", "").next_page(7),
            "/recordings?player=a%26b&level=x%20y&before=7"
        );
    }
}
