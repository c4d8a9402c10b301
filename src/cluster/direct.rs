//! Direct messages for this instance: deliveries to its players and racers' commands
//! for its races, which go through the same local desk as its own racers'.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;

use crate::catalog::table::GameKind;
use crate::cluster::presence::{heard, heard_roll};
use crate::cluster::shared::Shared;
use crate::cluster::wire::{Direct, RaceOp, Wire};
use crate::players::accounts::PlayerName;
use crate::players::inbox::Message;
use crate::players::race_desk::{racer_name, tell_racer, LocalDesk};
use crate::players::registry::Member;
use crate::players::registry::{Remote, SessionView};
use crate::races::desk::{Answer, RaceDesk, Reply};
use crate::races::rules::RaceGame;
use crate::text::{one_line, Keep};

/// What is for this instance alone: a message for its players, a roll call, a
/// racer's command (answered on `reply`).
pub(super) fn on_direct(shared: &Arc<Shared>, direct: Direct, reply: Option<async_nats::Subject>) {
    match direct {
        Direct::Deliver { to, message, from } => deliver(shared, from, &to, message),
        Direct::Snapshot(roll) => heard_roll(shared, roll),
        Direct::Race { from, name, op } => {
            let answer = race_op(shared, from, &name, op);
            if let (Some(reply), Some(answer)) = (reply, answer) {
                if let Ok(payload) = serde_json::to_vec(&answer) {
                    let _ = shared
                        .outbox
                        .try_send((reply.to_string(), Bytes::from(payload)));
                }
            }
        }
    }
}

/// A text from the bus, made safe for a terminal: only line breaks and tabs of the
/// control characters are kept.
pub(super) fn safe(text: &str) -> String {
    crate::text::lines(text)
}

/// A board from the bus, made safe for a terminal: a game's plain text, so of the
/// control characters only line breaks are kept (the colours are added by the session
/// that shows it, as for a local board).
pub(super) fn safe_board(frame: &str) -> String {
    crate::text::kept(frame, Keep::Board).collect()
}

/// Whether a `Close` from instance `from` may end a session here: only when `from`
/// is another instance heard on presence. Without credentials on the bus this is the
/// only check there is (a message naming no instance, or one never heard, is a
/// forgery or an instance of an older version); with them, only instances speak there.
fn may_close(shared: &Shared, from: Option<u64>) -> bool {
    let heard =
        from.is_some_and(|from| from != shared.instance && shared.peers.contains_key(&from));
    if !heard && !shared.warned_close.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            from = ?from,
            "bus: a message closing sessions here came from no instance heard on the bus \
             and was ignored (told once: a forgery, or an instance of an older version)"
        );
    }
    heard
}

/// Hand a message from instance `from` to local sessions (or a page watcher) `to`.
pub(super) fn deliver(shared: &Arc<Shared>, from: Option<u64>, to: &[u64], wire: Wire) {
    let message = match wire {
        Wire::Line(line) => Message::Line(Arc::from(safe(&line))),
        Wire::Frame(frame) => Message::Frame(Arc::from(safe_board(&frame))),
        Wire::Close(text) => {
            if !may_close(shared, from) {
                return;
            }
            Message::Close(safe(&text))
        }
        Wire::Watch(remote) => {
            let watcher = *shared
                .watchers
                .entry(remote)
                .or_insert_with(|| shared.registry.watcher_id());
            // A watcher on another instance gets the player's screen: the bus carries
            // no reader flag (docs/decisions.md, "Screen readers").
            Message::Watch {
                watcher,
                inbox: shared.sender_to(remote),
                reader: false,
            }
        }
        Wire::Unwatch(remote) => {
            let Some((_, watcher)) = shared.watchers.remove(&remote) else {
                return;
            };
            Message::Unwatch(watcher)
        }
        Wire::WatchEnded(name) => {
            let Some(name) = PlayerName::from_peer(&name) else {
                return;
            };
            Message::WatchEnded { name }
        }
        Wire::RaceStart(race, game) => {
            let Some(kind) = GameKind::from_name(&game.game) else {
                return;
            };
            Message::RaceStart(
                race,
                Arc::new(RaceGame {
                    kind,
                    // Shown in `who` as what the racers play.
                    args: game.args.iter().map(|arg| one_line(arg)).collect(),
                    world: game.world,
                }),
            )
        }
        Wire::RaceStop(race) => Message::RaceStop(race),
    };
    for &to in to {
        let id = shared.registry.local_id(Remote {
            instance: shared.instance,
            session: to,
        });
        if let Some(id) = id {
            shared.registry.send(id, message.clone());
        } else if let Some(page) = shared.page_watchers.get(&to).map(|page| page.clone()) {
            let _ = page.send(message.clone());
        }
    }
}

/// Do a remote racer's command on a race of this instance, through the same local
/// desk as this instance's own racers; the answer, for those that wait for one.
pub(super) fn race_op(
    shared: &Arc<Shared>,
    from: Remote,
    name: &str,
    op: RaceOp,
) -> Option<Answer> {
    let registry = &shared.registry;
    // Racers of this instance use its desk directly, never the bus.
    if from.instance == shared.instance {
        return None;
    }
    // The racer's session is known here from its instance's presence; if its news
    // has not come yet, it is known from now on. Its command is a sign of life of its
    // instance, as a roll call is: without it, a ghost of an instance not heard yet
    // (and, should it never be heard, never a peer) was forgotten by nothing.
    let ghost = match registry.ghost_id(from) {
        Some(id) => id,
        None => {
            heard(shared, from.instance);
            shared.ghost(from, &SessionView::arrived(name))?
        }
    };
    let member = Member {
        id: ghost,
        name: racer_name(&registry.name_of(ghost)?),
        inbox: registry.sender(ghost)?,
    };
    let desk = LocalDesk::new(registry.clone());
    let reply = match op {
        RaceOp::Join(race) => desk.join(&member, race),
        RaceOp::Start => desk.start(&member),
        RaceOp::Standings => desk.standings(&member),
        RaceOp::Leave => {
            desk.leave(&member);
            return None;
        }
        RaceOp::Progress(progress) => {
            if let Some(own) = desk.progress(&member, progress) {
                tell_racer(&member, &own);
            }
            return None;
        }
    };
    match reply {
        Reply::Now(answer) => Some(answer),
        // A local desk answers at once.
        Reply::Later(_) => None,
    }
}
