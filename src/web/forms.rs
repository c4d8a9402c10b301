//! The admin's forms under the live table: `POST /admin/broadcast` and
//! `POST /admin/kick` run telnet's `broadcast` and `kick`, then send the admin back to
//! the table with what they did. [`AdminForm`] has already refused everyone else and
//! every form without the admin's CSRF token.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::auth::{AdminForm, Signed};
use super::state::Shared;
use crate::players::accounts::{clean_text, MAX_CHAT};

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
