//! The admin's forms under the live table: `POST /admin/broadcast`,
//! `POST /admin/kick`, `POST /admin/race`, `POST /admin/start`, `POST /admin/leave`
//! and `POST /admin/reload` run telnet's `broadcast`, `kick`, `race ... all`, `start`,
//! `leave` and `reload` (their own code), then send the admin back to the table with what they
//! did. [`AdminForm`] has already refused everyone else and every form without the
//! admin's CSRF token.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::auth::{AdminForm, PlainForm, Signed};
use super::state::Shared;
use crate::catalog::saves;
use crate::console::commands::race_for_everyone;
use crate::console::race_game;
use crate::players::accounts::{clean_text, MAX_CHAT};
use crate::players::race_desk::LocalDesk;
use crate::races::desk::{RaceDesk, Reply};
use crate::seat::open_race_for_everyone;

/// The broadcast form.
#[derive(Debug, Deserialize)]
pub struct BroadcastForm {
    csrf: String,
    text: String,
}

impl Signed for BroadcastForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// `POST /admin/broadcast`: telnet's `broadcast TEXT`, then back to the live table
/// with what it did.
pub async fn broadcast(
    State(web): State<Shared>,
    AdminForm(admin, form): AdminForm<BroadcastForm>,
) -> Response {
    let notice = match clean_text(&form.text) {
        Ok(text) if text.is_empty() => String::from("Type something to broadcast."),
        Ok(text) => web.services.broadcast(&admin.name, &text),
        Err(length) => {
            format!("That line has {length} characters: a broadcast is at most {MAX_CHAT}.")
        }
    };
    web.logins.tell(&admin, notice);
    Redirect::to("/").into_response()
}

/// The kick form.
#[derive(Debug, Deserialize)]
pub struct KickForm {
    csrf: String,
    name: String,
    #[serde(default)]
    why: String,
}

impl Signed for KickForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// `POST /admin/kick`: telnet's `kick NAME [WHY]`.
pub async fn kick(
    State(web): State<Shared>,
    AdminForm(admin, form): AdminForm<KickForm>,
) -> Response {
    let notice = if form.name.trim().is_empty() {
        String::from("Type the name of the player to disconnect.")
    } else {
        web.services.kick(&admin.name, form.name.trim(), &form.why)
    };
    web.logins.tell(&admin, notice);
    Redirect::to("/").into_response()
}

/// The form that opens a race for everyone.
#[derive(Debug, Deserialize)]
pub struct RaceForm {
    csrf: String,
    game: String,
    /// The game's arguments, as typed after `race GAME`.
    #[serde(default)]
    args: String,
    /// The time limit, as `time=` takes it (`5m`); empty for none.
    #[serde(default)]
    time: String,
}

impl Signed for RaceForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

impl RaceForm {
    /// The words telnet's admin would type after `race` (without `all`, which the
    /// form means).
    fn words(&self) -> String {
        let mut words = format!("{} {}", self.game.trim(), self.args.trim());
        let time = self.time.trim();
        if !time.is_empty() {
            words.push_str(" time=");
            words.push_str(time);
        }
        words
    }
}

/// `POST /admin/race`: telnet's `race GAME [ARGS] [time=T] all`: the race opens with
/// the admin as its host (who does not race) and everyone in the lobby invited.
pub async fn race(
    State(web): State<Shared>,
    AdminForm(admin, form): AdminForm<RaceForm>,
) -> Response {
    let notice = match race_for_everyone(&form.words()) {
        Err(text) => text,
        Ok((kind, args, limit)) => {
            let registry = &web.services.registry;
            let host = web.hosts.member(registry, &admin.name, &web.shutdown);
            let context = web.services.contexts.current();
            let saves = saves::player_folder(&admin.name.key());
            // The game is built once to check it starts (and to fix a wumpus world):
            // files are read, off the event loop.
            let game =
                tokio::task::spawn_blocking(move || race_game(kind, args, &context, Some(&saves)))
                    .await;
            match game {
                Ok(Ok(game)) => open_race_for_everyone(registry, host, game, limit),
                Ok(Err(text)) => text,
                Err(_) => String::from("Opening the race failed: try again."),
            }
        }
    };
    web.logins.tell(&admin, notice.trim_end().to_string());
    Redirect::to("/").into_response()
}

/// `POST /admin/start`: telnet's `start`, by the admin as the host of the race they
/// opened from the page.
pub async fn start(
    State(web): State<Shared>,
    AdminForm(admin, _): AdminForm<PlainForm>,
) -> Response {
    let registry = &web.services.registry;
    let host = web.hosts.member(registry, &admin.name, &web.shutdown);
    let notice = match LocalDesk::new(registry.clone()).start(&host) {
        Reply::Now(answer) => answer.text,
        // The page's races are this instance's: answered at once.
        Reply::Later(pending) => pending.await.text,
    };
    web.logins.tell(&admin, notice.trim_end().to_string());
    Redirect::to("/").into_response()
}

/// `POST /admin/leave`: telnet's `leave`, by the admin as the host of the race they
/// opened from the page: before its start, a race nobody joined closes, and one with
/// racers is handed to the first who joined; after it, the race goes on without its
/// host.
pub async fn leave(
    State(web): State<Shared>,
    AdminForm(admin, _): AdminForm<PlainForm>,
) -> Response {
    let registry = &web.services.registry;
    let host = web.hosts.member(registry, &admin.name, &web.shutdown);
    let notice = match LocalDesk::new(registry.clone()).leave(&host) {
        Some(race) => format!("You left race {race}."),
        None => String::from("You host no race from this page."),
    };
    web.logins.tell(&admin, notice);
    Redirect::to("/").into_response()
}

/// `POST /admin/reload`: telnet's `reload`: the levels read again from disk, off the
/// event loop, and what was found.
pub async fn reload(
    State(web): State<Shared>,
    AdminForm(admin, _): AdminForm<PlainForm>,
) -> Response {
    let contexts = web.services.contexts.clone();
    let notice = tokio::task::spawn_blocking(move || contexts.reload())
        .await
        .unwrap_or_else(|_| String::from("Reading the levels failed: try again."));
    tracing::info!(admin = %admin.name, "levels reloaded from the web page");
    web.logins.tell(&admin, notice.trim_end().to_string());
    Redirect::to("/").into_response()
}
