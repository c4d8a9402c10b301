//! A console's jobs: the work a line needs that may block or wait (files, the store,
//! a password's hash, a race on another instance), and what each gave back.
//!
//! The console itself does no I/O: it hands a [`Job`] to its caller, which runs it
//! (`job.run(context).await`, off the event loop where it blocks) and gives the
//! [`Done`] back to [`Console::finish`](super::Console::finish).

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::catalog::saves;
use crate::catalog::table::{Context, GameKind, NewGame};
use crate::coach::ask::{Ask, Found, Snapshot};
use crate::coach::Coach;
use crate::games::SaveName;
use crate::players::inbox::InboxSender;
use crate::races::desk::{Answer, Pending};
use crate::races::rules::{RaceGame, RaceId};
use crate::records::reader::Inputs;
use crate::records::recorder::Player;
use crate::records::scores;
use crate::seat::{self, Services};

use super::commands::{bottoken, ladder, levels, sshkey};
use super::ladder::{SeedDone, SeedEnd};
use super::replay::{play_back, TOO_MANY_REPLAYS};
use super::resume::{resume, Resumed};

/// Work a line needs that may block or wait; [`Job::run`] does it. Boxed: jobs are
/// rare, and an [`Outcome`](super::Outcome) is held in every session's future.
#[must_use]
pub struct Job(Box<Work>);

/// What a [`Job`] does.
pub(super) enum Work {
    /// Reads or writes files: runs on a blocking thread.
    Files(FileWork),
    /// The store or a password hash: async (hashing goes to a blocking thread inside).
    Social {
        work: seat::Work,
        services: Services,
        address: IpAddr,
    },
    /// Results and recordings.
    Store { work: StoreWork, services: Services },
    /// `/hint` or `/solve`: a search on the solver's threads.
    Coach {
        ask: Ask,
        snapshot: Snapshot,
        coach: Coach,
        address: IpAddr,
    },
    /// `upgrade`: asked of the server's loop. The admin's session does not wait for
    /// the answer: it must be at rest to move with everyone else. A failure comes back
    /// to `inbox` as a line; success is `The server was upgraded.` in the new process.
    Upgrade {
        requests: crate::upgrade::control::Requests,
        by: String,
        inbox: crate::players::inbox::InboxSender,
    },
    /// A racer's command for a race on another instance (`--bus`).
    Race {
        /// The other instance's answer.
        pending: Pending,
        /// The race a `join` asked for, and its instance.
        join: Option<(RaceId, Option<u64>)>,
    },
}

/// Work on the store: results, recordings, unfinished games.
pub(super) enum StoreWork {
    /// `top`, `stats`, `recordings`; `flush`: this session ended a game since its last
    /// query, so the writer writes first and the game is listed as ended.
    Query { query: scores::Query, flush: bool },
    /// Play recording `id` to `inbox`, for a player at `address`.
    Replay {
        id: i64,
        speed: u32,
        inbox: InboxSender,
        address: IpAddr,
        /// The viewer reads through a screen reader: the game in words.
        reader: bool,
    },
    /// Rebuild the player's unfinished game.
    Resume { player: Player },
    /// `sshkey`: a registered player's keys.
    SshKeys(sshkey::KeyWork),
    /// `bottoken`: a registered player's bot tokens.
    BotTokens(bottoken::TokenWork),
    /// `ladder`, `ladders`.
    Ladder(ladder::LadderWork),
    /// A ladder's seed ended: keep its result, then start the next seed's game.
    LadderSeed(Box<SeedEnd>),
}

/// Work on files: games that may read a saved world, levels, saves.
pub(super) enum FileWork {
    Start {
        kind: &'static GameKind,
        args: Vec<String>,
        /// The player's saves, under the data directory.
        saves: Option<String>,
        /// A race's world, to start from instead of the arguments.
        world: Option<String>,
        /// The race the game is played in.
        race: Option<RaceId>,
    },
    /// Check that a race's game starts, and fix its world.
    OpenRace {
        kind: &'static GameKind,
        args: Vec<String>,
        saves: Option<String>,
        limit: Option<Duration>,
        all: bool,
    },
    /// Read the levels again.
    Reload(crate::catalog::table::Contexts),
    Levels {
        kind: Option<&'static GameKind>,
        saves: Option<String>,
    },
    Save {
        saves: Option<String>,
        game: &'static str,
        name: SaveName,
        state: String,
        /// The game's reply, sent before the save's outcome.
        text: String,
        /// This session may still make a new save.
        may_create: bool,
    },
}

/// What a [`Job`] gave, for [`Console::finish`](super::Console::finish).
pub struct Done(pub(super) Finished);

/// How long `top`, `stats` and `recordings` wait for what was played before them to
/// be written; past it (the database is slow or down) they answer with what is there.
const QUERY_FLUSH_WAIT: Duration = Duration::from_secs(2);

/// What the work gave.
pub(super) enum Finished {
    Started {
        kind: &'static GameKind,
        args: Vec<String>,
        game: Result<NewGame, String>,
        race: Option<RaceId>,
    },
    RaceReady {
        game: Result<RaceGame, String>,
        limit: Option<Duration>,
        all: bool,
    },
    Replaying(Result<(i64, tokio::task::AbortHandle), String>),
    Resumed(Result<Box<Resumed>, String>),
    Listed(String),
    Saved {
        text: String,
        created: bool,
    },
    Social(seat::Found),
    /// What the instance with the race answered (`--bus`).
    Raced {
        /// The race a `join` asked for, and its instance.
        join: Option<(RaceId, Option<u64>)>,
        answer: Answer,
    },
    /// What the solver found for `/hint` or `/solve` (or that it was busy).
    Coached {
        ask: Ask,
        snapshot: Box<Snapshot>,
        found: Result<Found, &'static str>,
    },
    /// A ladder entered, or a seed's result kept: the next seed's game.
    LadderSeed(Box<SeedDone>),
    /// The job's thread failed (a bug): say so.
    Failed,
}

impl Job {
    pub(super) fn new(work: Work) -> Job {
        Job(Box::new(work))
    }

    /// Do the work. What blocks (files, hashing) runs on a blocking thread, so this may
    /// be awaited on the event loop.
    pub async fn run(self, context: Arc<Context>) -> Done {
        match *self.0 {
            Work::Social {
                work,
                services,
                address,
            } => Done(Finished::Social(work.run(services, address).await)),
            Work::Store { work, services } => Done(work.run(services, context).await),
            Work::Coach {
                ask,
                snapshot,
                coach,
                address,
            } => {
                let found = coach.ask(ask, snapshot.clone(), address).await;
                Done(Finished::Coached {
                    ask,
                    snapshot: Box::new(snapshot),
                    found,
                })
            }
            Work::Upgrade {
                requests,
                by,
                inbox,
            } => {
                let answer = crate::upgrade::control::send(&requests, &by).await;
                let text = match answer {
                    Ok(answer) => {
                        tokio::spawn(async move {
                            let answer = crate::upgrade::control::answer(answer).await;
                            if !answer.starts_with("upgraded") {
                                let line = crate::players::inbox::Message::Line(answer.into());
                                let _ = inbox.send(line);
                            }
                        });
                        String::from("Upgrading: every session moves to the binary now on disk.\n")
                    }
                    Err(refused) => format!("{refused}\n"),
                };
                Done(Finished::Listed(text))
            }
            Work::Race { pending, join } => Done(Finished::Raced {
                join,
                answer: pending.await,
            }),
            Work::Files(work) => {
                match tokio::task::spawn_blocking(move || Job::run_blocking(work, &context)).await {
                    Ok(done) => done,
                    Err(error) => {
                        tracing::error!(%error, "a console job failed");
                        Done(Finished::Failed)
                    }
                }
            }
        }
    }

    /// The jobs that read or write files.
    fn run_blocking(work: FileWork, context: &Context) -> Done {
        Done(match work {
            FileWork::Start {
                kind,
                args,
                saves,
                world,
                race,
            } => {
                let context = owned_by(context, saves.as_deref());
                let game = match (world, kind.from_state) {
                    (Some(world), Some(from_state)) => from_state(&world, &context),
                    _ => {
                        let words: Vec<&str> = args.iter().map(String::as_str).collect();
                        (kind.start)(&words, &context)
                    }
                };
                Finished::Started {
                    kind,
                    args,
                    game,
                    race,
                }
            }
            FileWork::OpenRace {
                kind,
                args,
                saves,
                limit,
                all,
            } => {
                let game = race_game(kind, args, context, saves.as_deref());
                Finished::RaceReady { game, limit, all }
            }
            FileWork::Reload(contexts) => Finished::Listed(contexts.reload()),
            FileWork::Levels { kind, saves } => {
                Finished::Listed(levels::text(kind, &owned_by(context, saves.as_deref())))
            }
            FileWork::Save {
                saves: owner,
                game,
                name,
                state,
                mut text,
                may_create,
            } => {
                let quota = saves::Quota {
                    may_create,
                    max_saves: saves::MAX_SAVES_PER_GAME,
                };
                let context = owned_by(context, owner.as_deref());
                let saved = saves::save(&context.data_dir, game, &name, &state, quota);
                text.push_str(&saved.message);
                Finished::Saved {
                    text,
                    created: saved.created,
                }
            }
        })
    }
}

/// A race's game of `kind` with `args`, as the host's saves (the folder `saves`, if
/// any) start it: built once, here, to check it starts and to keep the world it starts
/// in, which racers start from whatever their own saves hold. Reads files: on a
/// blocking thread.
///
/// # Errors
/// What the game answers arguments it cannot start with.
pub fn race_game(
    kind: &'static GameKind,
    args: Vec<String>,
    context: &Context,
    saves: Option<&str>,
) -> Result<RaceGame, String> {
    let context = owned_by(context, saves);
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    (kind.start)(&words, &context).map(|game| RaceGame {
        kind,
        world: kind.from_state.and_then(|_| game.state()),
        args,
    })
}

/// The context with a player's own saves, when the player has a folder of them.
fn owned_by<'c>(context: &'c Context, saves: Option<&str>) -> Cow<'c, Context> {
    match saves {
        Some(folder) => Cow::Owned(context.with_saves_in(context.data_dir.join(folder))),
        None => Cow::Borrowed(context),
    }
}

impl StoreWork {
    async fn run(self, services: Services, context: Arc<Context>) -> Finished {
        match self {
            StoreWork::Query { query, flush } => {
                // The player's game just ended is in the answer: listed as ended, with
                // its lines, and its result counted (the writer writes once a second).
                // Only then: a script asking again and again would otherwise turn the
                // writer's batch into a commit per line.
                if flush {
                    services.recorder.flush(QUERY_FLUSH_WAIT).await;
                }
                match query.run(&services.store).await {
                    Ok(text) => Finished::Listed(text),
                    Err(error) => Finished::Listed(format!("{}.\n", seat::store_failed(&error))),
                }
            }
            StoreWork::SshKeys(work) => Finished::Listed(work.run(&services.store).await),
            StoreWork::BotTokens(work) => Finished::Listed(work.run(&services.store).await),
            StoreWork::Ladder(work) => match work.run(&services, context).await {
                ladder::Answer::Said(text) => Finished::Listed(text),
                ladder::Answer::Entered(done) => Finished::LadderSeed(Box::new(done)),
            },
            StoreWork::LadderSeed(end) => {
                let SeedEnd {
                    result,
                    text,
                    note,
                    next,
                } = *end;
                let note = keep_ladder_result(&services, &result, note).await;
                let next = match next {
                    Some(next) => {
                        let game = ladder::start(&next, context).await;
                        Some((next, game))
                    }
                    None => None,
                };
                Finished::LadderSeed(Box::new(SeedDone {
                    text,
                    note,
                    run: None,
                    next,
                }))
            }
            StoreWork::Replay {
                id,
                speed,
                inbox,
                address,
                reader,
            } => {
                let Ok(place) = services.safeguards.replays.take(address) else {
                    return Finished::Replaying(Err(String::from(TOO_MANY_REPLAYS)));
                };
                let head = match services.store.recording_head(id).await {
                    Ok(Some(head)) => head,
                    Ok(None) => return Finished::Replaying(Err(format!("No recording {id}."))),
                    Err(error) => {
                        return Finished::Replaying(Err(format!(
                            "Cannot replay {id}: {}.",
                            seat::store_failed(&error)
                        )))
                    }
                };
                let inputs = Inputs::new(services.store.clone(), id);
                let task = tokio::spawn(async move {
                    play_back(head, inputs, speed, inbox, context, reader).await;
                    drop(place);
                });
                Finished::Replaying(Ok((id, task.abort_handle())))
            }
            StoreWork::Resume { player } => {
                Finished::Resumed(resume(player, services, context).await)
            }
        }
    }
}

/// Keep a ladder seed's result, after the recording it names is written; `text` with
/// what the entrant must be told about it.
async fn keep_ladder_result(
    services: &Services,
    result: &crate::store::NewLadderResult,
    mut text: String,
) -> String {
    // The seed's inputs reach the store before its result names the recording, so
    // that the replay that checks it finds them.
    services.recorder.flush(QUERY_FLUSH_WAIT).await;
    match services.store.add_ladder_result(result).await {
        Ok(Some(id)) => {
            services.recorder.verify_soon();
            if result.recording_id.is_none() && !result.forfeit {
                // No recording, no replay: it cannot count.
                if let Err(error) = services.store.set_ladder_verified(&[(id, false)]).await {
                    seat::store_failed(&error);
                }
                text.push_str("This game was not recorded, so its result cannot be checked: it does not count.\n");
            }
        }
        Ok(None) => text.push_str(&format!(
            "Seed {} of ladder {} was played already: this result is not kept.\n",
            result.seed, result.ladder_id
        )),
        Err(error) => text.push_str(&format!(
            "The result could not be kept: {}.\n",
            seat::store_failed(&error)
        )),
    }
    text
}
