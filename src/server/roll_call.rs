//! The old process's side of moving sessions in an upgrade (SPEC section 11): call the
//! roll (every local session hands in its state and socket between two lines, or says
//! why it cannot move now), have every recording written, hand everything to the new
//! process, and tell each session the verdict. If anything fails, every session goes
//! on here as if nothing happened: nobody is dropped.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use tracing::info;

use serde::{Deserialize, Serialize};

use crate::players::moves::{Ask, Packed, Parcel, Verdict};
use crate::seat::Services;
use crate::upgrade::hand_over::{Held, Moving, NewServer, Upgrader};
use crate::web::logins::{Logins, MovedLogin};

/// How long every session has to answer the roll call. A session answers between
/// two lines: one waiting for the database or writing to a slow client answers when
/// that is done.
const ROLL_CALL_WAIT: Duration = Duration::from_secs(10);

/// How often the bell is rung again for those who have not answered (a session let
/// in meanwhile hears it too).
const RING_AGAIN: Duration = Duration::from_millis(100);

/// How long the recordings of the games that move have to be written, for the new
/// process to replay them.
const FLUSH_WAIT: Duration = Duration::from_secs(10);

/// What the sessions share, handed with them: the races, and the admins logged in to
/// the web page.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Shared {
    #[serde(default)]
    pub(super) races: serde_json::Value,
    #[serde(default)]
    pub(super) web_logins: Vec<MovedLogin>,
    /// The names and addresses an admin kicked for a while.
    #[serde(default)]
    pub(super) bans: crate::players::bans::MovedBans,
}

impl Shared {
    /// What an old server handed over (nothing: `null`).
    pub(super) fn read(handed: serde_json::Value) -> Result<Shared, String> {
        if handed.is_null() {
            return Ok(Shared::default());
        }
        serde_json::from_value(handed).map_err(|error| {
            format!("what the sessions share, in a format this version cannot read: {error}")
        })
    }
}

/// Upgrade to the binary `upgrader` starts, moving every session: the new process's
/// id, or why not (everyone goes on here).
///
/// # Errors
/// Why the upgrade did not happen, in words for the admin.
pub(super) async fn upgrade(
    upgrader: &Upgrader,
    held: &Held,
    services: &Services,
    web_logins: &Logins,
) -> Result<NewServer, String> {
    let started = Instant::now();
    let parcels = call_the_roll(services).await;
    let answered = started.elapsed();
    let (parcels, why_not) = match parcels {
        Ok(parcels) => (parcels, None),
        Err((parcels, why)) => (parcels, Some(why)),
    };
    let why_not = why_not.or_else(|| {
        parcels.iter().find_map(|parcel| match &parcel.packed {
            Packed::Refuses(why) => Some(why.clone()),
            _ => None,
        })
    });
    if let Some(why) = why_not {
        tell(parcels, Verdict::Stay);
        return Err(why);
    }
    // Every racer is at rest now: the races stand still while they move.
    let shared = services.registry.pack_races().and_then(|races| {
        serde_json::to_value(Shared {
            races,
            web_logins: web_logins.pack(),
            bans: services.registry.bans().pack(),
        })
        .map_err(|error| format!("cannot write what the sessions share: {error}"))
    });
    let shared = match shared {
        Ok(shared) => shared,
        Err(why) => {
            tell(parcels, Verdict::Stay);
            return Err(why);
        }
    };
    let flushing = Instant::now();
    if !services.recorder.flush(FLUSH_WAIT).await {
        tell(parcels, Verdict::Stay);
        return Err(String::from(
            "the recordings of the games could not be written in time (is the database away?)",
        ));
    }
    let mut moving = Vec::new();
    for parcel in &parcels {
        if let Packed::Moves { state } = &parcel.packed {
            let asks = parcel.asks.clone();
            moving.push(Moving {
                state: state.clone(),
                socket: Box::new(move || {
                    let (socket, coming) = tokio::sync::oneshot::channel();
                    let _ = asks.send(Ask::Socket(socket));
                    coming
                }),
            });
        }
    }
    let sessions = moving.len();
    let flushed = flushing.elapsed();
    let handing = Instant::now();
    let handed = upgrader.hand_over(held, moving, shared).await;
    let verdict = if handed.is_ok() {
        Verdict::Moved
    } else {
        Verdict::Stay
    };
    // The sessions that move first; SSH sessions (and built-in agents) are told and
    // closed last, once the new server serves.
    for parcel in parcels
        .iter()
        .filter(|parcel| matches!(parcel.packed, Packed::Moves { .. }))
    {
        parcel.tell(verdict);
    }
    for parcel in parcels
        .iter()
        .filter(|parcel| !matches!(parcel.packed, Packed::Moves { .. }))
    {
        parcel.tell(verdict);
    }
    if handed.is_ok() {
        info!(
            sessions,
            roll_call = ?answered,
            flush = ?flushed,
            hand_over = ?handing.elapsed(),
            total = ?started.elapsed(),
            "sessions moved to the new server"
        );
    }
    handed
}

/// Ring every local session's roll-call bell until each has answered: every answer,
/// or every answer so far and why not all came.
async fn call_the_roll(services: &Services) -> Result<Vec<Parcel>, (Vec<Parcel>, String)> {
    let mut answers = services.roll_call.open();
    let deadline = Instant::now() + ROLL_CALL_WAIT;
    let mut answered = HashSet::new();
    let mut parcels = Vec::new();
    let mut missing = None;
    loop {
        let not_yet = services.registry.call_the_roll(&answered);
        if not_yet.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            missing = Some(not_yet);
            break;
        }
        if let Ok(Some(parcel)) = tokio::time::timeout(RING_AGAIN, answers.recv()).await {
            answered.insert(parcel.id);
            parcels.push(parcel);
            while let Ok(parcel) = answers.try_recv() {
                answered.insert(parcel.id);
                parcels.push(parcel);
            }
        }
    }
    services.roll_call.close();
    // Whoever answered before the roll call closed goes too.
    while let Ok(parcel) = answers.try_recv() {
        parcels.push(parcel);
    }
    match missing {
        None => Ok(parcels),
        Some(missing) => {
            let mut names: Vec<String> = missing.iter().take(5).map(ToString::to_string).collect();
            if missing.len() > names.len() {
                names.push(String::from("..."));
            }
            Err((
                parcels,
                format!(
                    "{} did not answer within {} ({}): a session answers between two lines, and one may be waiting for the database or for a client that reads nothing; try again, or kick it",
                    crate::text::count(u64::try_from(missing.len()).unwrap_or(u64::MAX), "session", "sessions"),
                    humantime::format_duration(ROLL_CALL_WAIT),
                    names.join(", ")
                ),
            ))
        }
    }
}

/// Tell every session that answered how it went.
fn tell(parcels: Vec<Parcel>, verdict: Verdict) {
    for parcel in parcels {
        parcel.tell(verdict);
    }
}
