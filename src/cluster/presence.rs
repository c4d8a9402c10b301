//! Presence between instances: heartbeats, roll calls of every session, changes
//! as they happen, and forgetting an instance that went silent.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::cluster::shared::{Peer, Shared};
use crate::cluster::wire::{subject_of, Announce, Direct, RaceRow, Roll, CHANGES_PART, PRESENCE};
use crate::players::registry::{Presence, Remote};
use crate::text::one_line;

/// How often an instance says it is alive (and what races it has).
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// An instance not heard for this long is gone, and its players with it.
pub const SILENCE: Duration = Duration::from_secs(4);
/// How often an instance tells every session again: how fresh other instances' idle
/// times are, and what heals a change lost on the way.
pub const REFRESH: Duration = Duration::from_secs(10);
/// Local sessions' changes waiting to be told, at most: past that every session is
/// told again at the next heartbeat.
pub(super) const CHANGES: usize = 16_384;

/// How long the first of a burst of changes waits for the others before they are
/// told, in one message of up to [`CHANGES_PART`]: every other instance wakes, reads
/// and hands over each message on its own, which cost it 19-30 µs a change when a
/// class's logins went one a message (docs/BENCHMARKS.md, "Players of other
/// instances"). Short beside what a person sees: `who` on another instance is late by
/// this much at most.
const LINGER: Duration = Duration::from_millis(20);

/// Tell the other instances of local sessions' changes as they come (a batch of what
/// waits at once), say that this instance is alive every [`HEARTBEAT`], and forget
/// instances gone silent.
pub(super) async fn presence_loop(shared: Arc<Shared>, mut changed: mpsc::Receiver<Presence>) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut refreshed = Instant::now();
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            got = changed.recv_many(&mut batch, CHANGES_PART) => {
                if got == 0 {
                    return;
                }
                rest_of_burst(&mut changed, &mut batch).await;
                let mut seen = HashSet::new();
                let mut changes = Vec::new();
                let mut gone = Vec::new();
                // Newest first, each session once.
                for change in batch.drain(..).rev() {
                    match change {
                        Presence::Changed(id) if seen.insert(id) => {
                            if let Some(view) = shared.registry.view(id) {
                                changes.push((id.number(), view));
                            }
                        }
                        Presence::Left(id) if seen.insert(id) => gone.push(id.number()),
                        _ => {}
                    }
                }
                shared.post(
                    PRESENCE.to_string(),
                    &Announce::Sessions { from: shared.instance, changed: changes, gone },
                );
            }
            _ = tick.tick() => {
                if shared.stopping.load(Ordering::Relaxed) {
                    continue;
                }
                heartbeat(&shared);
                // Built here, in the task that sends the changes, so that it comes
                // after every change already sent and before those to come.
                if shared.registry.take_dirty() || refreshed.elapsed() >= REFRESH {
                    refreshed = Instant::now();
                    shared.roll_call(PRESENCE.to_string(), Announce::All);
                }
            }
        }
    }
}

/// What comes within [`LINGER`] of the first changes of a burst (in `batch`), added to
/// them up to [`CHANGES_PART`], so that they are told in one message. A closed
/// channel gives what it still holds, then nothing: the next turn of the loop ends it.
async fn rest_of_burst(changed: &mut mpsc::Receiver<Presence>, batch: &mut Vec<Presence>) {
    if batch.len() >= CHANGES_PART {
        return;
    }
    tokio::time::sleep(LINGER).await;
    if !changed.is_empty() {
        let room = CHANGES_PART - batch.len();
        changed.recv_many(batch, room).await;
    }
}

/// Say this instance is alive (with its races); forget instances not heard for
/// [`SILENCE`].
pub(super) fn heartbeat(shared: &Arc<Shared>) {
    let now = Instant::now();
    let races = shared.registry.with_races(|races| races.list(now));
    let races = races.into_iter().map(RaceRow::from).collect();
    shared.post(
        PRESENCE.to_string(),
        &Announce::Heartbeat {
            from: shared.instance,
            races,
        },
    );
    let silent: Vec<u64> = shared
        .peers
        .iter()
        .filter(|peer| now.saturating_duration_since(peer.heard) > SILENCE)
        .map(|peer| *peer.key())
        .collect();
    for instance in silent {
        tracing::warn!(
            instance,
            "bus: an instance went silent; its players are gone"
        );
        forget(shared, instance);
    }
}

/// Instance `instance` is gone: its players, and their watching of ours.
pub(super) fn forget(shared: &Shared, instance: u64) {
    shared.peers.remove(&instance);
    shared.count_peers();
    shared.registry.forget_instance(instance, None);
    shared
        .watchers
        .retain(|remote, _| remote.instance != instance);
}

/// Instance `from` was heard now. Heard for the first time, it has heard nothing of
/// this one yet: every session goes to it alone.
pub(super) fn heard(shared: &Arc<Shared>, from: u64) {
    let new = match shared.peers.get_mut(&from) {
        Some(mut peer) => {
            peer.heard = Instant::now();
            false
        }
        None => {
            shared.peers.insert(
                from,
                Peer {
                    heard: Instant::now(),
                    races: Vec::new(),
                },
            );
            true
        }
    };
    if new {
        shared.count_peers();
        tracing::info!(instance = from, "bus: an instance joined");
        shared.roll_call(subject_of(from), Direct::Snapshot);
    }
}

/// An announcement of another instance: its heartbeat, its sessions, its goodbye.
pub(super) fn on_announce(
    shared: &Arc<Shared>,
    announce: Announce,
    _: Option<async_nats::Subject>,
) {
    let from = match &announce {
        Announce::Heartbeat { from, .. }
        | Announce::Sessions { from, .. }
        | Announce::All(Roll { from, .. })
        | Announce::Bye { from } => *from,
    };
    if from == shared.instance {
        return;
    }
    if !matches!(announce, Announce::Bye { .. }) {
        heard(shared, from);
    }
    match announce {
        Announce::Heartbeat { from, races } => {
            // `races` shows them on this instance: words of another instance.
            let races = races
                .into_iter()
                .map(|row| RaceRow {
                    label: one_line(&row.label),
                    host: one_line(&row.host),
                    ..row
                })
                .collect();
            if let Some(mut peer) = shared.peers.get_mut(&from) {
                peer.races = races;
            }
        }
        Announce::Sessions {
            from,
            changed,
            gone,
        } => {
            for (session, view) in &changed {
                shared.ghost(
                    Remote {
                        instance: from,
                        session: *session,
                    },
                    view,
                );
            }
            for session in gone {
                let remote = Remote {
                    instance: from,
                    session,
                };
                shared.watchers.remove(&remote);
                shared.registry.forget_ghost(remote);
            }
        }
        Announce::All(roll) => heard_roll(shared, roll),
        Announce::Bye { from } => {
            tracing::info!(instance = from, "bus: an instance stopped");
            forget(shared, from);
        }
    }
}

/// A part of another instance's roll call: keep its sessions; at the last part,
/// forget that instance's sessions the roll call did not name.
pub(super) fn heard_roll(shared: &Arc<Shared>, roll: Roll) {
    let Roll {
        from,
        roll,
        upto,
        sessions,
        last,
    } = roll;
    if from == shared.instance {
        return;
    }
    // A roll call is a sign of life as a heartbeat is. Without this, a roll call
    // that came late (a listener seconds behind under load) after its instance was
    // forgotten left ghosts of an instance no longer among the peers, which the
    // silence sweep never forgets.
    heard(shared, from);
    for (session, view) in &sessions {
        shared.ghost(
            Remote {
                instance: from,
                session: *session,
            },
            view,
        );
    }
    // Older roll calls of `from` that never ended (a part lost) are dropped.
    shared
        .rolls
        .retain(|&(instance, other), _| instance != from || other + 1 >= roll);
    let named = sessions.iter().map(|(session, _)| *session);
    if last {
        let (_, mut keep) = shared.rolls.remove(&(from, roll)).unwrap_or_default();
        keep.extend(named);
        shared.registry.forget_instance(from, Some((&keep, upto)));
    } else {
        shared.rolls.entry((from, roll)).or_default().extend(named);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::registry::Registry;

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_changes_is_told_at_once_and_a_later_one_after() {
        let registry = Registry::new();
        let (changes, mut changed) = mpsc::channel(CHANGES);
        let first = Presence::Changed(registry.watcher_id());
        changes.try_send(first).unwrap();
        // The rest of the burst comes 5 ms after the first; one more long after.
        let sender = changes.clone();
        let ids: Vec<_> = (0..200).map(|_| registry.watcher_id()).collect();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            for id in &ids[..199] {
                sender.send(Presence::Changed(*id)).await.unwrap();
            }
            tokio::time::sleep(LINGER * 3).await;
            sender.send(Presence::Left(ids[199])).await.unwrap();
        });
        let mut batch = Vec::new();
        assert_eq!(changed.recv_many(&mut batch, CHANGES_PART).await, 1);
        rest_of_burst(&mut changed, &mut batch).await;
        assert_eq!(
            batch.len(),
            CHANGES_PART,
            "the burst, up to a message's part"
        );
        // A full part goes at once; the burst's rest is the next message's.
        let mut next = Vec::new();
        changed.recv_many(&mut next, CHANGES_PART).await;
        rest_of_burst(&mut changed, &mut next).await;
        assert_eq!(next.len(), 200 - CHANGES_PART, "the rest of the burst");
        // The change long after is a message of its own.
        let mut later = Vec::new();
        changed.recv_many(&mut later, CHANGES_PART).await;
        assert!(matches!(later[..], [Presence::Left(_)]), "{later:?}");
        drop(changes);
        rest_of_burst(&mut changed, &mut later).await;
        assert_eq!(later.len(), 1);
        assert_eq!(changed.recv_many(&mut later, CHANGES_PART).await, 0);
    }
}
