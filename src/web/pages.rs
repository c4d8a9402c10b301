//! The two live pages: `/`, who is playing (for an admin, with watch links and the
//! broadcast and kick forms), and `/watch/NAME`, one player's board. Both are a frame
//! that a script fills from `events.rs`'s streams.

use crate::players::accounts::MAX_CHAT;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::html::{layout, message, page, url_part};
use super::logins::Admin;
use super::state::Shared;

/// `GET /`: the live table; for an admin, watch links and the broadcast and kick
/// forms.
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
            @if let Some(admin) = &admin {
                (admin_forms(admin))
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
