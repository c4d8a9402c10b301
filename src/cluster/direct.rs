//! Direct messages for this instance: deliveries to its players and racers' commands
//! for its races, which go through the same local desk as its own racers'.

use std::sync::Arc;

use bytes::Bytes;

use crate::catalog::table::GameKind;
use crate::cluster::presence::heard_roll;
use crate::cluster::shared::Shared;
use crate::cluster::wire::{Direct, RaceOp, Wire};
use crate::players::accounts::PlayerName;
use crate::players::inbox::Message;
use crate::players::race_desk::{racer_name, tell_racer, LocalDesk};
use crate::players::registry::Member;
use crate::players::registry::{Remote, SessionView};
use crate::races::desk::{Answer, RaceDesk, Reply};
use crate::races::rules::RaceGame;

/// What is for this instance alone: a message for its players, a roll call, a
/// racer's command (answered on `reply`).
pub(super) fn on_direct(shared: &Arc<Shared>, direct: Direct, reply: Option<async_nats::Subject>) {
    match direct {
        Direct::Deliver { to, message } => deliver(shared, &to, message),
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

/// Hand a message from another instance to local sessions (or a page watcher) `to`.
pub(super) fn deliver(shared: &Arc<Shared>, to: &[u64], wire: Wire) {
    let message = match wire {
        Wire::Line(line) => Message::Line(Arc::from(safe(&line))),
        // A board is a game's own output (colours included), as its player saw it.
        Wire::Frame(frame) => Message::Frame(Arc::from(frame)),
        Wire::Close(text) => Message::Close(safe(&text)),
        Wire::Watch(remote) => {
            let watcher = *shared
                .watchers
                .entry(remote)
                .or_insert_with(|| shared.registry.watcher_id());
            Message::Watch {
                watcher,
                inbox: shared.sender_to(remote),
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
                    args: game.args,
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
    // The racer's session is known here from its instance's presence; if its news
    // has not come yet, it is known from now on.
    let ghost = match registry.ghost_id(from) {
        Some(id) => id,
        None => shared.ghost(
            from,
            &SessionView {
                name: name.to_string(),
                place: crate::players::registry::PlaceView::Lobby,
                idle: 0,
                watchers: 0,
                chat: true,
            },
        )?,
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
