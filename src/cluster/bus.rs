//! The bus between instances (`--bus nats://...`, SPEC section 11): presence, chat,
//! watching, races, kicks and takeovers carried over NATS, so that players on several
//! instances see each other as if on one.
//!
//! NATS is the proven engine here; this file only says what travels:
//! - `arcade.presence`, heard by every instance: each instance's heartbeat (every
//!   [`HEARTBEAT`], with its open races for `races`), and its sessions' changes
//!   (batched as they come). An instance heard for the first time is sent every local
//!   session at once on its own subject; an instance not heard for [`SILENCE`] is gone,
//!   and its players with it (a killed instance drops out of `who` that way).
//! - `arcade.to.N`, heard by instance N only: a message for one of its players (a line,
//!   a watched board, a kick...), and the race commands of racers on other instances
//!   (as NATS requests: the answer comes back to the racer's command).
//!
//! The players of other instances live in the registry with a sender that hands their
//! messages to this bus ([`Forward`]), so the rest of the server reaches them as it
//! reaches anyone. Nothing here waits on a session's path: a message goes into a
//! bounded queue that one task publishes from; when the queue is full (the bus is down
//! and NATS's own buffer too) the message is dropped and counted. Without the bus
//! (NATS down) every instance keeps working on its own: its players see only each
//! other until the bus is back, when the instances send each other their sessions
//! again.
//!
//! Payloads are JSON (serde): a few hundred bytes a message, readable with `nats sub`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use dashmap::DashMap;
use futures_util::StreamExt as _;
use tokio::sync::mpsc;

use async_nats::{ConnectErrorKind, Event};

use crate::cluster::auth::{BusAuth, BusFileError};
use crate::cluster::direct::{on_direct, safe};
use crate::cluster::presence::{on_announce, presence_loop, CHANGES};
pub use crate::cluster::presence::{HEARTBEAT, REFRESH, SILENCE};
use crate::cluster::shared::Shared;
use crate::cluster::url::BusUrl;
use crate::cluster::wire::{subject_of, Announce, Direct, RaceOp, RaceRow, PRESENCE};
use crate::metrics::Metrics;
use crate::players::registry::{PresenceTap, Registry, SessionId};
use crate::races::desk::Answer;
use crate::races::rules::{self, RaceId};

/// How long a racer's command waits for the race's instance to answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// Messages waiting to be published, at most: past that they are dropped (the bus is
/// down and NATS's own buffer full).
const OUTBOX: usize = 65_536;

/// Why the bus could not start.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// A file a `--bus-*` option names cannot be read.
    #[error("{0}")]
    File(#[from] BusFileError),
    /// The NATS server would not let this instance in: its credentials or its TLS.
    #[error(
        "--bus {url}: the NATS server refused this instance ({reason}); give the \
         credentials it expects (--bus-user and --bus-password, --bus-token, --bus-nkey \
         or --bus-creds) and, for TLS, --bus-ca: see docs/operating.md, \"The bus\""
    )]
    Refused {
        /// The server, its secrets masked.
        url: String,
        /// What NATS said.
        reason: String,
    },
    /// NATS refused a subscription.
    #[error("cannot subscribe on the bus {url}: {reason}")]
    Subscribe {
        /// The server, its secrets masked.
        url: String,
        /// Why.
        reason: String,
    },
}

/// Whether a failed first connection is the server's (or TLS's) refusal, which
/// trying again will not change, rather than a server not there yet.
fn refused(error: &async_nats::ConnectError) -> bool {
    matches!(
        error.kind(),
        ConnectErrorKind::AuthorizationViolation
            | ConnectErrorKind::Authentication
            | ConnectErrorKind::Tls
    )
}

/// The bus: cheap to clone.
#[derive(Debug, Clone)]
pub struct Bus {
    shared: Arc<Shared>,
}

impl Bus {
    /// Connect to the NATS servers of `url` with `auth`'s credentials as instance
    /// `instance` (a number no other running instance has: the store's), and carry
    /// `registry`'s players to the other instances and theirs here. A server that
    /// refuses the credentials stops the start; one not there yet is tried again in
    /// the background, as whenever the connection is lost: the server starts and runs
    /// without the bus.
    ///
    /// # Errors
    /// [`BusError`] when a credentials file cannot be read, the NATS server refuses
    /// this instance, or a subscription is refused.
    pub async fn start(
        url: &BusUrl,
        auth: &BusAuth,
        instance: u64,
        registry: Registry,
        metrics: Arc<Metrics>,
    ) -> Result<Bus, BusError> {
        let shown = url.to_string();
        let events = shown.clone();
        let options = auth
            .options(url)
            .await?
            .name(format!("arcade-{instance}"))
            .max_reconnects(None)
            // Back within a second of the server's return (the default waits up to
            // several seconds between tries).
            .reconnect_delay_callback(|attempts| {
                Duration::from_millis(100)
                    .saturating_mul(u32::try_from(attempts).unwrap_or(10).min(10))
            })
            .request_timeout(Some(REQUEST_TIMEOUT))
            .event_callback(move |event| {
                let shown = events.clone();
                async move {
                    match event {
                        Event::ServerError(_) | Event::ClientError(_) => {
                            tracing::warn!(bus = %shown, %event, "bus");
                        }
                        _ => tracing::info!(bus = %shown, %event, "bus"),
                    }
                }
            });
        // Once without retrying, so that a refusal (wrong or missing credentials) is
        // told now, naming the server, instead of retried in the log forever.
        let client = match options.clone().connect(url.servers()).await {
            Ok(client) => client,
            Err(error) if refused(&error) => {
                return Err(BusError::Refused {
                    url: shown,
                    reason: error.to_string(),
                })
            }
            Err(error) => {
                tracing::warn!(bus = %shown, %error, "bus: not reachable yet; trying again in the background");
                options
                    .retry_on_initial_connect()
                    .connect(url.servers())
                    .await
                    .map_err(|error| BusError::Refused {
                        url: shown.clone(),
                        reason: error.to_string(),
                    })?
            }
        };
        if !auth.given(url) {
            tracing::warn!(
                bus = %shown,
                "the bus has no credentials: anyone who reaches its NATS server can speak \
                 as an instance (docs/operating.md, \"The bus\")"
            );
        }
        let subscribe_error = |error: async_nats::SubscribeError| BusError::Subscribe {
            url: shown.clone(),
            reason: error.to_string(),
        };
        let presence = client.subscribe(PRESENCE).await.map_err(subscribe_error)?;
        let own = client
            .subscribe(subject_of(instance))
            .await
            .map_err(subscribe_error)?;
        let (outbox, queued) = mpsc::channel(OUTBOX);
        let (changes, changed) = mpsc::channel(CHANGES);
        registry.set_tap(
            instance,
            PresenceTap {
                changes,
                dirty: AtomicBool::new(false),
            },
        );
        registry.with_races(|races| races.number_for_instance(instance));
        let shared = Arc::new(Shared {
            instance,
            client: client.clone(),
            registry,
            outbox,
            peers: DashMap::new(),
            watchers: DashMap::new(),
            page_watchers: DashMap::new(),
            rolls: DashMap::new(),
            rolls_sent: std::sync::atomic::AtomicU64::new(0),
            metrics: Arc::clone(&metrics),
            stopping: AtomicBool::new(false),
            warned_close: AtomicBool::new(false),
        });
        tokio::spawn(publish_loop(client, queued, metrics));
        tokio::spawn(presence_loop(Arc::clone(&shared), changed));
        tokio::spawn(listen(Arc::downgrade(&shared), presence, on_announce));
        tokio::spawn(listen(Arc::downgrade(&shared), own, on_direct));
        tracing::info!(bus = %shown, instance, "on the bus");
        Ok(Bus { shared })
    }

    /// The open races of the other instances.
    pub fn races(&self) -> Vec<RaceRow> {
        let mut rows: Vec<RaceRow> = self
            .shared
            .peers
            .iter()
            .flat_map(|peer| peer.races.clone())
            .collect();
        rows.sort_by_key(|row| row.id);
        rows
    }

    /// The instance that has race `race`, if another instance has it.
    pub fn home_of(&self, race: RaceId) -> Option<u64> {
        self.shared
            .peers
            .iter()
            .find(|peer| peer.races.iter().any(|row| row.id == race))
            .map(|peer| *peer.key())
            .or_else(|| {
                // Races are numbered from their instance's own range.
                let home = u64::from(race / rules::IDS_PER_INSTANCE);
                (home != self.shared.instance && self.shared.peers.contains_key(&home))
                    .then_some(home)
            })
    }

    /// Send racer `from` (called `name`)'s command to instance `home`, which has the
    /// race, and wait for its answer.
    pub async fn race_request(
        &self,
        home: u64,
        from: SessionId,
        name: &str,
        op: RaceOp,
    ) -> Result<Answer, String> {
        let request = Direct::Race {
            from: self.shared.here(from),
            name: name.to_string(),
            op,
        };
        let payload = serde_json::to_vec(&request).map_err(|error| error.to_string())?;
        let answer = self
            .shared
            .client
            .request(subject_of(home), Bytes::from(payload))
            .await
            .map_err(|_| String::from("The race's server did not answer: try again."))?;
        let mut answer: Answer = serde_json::from_slice(&answer.payload)
            .map_err(|_| String::from("The race's server gave an answer this one cannot read."))?;
        answer.text = safe(&answer.text);
        Ok(answer)
    }

    /// Tell instance `home` of racer `from`'s command, not waiting for an answer.
    pub fn race_notice(&self, home: u64, from: SessionId, name: &str, op: RaceOp) {
        self.shared.post(
            subject_of(home),
            &Direct::Race {
                from: self.shared.here(from),
                name: name.to_string(),
                op,
            },
        );
    }

    /// Tell the other instances that this one is stopping, and send what waits.
    pub async fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Relaxed);
        let bye = Announce::Bye {
            from: self.shared.instance,
        };
        if let Ok(payload) = serde_json::to_vec(&bye) {
            let _ = self
                .shared
                .client
                .publish(PRESENCE, Bytes::from(payload))
                .await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), self.shared.client.flush()).await;
    }
}

/// Publish what the sessions queued, in order.
async fn publish_loop(
    client: async_nats::Client,
    mut queued: mpsc::Receiver<(String, Bytes)>,
    metrics: Arc<Metrics>,
) {
    while let Some((subject, payload)) = queued.recv().await {
        match client.publish(subject, payload).await {
            Ok(()) => metrics.bus_messages.inc(),
            Err(error) => {
                metrics.bus_dropped.inc();
                tracing::debug!(%error, "bus: a message was not published");
            }
        }
    }
}

/// Hear what comes on `subscriber`, one message at a time, each read as a `T` and
/// handed to `handle` with the subject to answer on, if any. The sessions of this
/// worker thread get their turn between two messages, however many wait.
async fn listen<T: serde::de::DeserializeOwned>(
    shared: Weak<Shared>,
    mut subscriber: async_nats::Subscriber,
    handle: fn(&Arc<Shared>, T, Option<async_nats::Subject>),
) {
    while let Some(message) = subscriber.next().await {
        tokio::task::yield_now().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match serde_json::from_slice::<T>(&message.payload) {
            Ok(what) => handle(&shared, what, message.reply),
            Err(error) => {
                tracing::warn!(subject = %message.subject, %error, "bus: a message this server cannot read was ignored")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::presence::heard_roll;
    use crate::cluster::wire::{Direct, RaceOp, Roll, Wire};
    use crate::games::Progress;
    use crate::players::registry::{Remote, SessionView};

    #[test]
    fn what_travels_reads_back() {
        let direct = Direct::Deliver {
            to: vec![7],
            message: Wire::Watch(Remote {
                instance: 2,
                session: 2_000_001,
            }),
            from: Some(2),
        };
        let text = serde_json::to_string(&direct).unwrap();
        let back: Direct = serde_json::from_str(&text).unwrap();
        assert!(matches!(
            back,
            Direct::Deliver {
                to,
                message: Wire::Watch(Remote {
                    instance: 2,
                    session: 2_000_001
                }),
                from: Some(2),
            } if to == [7]
        ));
        // What instances before `from` sent: read, from no instance.
        let old = r#"{"Deliver":{"to":[7],"message":{"Close":"bye"}}}"#;
        let read: Direct = serde_json::from_str(old).unwrap();
        assert!(matches!(read, Direct::Deliver { from: None, .. }));
        let progress = Progress {
            moves: 12,
            placed: Some((2, 4)),
            tiles: None,
            gold: None,
            ended: Some(crate::games::Outcome::Solved),
        };
        let text = serde_json::to_string(&RaceOp::Progress(progress)).unwrap();
        let back: RaceOp = serde_json::from_str(&text).unwrap();
        assert!(matches!(back, RaceOp::Progress(read) if read == progress));
        // What instances before the derive sent and read: outcomes as words, tiles as
        // [score, largest, win].
        assert!(text.contains(r#""ended":"solved""#), "{text}");
        let old = r#"{"Progress":{"moves":3,"placed":null,"tiles":[1024,128,2048],"gold":null,"ended":"won"}}"#;
        let read: RaceOp = serde_json::from_str(old).unwrap();
        assert!(matches!(
            read,
            RaceOp::Progress(Progress {
                moves: 3,
                tiles: Some(crate::games::Tiles {
                    score: 1024,
                    largest: 128,
                    win: 2048
                }),
                ended: Some(crate::games::Outcome::Won),
                ..
            })
        ));
    }

    #[test]
    fn text_from_the_bus_cannot_drive_a_terminal() {
        assert_eq!(safe("hi\u{1b}[2J there\n\u{7}"), "hi[2J there\n");
    }

    fn view(name: &str) -> SessionView {
        SessionView::arrived(name)
    }

    /// Instance 1's bus, with no NATS server there: the client keeps trying in the
    /// background, which is all these tests need of it.
    async fn bus_without_server() -> (Registry, Bus) {
        let registry = Registry::new();
        let bus = Bus::start(
            &"nats://127.0.0.1:9".parse().unwrap(),
            &BusAuth::default(),
            1,
            registry.clone(),
            Arc::new(Metrics::new()),
        )
        .await
        .unwrap();
        (registry, bus)
    }

    #[tokio::test]
    async fn a_roll_call_in_parts_forgets_only_the_unnamed_older_sessions() {
        let (registry, bus) = bus_without_server().await;
        let shared = &bus.shared;
        let there = |session| Remote {
            instance: 2,
            session,
        };
        // Instance 2 is a peer: ghosts are kept only for those.
        crate::cluster::presence::heard(shared, 2);
        for (session, name) in [(2_000_001, "pia"), (2_000_002, "quin"), (2_000_003, "ray")] {
            shared.ghost(there(session), &view(name));
        }
        // Instance 2 rolls sessions up to 2_000_003; 2_000_004 logs in meanwhile.
        shared.ghost(there(2_000_004), &view("sol"));
        let part = |sessions: &[(u64, &str)], last| Roll {
            from: 2,
            roll: 7,
            upto: 2_000_003,
            sessions: sessions
                .iter()
                .map(|&(session, name)| (session, view(name)))
                .collect(),
            last,
        };
        heard_roll(shared, part(&[(2_000_001, "pia")], false));
        assert_eq!(
            registry.len(),
            4,
            "nothing is forgotten before the last part"
        );
        heard_roll(shared, part(&[(2_000_003, "ray")], true));
        let names: Vec<String> = registry
            .who()
            .iter()
            .map(|line| line.name.to_string())
            .collect();
        assert_eq!(names, ["pia", "ray", "sol"]);
        assert!(shared.rolls.is_empty());
    }

    #[tokio::test]
    async fn a_late_roll_call_of_a_forgotten_instance_is_forgotten_again() {
        let (registry, bus) = bus_without_server().await;
        let shared = &bus.shared;
        // Instance 2 went silent and was forgotten; its roll call, read late, comes.
        crate::cluster::presence::forget(shared, 2);
        heard_roll(
            shared,
            Roll {
                from: 2,
                roll: 1,
                upto: 2_000_001,
                sessions: vec![(2_000_001, view("guest-2000001"))],
                last: true,
            },
        );
        assert_eq!(registry.len(), 1);
        // It counts as heard, so the silence sweep can forget it again (a ghost of an
        // instance that is no peer would stay in `who` for good).
        assert!(shared.peers.contains_key(&2));
        crate::cluster::presence::forget(shared, 2);
        assert_eq!(registry.len(), 0);
    }

    #[tokio::test]
    async fn a_session_heard_on_both_subjects_at_once_is_one_ghost() {
        let (registry, bus) = bus_without_server().await;
        // Instance 2 names each new session twice at the same moment: in its roll call
        // to this instance, which it just heard of (its own subject, one listener), and
        // in its changes (presence, the other listener).
        const SESSIONS: usize = 500;
        // Both listeners at each session at once: spinning, as a barrier's wake-ups
        // (or a yield's) come further apart than the moment looked for; a listener
        // waiting long yields, as the two may share a core.
        let arrived = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let listeners: Vec<_> = [true, false]
            .into_iter()
            .map(|on_presence| {
                let (shared, arrived) = (Arc::clone(&bus.shared), Arc::clone(&arrived));
                std::thread::spawn(move || {
                    for n in 1..=SESSIONS as u64 {
                        let session = 2_000_000 + n;
                        let named = vec![(session, view(&format!("guest-{session}")))];
                        arrived.fetch_add(1, Ordering::SeqCst);
                        let mut spins = 0_u32;
                        while arrived.load(Ordering::SeqCst) < 2 * n {
                            spins += 1;
                            if spins.is_multiple_of(100_000) {
                                std::thread::yield_now();
                            }
                            std::hint::spin_loop();
                        }
                        if on_presence {
                            on_announce(
                                &shared,
                                Announce::Sessions {
                                    from: 2,
                                    changed: named,
                                    gone: Vec::new(),
                                },
                                None,
                            );
                        } else {
                            heard_roll(
                                &shared,
                                Roll {
                                    from: 2,
                                    roll: n,
                                    upto: session,
                                    sessions: named,
                                    last: false,
                                },
                            );
                        }
                    }
                })
            })
            .collect();
        for listener in listeners {
            listener.join().unwrap();
        }
        assert_eq!(registry.len(), SESSIONS, "each session once");
        // Instance 2 stops: none of its sessions stays behind in `who`.
        crate::cluster::presence::forget(&bus.shared, 2);
        assert_eq!(registry.len(), 0);
    }

    #[tokio::test]
    async fn a_ghost_made_as_its_instance_is_forgotten_is_forgotten_too() {
        let (registry, bus) = bus_without_server().await;
        let shared = &bus.shared;
        // A listener hears instance 2 (its roll call); before it keeps the sessions
        // named, another task forgets instance 2 (its goodbye, the silence sweep).
        crate::cluster::presence::heard(shared, 2);
        crate::cluster::presence::forget(shared, 2);
        let remote = Remote {
            instance: 2,
            session: 2_000_001,
        };
        assert_eq!(shared.ghost(remote, &view("pia")), None);
        // No longer a peer, instance 2 would never be forgotten again, nor its ghost.
        assert!(!shared.peers.contains_key(&2));
        assert_eq!(registry.len(), 0);
        assert_eq!(registry.ghost_id(remote), None);
    }

    #[tokio::test]
    async fn a_racer_of_an_instance_not_heard_yet_goes_with_its_silence() {
        let (registry, bus) = bus_without_server().await;
        let shared = &bus.shared;
        let racer = Remote {
            instance: 2,
            session: 2_000_001,
        };
        // A racer's command comes before any word of its instance's presence.
        crate::cluster::direct::race_op(shared, racer, "pia", RaceOp::Standings);
        assert!(registry.ghost_id(racer).is_some());
        // Its instance counts as heard: were it never heard again, its silence
        // forgets the racer (before, nothing did).
        let long_ago = std::time::Instant::now()
            .checked_sub(crate::cluster::presence::SILENCE * 2)
            .unwrap();
        shared.peers.get_mut(&2).unwrap().heard = long_ago;
        crate::cluster::presence::heartbeat(shared);
        assert_eq!(registry.ghost_id(racer), None);
        assert_eq!(registry.len(), 0);
        // A command that names this instance's own session makes no ghost of it.
        let own = Remote {
            instance: 1,
            session: 1_000_001,
        };
        assert!(crate::cluster::direct::race_op(shared, own, "quin", RaceOp::Standings).is_none());
        assert_eq!(registry.len(), 0);
        assert!(!shared.peers.contains_key(&1));
    }
}
