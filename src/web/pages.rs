//! The two live pages: `/`, who is playing and the races (for an admin, with watch
//! links, the broadcast and kick forms, a race for the class and the levels' reload),
//! and `/watch/NAME`, one player's board. Both are a frame that a script fills from
//! `events.rs`'s streams.

use crate::players::accounts::MAX_CHAT;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::html::{layout, message, page, url_part};
use super::logins::Admin;
use super::state::{Shared, Web};
use crate::catalog::table::GAMES;

/// `GET /`: the live table and the races; for an admin, watch links, the broadcast
/// and kick forms, the race for the class and the levels' reload.
pub async fn live(
    State(web): State<Shared>,
    admin: Option<Admin>,
    RawQuery(query): RawQuery,
) -> Response {
    let all = super::live::asks_all(query.as_deref());
    let notice = admin
        .as_ref()
        .and_then(|admin| web.logins.take_notice(admin));
    let body = html! {
        div id="live" data-admin=(u8::from(admin.is_some())) data-all=(u8::from(all)) {
            @if let Some(notice) = notice {
                p class="notice" id="notice" { (notice) }
            }
            h1 { "Who is playing" }
            p id="status" { "Connecting…" }
            table id="sessions" {
                thead {
                    tr {
                        th { "Name" } th { "Where" } th { "Game" } th { "Level" }
                        th { "Moves or score" } th { "Idle" } th { "Watchers" }
                    }
                }
                tbody {}
            }
            h2 { "Races" }
            div id="races" { p class="muted" { "No races are open." } }
            @if let Some(admin) = &admin {
                (admin_forms(admin))
                (race_forms(&web, admin))
            }
        }
    };
    page(
        StatusCode::OK,
        layout("Who is playing", admin.as_ref(), body, Some("live.js")),
    )
}

/// The broadcast and kick forms under the live table (`forms.rs` answers them).
fn admin_forms(admin: &Admin) -> Markup {
    html! {
        h2 { "Tell everyone" }
        form method="post" action="/admin/broadcast" id="broadcast" {
            input type="hidden" name="csrf" value=(admin.csrf);
            input name="text" id="broadcast-text" maxlength=(MAX_CHAT) size="60" required;
            " "
            button type="submit" { "Broadcast" }
        }
        h2 { "Disconnect a player" }
        form method="post" action="/admin/kick" id="kick" {
            input type="hidden" name="csrf" value=(admin.csrf);
            label { "Name " input name="name" id="kick-name" required; }
            " "
            label { "Why " input name="why" id="kick-why" maxlength=(MAX_CHAT); }
            " "
            button type="submit" { "Kick" }
        }
    }
}

/// The forms for a race for everyone (open, start) with what the admin's races
/// said lately, and the levels' reload (`forms.rs` answers them).
fn race_forms(web: &Web, admin: &Admin) -> Markup {
    let hosting = web.hosts.race(&web.services.registry, &admin.name);
    let news = web.hosts.news(&admin.name);
    html! {
        h2 { "Race for the class" }
        p class="muted" {
            "As telnet's " code { "race GAME [ARGS] [time=5m] all" } ": everyone in the lobby is invited; you host the race without racing."
        }
        form method="post" action="/admin/race" id="race" {
            input type="hidden" name="csrf" value=(admin.csrf);
            label {
                "Game "
                select name="game" id="race-game" {
                    @for kind in GAMES { option value=(kind.name) { (kind.name) } }
                }
            } " "
            label { "Level and options " input name="args" id="race-args" size="20" maxlength=(MAX_CHAT); } " "
            label { "Time limit " input name="time" id="race-time" size="5" maxlength="10" placeholder="5m"; } " "
            button type="submit" { "Open the race" }
        }
        @if let Some(race) = hosting {
            form method="post" action="/admin/start" id="start" {
                input type="hidden" name="csrf" value=(admin.csrf);
                "You host race " (race) ". "
                button type="submit" { "Start race " (race) }
            }
            form method="post" action="/admin/leave" id="leave" {
                input type="hidden" name="csrf" value=(admin.csrf);
                "Not hosting it after all (telnet's " code { "leave" } "): "
                button type="submit" { "Leave race " (race) }
            }
        }
        @if !news.is_empty() {
            h3 { "What your races said" }
            pre id="race-news" { @for line in &news { (line) "\n" } }
        }
        h2 { "Levels" }
        form method="post" action="/admin/reload" id="reload" {
            input type="hidden" name="csrf" value=(admin.csrf);
            "Read the levels again from disk (telnet's " code { "reload" } "): games being played keep theirs. "
            button type="submit" { "Reload levels" }
        }
    }
}

/// `GET /watch/NAME` (admins): the player's board, live.
pub async fn watch(State(web): State<Shared>, admin: Admin, Path(name): Path<String>) -> Response {
    let Some((_, name, _)) = web.services.registry.find(&name) else {
        return message(
            StatusCode::NOT_FOUND,
            "Not online",
            &format!("No player called {name} is online."),
        );
    };
    let body = html! {
        h1 { "Watching " (name.as_str()) }
        p id="status" { "Connecting…" }
        pre id="screen" data-events={ "/watch/" (url_part(name.as_str())) "/events" } {}
    };
    page(
        StatusCode::OK,
        layout(
            &format!("Watching {name}"),
            Some(&admin),
            body,
            Some("watch.js"),
        ),
    )
}
