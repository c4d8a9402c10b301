//! The ladders (SPEC section 12), public as `ladders` and `ladder N` are on telnet:
//! `/ladders` lists them (open first, then closed, newest first), `/ladders/N` shows
//! a ladder's heading and table as `ladder N` prints them, and `/ladders/N.csv`
//! (admins, `ladder_csv.rs`) every seed played.
//!
//! The table is `records::ladder_tables::table`'s, read through
//! `records::ladder_cache` (one read at a time, shared by every reader for a moment): the numbers are `ladder N`'s,
//! not computed again. An open ladder's page loads itself again every
//! [`REFRESH_SECONDS`]: a ladder changes when a result is kept or checked in the
//! store, which has no stream to follow, so a reload is what a stream would be, at
//! the cost of one shared read. For an admin, an entrant playing a game now links to
//! their board (`/watch/NAME`), as the live table's rows do.

use axum::extract::{ConnectInfo, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::auth::Refusal;
use super::connection::Peer;
use super::html::{layout, message, page, refreshing, store_down, url_part};
use super::ladder_csv;
use super::logins::Admin;
use super::state::{Shared, Web};
use crate::console::commands::ladder::heading;
use crate::ladders::table::Row;
use crate::records::ladder_cache::LadderTable;
use crate::records::recorder::now_ms;
use crate::store::Ladder;

/// How often an open ladder's page loads itself again, in seconds.
pub const REFRESH_SECONDS: u64 = 5;

/// Closed ladders listed at most (the newest): ladders are never deleted, and an
/// older one is still at `/ladders/N`.
pub const MAX_CLOSED: usize = 50;

/// Rows of a ladder's table shown at most (the first places): entrants are a class,
/// or a few programs; the CSV has every one.
pub const MAX_ROWS: usize = 200;

/// Whether `ladder` still takes entrants at `now_ms`: not closed, its deadline not
/// passed (as `ladder enter` decides).
fn is_open(ladder: &Ladder, now_ms: i64) -> bool {
    ladder.closed_at.is_none() && ladder.until.is_none_or(|until| until > now_ms)
}

/// `GET /ladders`: the ladders, open first, then the newest closed ones.
pub async fn list(State(web): State<Shared>, admin: Option<Admin>) -> Response {
    let ladders = match web.services.store.ladders(true).await {
        Ok(ladders) => ladders,
        Err(error) => return store_down(&error),
    };
    let now = now_ms();
    // The store gives them newest first; the partition keeps that order.
    let (open, closed): (Vec<&Ladder>, Vec<&Ladder>) =
        ladders.iter().partition(|ladder| is_open(ladder, now));
    let older = closed.len().saturating_sub(MAX_CLOSED);
    let body = html! {
        h1 { "Ladders" }
        p class="muted" {
            "Every entrant, bot or person, plays the same seeds of one game; each result counts once the server has replayed it, and the table ranks the entrants against each other and against the built-in agents seed by seed. On telnet: "
            code { "ladders" } ", " code { "ladder N" } ", " code { "ladder enter N" } "."
        }
        h2 { "Open" }
        @if open.is_empty() {
            p id="none-open" {
                "No ladder is open. An admin opens one over telnet: "
                code { "ladder open GAME seeds=A-B" } "."
            }
        } @else {
            (ladder_list("open", &open))
        }
        @if !closed.is_empty() {
            h2 { "Closed" }
            (ladder_list("closed", &closed[..closed.len() - older]))
            @if older > 0 {
                p class="muted" { "And " (older) " older ones: /ladders/N shows ladder N." }
            }
        }
    };
    page(
        StatusCode::OK,
        layout("Ladders", admin.as_ref(), body, None),
    )
}

/// Ladders as a list of their headings, each a link to its table.
fn ladder_list(id: &str, ladders: &[&Ladder]) -> Markup {
    html! {
        ul id=(id) {
            @for ladder in ladders {
                li { a href={ "/ladders/" (ladder.id) } { (heading(ladder)) } }
            }
        }
    }
}

/// `GET /ladders/N` (the table) and `GET /ladders/N.csv` (admins: every seed).
pub async fn ladder(
    State(web): State<Shared>,
    admin: Option<Admin>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    Path(id): Path<String>,
) -> Response {
    let (number, csv) = match id.strip_suffix(".csv") {
        Some(number) => (number, true),
        None => (id.as_str(), false),
    };
    let Some(number) = number.parse::<i64>().ok().filter(|n| *n > 0) else {
        return message(
            StatusCode::NOT_FOUND,
            "No such ladder",
            "Ladders are numbered: /ladders/1. /ladders lists them.",
        );
    };
    // The CSV is the admins': a visitor is refused before anything is read.
    if csv && admin.is_none() {
        return Refusal::NotAdmin.into_response();
    }
    let table = match web
        .services
        .ladder_tables
        .table(&web.services.store, number)
        .await
    {
        Ok(Some(table)) => table,
        Ok(None) => {
            return message(
                StatusCode::NOT_FOUND,
                "No such ladder",
                &format!("There is no ladder {number}: /ladders lists them."),
            )
        }
        Err(error) => return store_down(&error),
    };
    if csv {
        return ladder_csv::csv(&web, peer, table).await;
    }
    table_page(&web, admin.as_ref(), &table)
}

/// A ladder's heading and table; for an admin, the watch links and the CSV's.
fn table_page(web: &Web, admin: Option<&Admin>, table: &LadderTable) -> Response {
    let ladder = &table.ladder;
    let open = is_open(ladder, now_ms());
    let shown = &table.rows[..table.rows.len().min(MAX_ROWS)];
    let more = table.rows.len() - shown.len();
    let body = html! {
        h1 id="heading" { (heading(ladder)) }
        p class="muted" {
            "Seeds: those that count of the ladder's. Mean score over them. vs best: the mean of the entrant's score minus the best built-in agent's on the same seed, so luck cancels out. Waiting: results whose replay has not run yet; refused: results whose replay disagreed, never counted."
            @if open { " This page refreshes every " (REFRESH_SECONDS) " seconds." }
        }
        @if !table.rows.iter().any(|row| !row.agent) {
            p id="no-entrants" {
                "No entrant yet: " code { "ladder enter " (ladder.id) } " plays it."
                @if table.rows.is_empty() { " The built-in agents' scores follow as they are played." }
            }
        }
        @if !table.rows.is_empty() {
            @if admin.is_some() {
                (rows_table(shown, table.seeds, Some(|name: &str| playing(web, name))))
            } @else {
                (rows_table(shown, table.seeds, None::<fn(&str) -> bool>))
            }
            @if more > 0 {
                p class="muted" { "And " (more) " more below these." }
            }
        }
        @if admin.is_some() {
            p { a id="csv" href={ "/ladders/" (ladder.id) ".csv" } { "Every seed played (CSV)" } }
        }
    };
    let title = format!("Ladder {}", ladder.id);
    let markup = if open {
        refreshing(&title, admin, body, REFRESH_SECONDS)
    } else {
        layout(&title, admin, body, None)
    };
    page(StatusCode::OK, markup)
}

/// Whether `name` is online and playing a game now (its board can be watched).
fn playing(web: &Web, name: &str) -> bool {
    let registry = &web.services.registry;
    registry
        .find(name)
        .is_some_and(|(session, _, _)| registry.is_playing(session))
}

/// The ranked rows, as `ladder N` prints them. For an admin, `playing` says who is
/// playing now: their row links to their board.
fn rows_table(rows: &[Row], seeds: u64, playing: Option<impl Fn(&str) -> bool>) -> Markup {
    let admin = playing.is_some();
    let mut place = 0;
    html! {
        table id="table" {
            thead {
                tr {
                    th { "#" } th { "Entrant" } th { "Seeds" } th { "Mean score" } th { "Wins" }
                    th { "vs best" } th { "Waiting" } th { "Refused" }
                    @if admin { th { "Now" } }
                }
            }
            tbody {
                @for row in rows {
                    @let rank = if row.agent { String::from("-") } else { place += 1; place.to_string() };
                    tr {
                        td { (rank) }
                        td class="entrant" {
                            (row.entrant)
                            @if row.agent { " (built-in)" } @else if row.bot { " [bot]" }
                        }
                        td { (row.counted) "/" (seeds) }
                        td { (row.mean.map_or_else(|| String::from("-"), |mean| format!("{mean:.1}"))) }
                        td { @if row.agent { "-" } @else { (row.wins) } }
                        td { (row.vs_best.map_or_else(|| String::from("-"), |vs| format!("{vs:+.1}"))) }
                        td { (row.pending) }
                        td { (row.refused) }
                        @if admin {
                            td {
                                @if !row.agent && playing.as_ref().is_some_and(|playing| playing(&row.entrant)) {
                                    a href={ "/watch/" (url_part(&row.entrant)) } { "watch" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(closed_at: Option<i64>, until: Option<i64>) -> Ladder {
        Ladder {
            id: 3,
            game: String::from("wumpus"),
            first_seed: 1,
            last_seed: 100,
            move_ms: Some(200),
            until,
            humans: false,
            opened_by: String::from("teacher"),
            opened_at: 0,
            closed_at,
        }
    }

    #[test]
    fn a_ladder_is_open_until_closed_or_past_its_deadline() {
        assert!(is_open(&ladder(None, None), 10));
        assert!(is_open(&ladder(None, Some(11)), 10));
        assert!(!is_open(&ladder(None, Some(10)), 10));
        assert!(!is_open(&ladder(Some(5), None), 10));
    }

    fn row(entrant: &str, bot: bool, agent: bool, mean: Option<f64>) -> Row {
        Row {
            entrant: entrant.to_string(),
            bot,
            agent,
            counted: 2,
            pending: 1,
            refused: 0,
            forfeits: 0,
            mean,
            wins: 1,
            vs_best: mean.map(|mean| mean - 10.0),
        }
    }

    #[test]
    fn the_rows_read_as_ladder_n_prints_them_and_a_name_is_text() {
        let rows = [
            row("kb", true, true, Some(12.3)),
            row("<b>ann</b>", false, false, Some(-1.0)),
            row("ada-bot", true, false, None),
        ];
        let visitor = rows_table(&rows, 3, None::<fn(&str) -> bool>).into_string();
        assert!(
            visitor.contains(
                "<tr><td>-</td><td class=\"entrant\">kb (built-in)</td><td>2/3</td>\
                 <td>12.3</td><td>-</td><td>+2.3</td><td>1</td><td>0</td></tr>"
            ),
            "{visitor}"
        );
        assert!(
            visitor.contains(
                "<tr><td>1</td><td class=\"entrant\">&lt;b&gt;ann&lt;/b&gt;</td><td>2/3</td>\
                 <td>-1.0</td><td>1</td><td>-11.0</td>"
            ),
            "{visitor}"
        );
        assert!(
            visitor.contains("<td>2</td><td class=\"entrant\">ada-bot [bot]</td>"),
            "{visitor}"
        );
        assert!(
            !visitor.contains("<b>") && !visitor.contains("watch"),
            "{visitor}"
        );
        // An admin sees who is playing now, with a link to the board.
        let admin = rows_table(&rows, 3, Some(|name: &str| name == "ada-bot")).into_string();
        assert!(
            admin.contains("<td><a href=\"/watch/ada-bot\">watch</a></td></tr>"),
            "{admin}"
        );
        assert_eq!(admin.matches("/watch/").count(), 1, "{admin}");
    }

    #[test]
    fn the_list_links_each_heading_to_its_table() {
        let open = ladder(None, None);
        let list = ladder_list("open", &[&open]).into_string();
        assert_eq!(
            list,
            "<ul id=\"open\"><li><a href=\"/ladders/3\">\
             Ladder 3: wumpus, seeds 1-100, 200ms a move, bots only, open</a></li></ul>"
        );
    }
}
