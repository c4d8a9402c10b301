//! The new process's side of an upgrade (SPEC section 11): what the old process handed
//! over, as this server's listeners; then every session it handed over registered
//! under its number and name, and made again from its state, its game rebuilt by
//! replay, several at a time. Nothing runs before every one of them is made: if one
//! cannot be, the new process says why and the old one keeps them all.

use std::os::fd::OwnedFd;
use std::sync::Arc;

use futures_util::StreamExt as _;

use crate::net::listener::Gate;
use crate::net::session::{self, Lease, Moved};

/// How many sessions are made again at once (each reads its recording and replays it
/// on a blocking thread).
const AT_ONCE: usize = 16;

/// How long the reopened recordings have to be written.
const FLUSH_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Make every handed session again, on this server's `gate`: ready to run.
///
/// # Errors
/// Why one of them cannot be taken; none of them runs then.
pub(super) async fn take_in(
    sessions: Vec<(Vec<u8>, OwnedFd)>,
    races: serde_json::Value,
    gate: &Gate,
) -> Result<Vec<Moved>, String> {
    let shared = &gate.shared;
    // Everyone registered first: a watcher finds the one it watched, whatever the order.
    let mut registered = Vec::with_capacity(sessions.len());
    for (bytes, socket) in sessions {
        let state = session::read_state(&bytes)?;
        let (number, name, peer) = state.identity();
        let permit = Arc::clone(&gate.limit)
            .try_acquire_owned()
            .map_err(|_| String::from("more sessions than this server's --max-sessions"))?;
        let admission = shared
            .registry
            .register_moved(number, peer, name.clone())
            .ok_or_else(|| format!("two sessions claim number {number} or the name {name}"))?;
        let lease = Lease {
            permit,
            done: gate.done_tx.clone(),
        };
        registered.push((state, socket, admission, lease));
    }
    // Then the races, whose members are found by number, before any console asks.
    shared.registry.unpack_races(races)?;
    let made: Vec<Result<Moved, String>> = futures_util::stream::iter(registered)
        .map(|(state, socket, admission, lease)| {
            session::restore(
                state,
                socket,
                Arc::clone(&shared.context),
                shared.services.clone(),
                shared.timeouts,
                admission,
                lease,
            )
        })
        .buffer_unordered(AT_ONCE)
        .collect()
        .await;
    let mut taken = Vec::with_capacity(made.len());
    let mut why_not = None;
    for session in made {
        match session {
            Ok(session) => taken.push(session),
            Err(why) => why_not = why_not.or(Some(why)),
        }
    }
    if let Some(why) = why_not {
        // Nothing of them may be written here: the old process goes on with them.
        taken.into_iter().for_each(Moved::abandon);
        return Err(why);
    }
    // The games' recordings are this process's before the old one lets go of them
    // (on PostgreSQL an open recording names the instance that holds it).
    taken.iter().for_each(Moved::claim);
    if !taken.is_empty() && !shared.services.recorder.flush(FLUSH_WAIT).await {
        taken.into_iter().for_each(Moved::abandon);
        return Err(String::from(
            "the games' recordings could not be claimed in time (is the database away?)",
        ));
    }
    Ok(taken)
}

/// What an old server handed over, as this one's listeners and upgrades; the sockets
/// that cannot be used, with the line back to say so.
///
/// # Errors
/// When a listening socket cannot be used by tokio.
#[allow(clippy::type_complexity)]
pub fn taken_over(
    taken: crate::upgrade::take_over::Taken,
) -> Result<
    (
        super::Listeners,
        super::Upgrades,
        Option<crate::upgrade::take_over::Arrival>,
    ),
    (std::io::Error, crate::upgrade::take_over::Arrival),
> {
    let tokio_listener = |listener: std::net::TcpListener| {
        listener.set_nonblocking(true)?;
        tokio::net::TcpListener::from_std(listener)
    };
    let crate::upgrade::take_over::Taken {
        telnet,
        web,
        ssh,
        control,
        lock,
        sessions,
        shared,
        arrival,
    } = taken;
    let listeners = (|| {
        Ok(super::Listeners {
            telnet: tokio_listener(telnet)?,
            web: web.map(tokio_listener).transpose()?,
            ssh: ssh.map(tokio_listener).transpose()?,
        })
    })();
    match listeners {
        Ok(listeners) => Ok((
            listeners,
            super::Upgrades {
                control,
                lock: Some(lock),
                moved: sessions,
                shared,
                ..super::Upgrades::default()
            },
            Some(arrival),
        )),
        Err(error) => Err((error, arrival)),
    }
}
