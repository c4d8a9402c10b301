//! The leaderboards, public: `/top` lists every level with a result, and
//! `/top/GAME/LEVEL` shows the best ten of each of the level's boards, as `top` does
//! on telnet, each line linked to the recording that made it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::html::{layout, message, page, store_down, url_part};
use super::logins::Admin;
use super::state::Shared;
use crate::catalog::table::{Board, GameKind};
use crate::records::scores;
use crate::store::Ranked;

/// `GET /top`: every leaderboard with a result.
pub async fn boards(State(web): State<Shared>, admin: Option<Admin>) -> Response {
    let boards = match web.services.store.boards().await {
        Ok(boards) => boards,
        Err(error) => return store_down(&error),
    };
    let body = html! {
        h1 { "Leaderboards" }
        @if boards.is_empty() {
            p { "No results yet: finish a game with a name to be the first." }
        } @else {
            table id="boards" {
                thead { tr { th { "Game" } th { "Level" } th { "Results" } } }
                tbody {
                    @for (game, level, count) in &boards {
                        tr {
                            td { (game) }
                            td {
                                a href={ "/top/" (url_part(game)) "/" (url_part(level)) } {
                                    (level)
                                }
                            }
                            td { (count) }
                        }
                    }
                }
            }
        }
    };
    page(
        StatusCode::OK,
        layout("Leaderboards", admin.as_ref(), body, None),
    )
}

/// `GET /top/GAME/LEVEL`: the best ten of each of the level's boards.
pub async fn top(
    State(web): State<Shared>,
    admin: Option<Admin>,
    Path((game, level)): Path<(String, String)>,
) -> Response {
    let Some(kind) = GameKind::from_name(&game) else {
        return message(
            StatusCode::NOT_FOUND,
            "No such game",
            &format!(
                "Unknown game: {game}. Choose one of: {}.",
                GameKind::names()
            ),
        );
    };
    let mut tables = Vec::with_capacity(kind.boards.len());
    for &board in kind.boards {
        match web
            .services
            .store
            .top(kind.name, &level, board, false)
            .await
        {
            Ok(rows) => tables.push(leaderboard(board, &rows)),
            Err(error) => return store_down(&error),
        }
    }
    let body = html! {
        h1 { (kind.name) " " (level) }
        @for table in tables { (table) }
    };
    page(
        StatusCode::OK,
        layout(
            &format!("{} {level}", kind.name),
            admin.as_ref(),
            body,
            None,
        ),
    )
}

/// One leaderboard as a table.
fn leaderboard(board: Board, rows: &[Ranked]) -> Markup {
    let (title, first, second) = match board {
        Board::Moves => ("Fewest moves, then pushes", "Moves", "Pushes"),
        Board::Pushes => ("Fewest pushes, then moves", "Pushes", "Moves"),
        Board::Score => ("Highest score", "Score", "Largest tile"),
        Board::Gold => (
            "Most wins with the gold, then fewest actions",
            "Wins",
            "Actions",
        ),
    };
    html! {
        h2 { (title) }
        table class="leaderboard" {
            thead {
                tr {
                    th { "#" } th { "Player" } th { (first) } th { (second) }
                    th { "Time" } th { "When" } th { "Recording" }
                }
            }
            tbody {
                @if rows.is_empty() {
                    tr { td colspan="7" { "No results yet." } }
                }
                @for (place, row) in rows.iter().enumerate() {
                    @let (first, second) = match board {
                        Board::Moves => (row.moves, row.pushes),
                        Board::Pushes => (row.pushes, row.moves),
                        Board::Score => (row.score, row.largest_tile),
                        Board::Gold => (row.wins, row.moves),
                    };
                    tr {
                        td { (place + 1) }
                        // Help (`/hint`, `/solve`) is said, as `top` says it.
                        td {
                            (row.player)
                            @if row.helped { " (with hints)" }
                        }
                        td { (first) }
                        td { (second) }
                        td { (scores::duration(row.duration_ms)) }
                        td { (scores::date(row.finished_at)) }
                        td {
                            a href={ "/recordings/" (row.recording_id) } { "watch" }
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

    #[test]
    fn an_empty_board_says_so() {
        assert_eq!(
            leaderboard(Board::Gold, &[]).into_string(),
            "<h2>Most wins with the gold, then fewest actions</h2><table class=\"leaderboard\">\
             <thead><tr><th>#</th><th>Player</th><th>Wins</th><th>Actions</th><th>Time</th>\
             <th>When</th><th>Recording</th></tr></thead><tbody><tr><td colspan=\"7\">No results yet.</td></tr>\
             </tbody></table>"
        );
    }

    #[test]
    fn a_row_is_its_place_and_numbers_and_a_name_is_text() {
        let row = Ranked {
            player: String::from("<i>ann</i>"),
            moves: 18,
            pushes: 3,
            score: 0,
            largest_tile: 0,
            wins: 1,
            duration_ms: 0,
            finished_at: 0,
            recording_id: 42,
            helped: false,
        };
        let table = leaderboard(Board::Pushes, &[row]).into_string();
        assert!(
            table.contains("<tr><td>1</td><td>&lt;i&gt;ann&lt;/i&gt;</td><td>3</td><td>18</td>"),
            "{table}"
        );
        assert!(
            table.contains("<td><a href=\"/recordings/42\">watch</a></td></tr>"),
            "{table}"
        );
    }
}
