//! `ladder open GAME seeds=A-B [move=TIME] [until=DATE] [humans on|off]` and `ladder
//! close N` (admins); `ladder N` (the table), `ladder enter N` and `ladder results N
//! NAME` (everyone): the ladders of SPEC section 12, kept in the store.
//!
//! Opening a ladder also starts its baselines: each built-in agent that plays the game
//! plays every seed on a blocking thread, and its scores are kept beside the results.

use std::sync::Arc;
use std::time::Duration;

use super::{Args, CommandSpec, Help, Place};
use crate::agents::driver;
use crate::catalog::table::{Context, GameKind};
use crate::console::jobs::StoreWork;
use crate::console::ladder::{next_seed, LadderRun, SeedDone};
use crate::console::{Console, Outcome};
use crate::ladders::opening::{self, Opening};
use crate::ladders::table::{self, Standing};
use crate::records::ladder_tables;
use crate::records::recorder::now_ms;
use crate::seat::{store_failed, Services};
use crate::store::{Ladder, LadderSpec, Store, StoreError};

/// `ladder`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "ladder",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby(
        "  ladder N           ladder N's table (ladder enter N plays its seeds;\n                     ladder results N NAME, one entrant's seeds)\n",
    ),
    run,
};

const USAGE: &str = "Usage: ladder N, ladder enter N, ladder results N NAME; admins: ladder open ...,\nladder close N.\n";

/// The most actions one seed's game of a baseline may take (a random agent in a
/// level of boxes never ends it by itself).
const BASELINE_MOVES: u64 = 100_000;

/// What `ladder` asks of the store.
pub(in crate::console) enum LadderWork {
    /// Open a ladder.
    Open(Opening, String),
    /// Close ladder N.
    Close(i64),
    /// Ladder N's table.
    Table(i64),
    /// One entrant's seeds of ladder N.
    Results(i64, String),
    /// Enter ladder N as this player.
    Enter {
        /// The ladder.
        id: i64,
        /// Who enters.
        player_key: String,
        /// A bot enters (a ladder may be for bots only).
        bot: bool,
    },
    /// `ladders`.
    List,
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = console.seat.as_ref() else {
        return console.say(String::new());
    };
    let number = |word: Option<&str>| word.and_then(|n| n.parse::<i64>().ok()).filter(|n| *n > 0);
    let work = match args.word(0).map(str::to_ascii_lowercase).as_deref() {
        Some("open" | "close") if !seat.is_admin() => {
            return console.say(format!("{}\n", crate::seat::ONLY_ADMINS))
        }
        Some("open") => {
            let words: Vec<&str> = args.words().skip(1).collect();
            match opening::parse(&words, now_ms()) {
                Ok(opening) => LadderWork::Open(opening, seat.player().name.to_string()),
                Err(error) => return console.say(format!("{error}\n")),
            }
        }
        Some("close") => match number(args.word(1)) {
            Some(id) => LadderWork::Close(id),
            None => return console.say(String::from(USAGE)),
        },
        Some("enter") => match number(args.word(1)) {
            _ if seat.player().guest => {
                return console.say(String::from(
                    "A ladder keeps its entrants' results: take a name first (name NAME).\n",
                ))
            }
            Some(id) => LadderWork::Enter {
                id,
                player_key: seat.player().key.to_string(),
                bot: seat.is_bot(),
            },
            None => return console.say(String::from(USAGE)),
        },
        Some("results") => match (number(args.word(1)), args.word(2)) {
            (Some(id), Some(name)) => LadderWork::Results(id, name.to_ascii_lowercase()),
            _ => return console.say(String::from(USAGE)),
        },
        Some(word) => match number(Some(word)) {
            Some(id) if !args.more_than(1) => LadderWork::Table(id),
            _ => return console.say(String::from(USAGE)),
        },
        None => return console.say(String::from(USAGE)),
    };
    console.store_job(StoreWork::Ladder(work))
}

/// What the job gave: words, or a ladder entered (its first seed's game to start).
pub(in crate::console) enum Answer {
    /// Say this.
    Said(String),
    /// The entrant's place and its first seed.
    Entered(SeedDone),
}

fn failed(error: &StoreError) -> String {
    format!("Cannot do that now: {}.\n", store_failed(error))
}

impl LadderWork {
    /// Do it.
    pub(in crate::console) async fn run(
        self,
        services: &Services,
        context: Arc<Context>,
    ) -> Answer {
        let store = &services.store;
        let said = match self {
            LadderWork::Open(opening, by) => open(services, opening, by, context).await,
            LadderWork::Close(id) => match store.close_ladder(id, now_ms()).await {
                Ok(true) => format!("Ladder {id} is closed: ladder {id} shows its final table.\n"),
                Ok(false) => format!("No open ladder {id}.\n"),
                Err(error) => failed(&error),
            },
            LadderWork::Table(id) => table_text(services, id).await,
            LadderWork::Results(id, key) => results_text(store, id, &key).await,
            LadderWork::List => list_text(store).await,
            LadderWork::Enter {
                id,
                player_key,
                bot,
            } => return enter(store, id, &player_key, bot, context).await,
        };
        Answer::Said(said)
    }
}

/// The words of a ladder's heading: `ladder 3: wumpus, seeds 1-100, 200ms a move`.
pub fn heading(ladder: &Ladder) -> String {
    let mut text = format!(
        "Ladder {}: {}, seeds {}-{}",
        ladder.id, ladder.game, ladder.first_seed, ladder.last_seed
    );
    if let Some(ms) = ladder.move_ms {
        text.push_str(&format!(
            ", {} a move",
            humantime::format_duration(Duration::from_millis(ms))
        ));
    }
    if !ladder.humans {
        text.push_str(", bots only");
    }
    match (ladder.closed_at, ladder.until) {
        (Some(_), _) => text.push_str(", closed"),
        (None, Some(until)) => {
            text.push_str(&format!(", open until {}", crate::text::rfc3339(until)));
        }
        (None, None) => text.push_str(", open"),
    }
    text
}

async fn open(services: &Services, opening: Opening, by: String, context: Arc<Context>) -> String {
    let store = &services.store;
    let spec = LadderSpec {
        game: opening.game.to_string(),
        first_seed: opening.seeds.0,
        last_seed: opening.seeds.1,
        move_ms: opening
            .move_limit
            .map(|limit| u64::try_from(limit.as_millis()).unwrap_or(u64::MAX)),
        until: opening.until,
        humans: opening.humans,
        opened_by: by,
    };
    let id = match store.open_ladder(&spec, now_ms()).await {
        Ok(id) => id,
        Err(error) => return failed(&error),
    };
    tracing::info!(ladder = id, game = %spec.game, "ladder opened");
    tokio::spawn(baselines(
        store.clone(),
        Arc::clone(&services.baselines),
        id,
        opening,
        context,
    ));
    format!(
        "Ladder {id} is open: {}. ladder enter {id} plays it; the built-in agents' scores\nfollow as they are played.\n",
        heading(&Ladder {
            id,
            game: spec.game,
            first_seed: spec.first_seed,
            last_seed: spec.last_seed,
            move_ms: spec.move_ms,
            until: spec.until,
            humans: spec.humans,
            opened_by: spec.opened_by,
            opened_at: now_ms(),
            closed_at: None,
        })
    )
}

/// Every built-in agent that plays the game, on every seed: its scores, kept as the
/// ladder's baselines. On a blocking thread, a seed at a time, and one ladder at a
/// time (`queue`'s one permit): ladders opened meanwhile wait their turn.
async fn baselines(
    store: Store,
    queue: Arc<tokio::sync::Semaphore>,
    id: i64,
    opening: Opening,
    context: Arc<Context>,
) {
    let Some(kind) = GameKind::from_name(opening.game) else {
        return;
    };
    // Held until the last seed: the queue is never closed, so this waits its turn.
    let Ok(_turn) = queue.acquire_owned().await else {
        return;
    };
    let (first, last) = opening.seeds;
    for seed in first..=last {
        let scores = tokio::task::spawn_blocking({
            let context = Arc::clone(&context);
            move || baseline_scores(kind, seed, &context)
        })
        .await
        .unwrap_or_default();
        for (agent, score) in scores {
            if let Err(error) = store.set_ladder_baseline(id, seed, agent, score).await {
                tracing::error!(%error, ladder = id, "cannot keep a baseline; the table goes without it");
                return;
            }
        }
    }
    tracing::info!(ladder = id, "ladder's baselines played");
}

/// Each agent's score on `seed`.
fn baseline_scores(
    kind: &'static GameKind,
    seed: u64,
    context: &Context,
) -> Vec<(&'static str, i64)> {
    let args = next_seed(kind, seed).args;
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    driver::AGENTS
        .iter()
        .filter_map(|&(agent, _)| {
            let mut policy = driver::agent(agent, kind.name, seed)?;
            let mut game = (kind.start)(&words, context).ok()?;
            let played = driver::play(game.as_mut(), policy.as_mut(), BASELINE_MOVES);
            Some((agent, played.score))
        })
        .collect()
}

/// Ladder `id`'s table, read through the cache everyone shares (a class typing
/// `ladder 1` makes one read of the store, not one each).
async fn table_text(services: &Services, id: i64) -> String {
    match services.ladder_tables.table(&services.store, id).await {
        Ok(Some(read)) => format!(
            "{}.\n{}",
            heading(&read.ladder),
            table::render(&read.rows, read.seeds)
        ),
        Ok(None) => format!("No ladder {id}: ladders lists them.\n"),
        Err(error) => failed(&error),
    }
}

async fn results_text(store: &Store, id: i64, key: &str) -> String {
    let lines = match ladder_tables::seeds(store, id, Some(key)).await {
        Ok(lines) => lines,
        Err(error) => return failed(&error),
    };
    let Some(first) = lines.first() else {
        return format!("{key} has no results in ladder {id}.\n");
    };
    let mut text = format!(
        "{}'s seeds in ladder {id}:\n  seed   score  moves  outcome           best agent\n",
        first.result.player
    );
    for line in &lines {
        let result = &line.result;
        let best = line
            .best
            .as_ref()
            .map_or_else(String::new, |(agent, score)| format!("{score} ({agent})"));
        let shown = match line.standing {
            Standing::Counted => result.outcome.clone(),
            Standing::Pending => format!("{} (checking)", result.outcome),
            Standing::Refused => String::from("refused by replay"),
            Standing::Forfeit => String::from("forfeit on time"),
        };
        text.push_str(&format!(
            "{:>6}  {:>6}  {:>5}  {:<16}  {best}\n",
            result.seed,
            result.score,
            result.moves,
            crate::text::fit(&shown, 16)
        ));
    }
    text
}

async fn list_text(store: &Store) -> String {
    match store.ladders(false).await {
        Ok(ladders) if ladders.is_empty() => {
            String::from("No ladder is open. An admin opens one: ladder open GAME seeds=A-B.\n")
        }
        Ok(ladders) => {
            let mut text = String::from("Open ladders:\n");
            for ladder in &ladders {
                text.push_str(&format!("  {}\n", heading(ladder)));
            }
            text.push_str("ladder N shows a table; ladder enter N plays the seeds.\n");
            text
        }
        Err(error) => failed(&error),
    }
}

async fn enter(store: &Store, id: i64, key: &str, bot: bool, context: Arc<Context>) -> Answer {
    let said = |text: String| Answer::Said(text);
    let ladder = match store.ladder(id).await {
        Ok(Some(ladder)) => ladder,
        Ok(None) => return said(format!("No ladder {id}: ladders lists them.\n")),
        Err(error) => return said(failed(&error)),
    };
    if ladder.closed_at.is_some() || ladder.until.is_some_and(|until| until <= now_ms()) {
        return said(format!(
            "Ladder {id} is closed: ladder {id} shows its table.\n"
        ));
    }
    if !ladder.humans && !bot {
        return said(format!(
            "Ladder {id} is for bots only (bot NAME, docs/bots.md).\n"
        ));
    }
    let Some(kind) = GameKind::from_name(&ladder.game) else {
        return said(format!(
            "Ladder {id}'s game {} is not on this server.\n",
            ladder.game
        ));
    };
    let played = match store.ladder_results_of(id, key).await {
        Ok(results) => results,
        Err(error) => return said(failed(&error)),
    };
    // Seeds are played in order, once: the first not played yet.
    let next = (ladder.first_seed..=ladder.last_seed)
        .find(|seed| played.iter().all(|result| result.seed != *seed));
    let Some(seed) = next else {
        return said(format!(
            "You have played every seed of ladder {id}: ladder {id} shows the table.\n"
        ));
    };
    let run = LadderRun::new(
        id,
        kind,
        seed,
        ladder.last_seed,
        ladder.move_ms.map(Duration::from_millis),
    );
    let next = next_seed(kind, seed);
    let game = start(&next, context).await;
    Answer::Entered(SeedDone {
        text: String::new(),
        note: format!("{}.\n", heading(&ladder)),
        run: Some(Box::new(run)),
        next: Some((next, game)),
    })
}

/// Start a seed's game, on a blocking thread (a level may be read).
pub(in crate::console) async fn start(
    next: &crate::console::ladder::NextSeed,
    context: Arc<Context>,
) -> Result<crate::catalog::table::NewGame, String> {
    let kind = next.kind;
    let args = next.args.clone();
    tokio::task::spawn_blocking(move || {
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        (kind.start)(&words, &context)
    })
    .await
    .unwrap_or_else(|_| Err(String::from("The game could not start (a bug).")))
}
