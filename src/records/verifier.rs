//! The check of each result by replay (SPEC section 8): a result is written unchecked;
//! this task then replays its recording from the start, off the event loop, and only a
//! result whose replay reaches the same end enters the leaderboards. A mismatch is
//! logged and the result kept out. With several instances on one PostgreSQL each runs
//! a verifier: a result's first mark stands ([`Store::set_verified`]).

use super::REPORT_EVERY;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::catalog::table::{Context, Contexts};
use crate::records::recording::{self, Recording};
use crate::store::{LadderResult, Pending, Store, StoreError};

/// Results checked per round trip to the database and to a blocking thread.
const VERIFY_BATCH: u32 = 200;

/// Whether replaying `recording` reaches the result `pending` says it did.
pub fn check(recording: &Recording, pending: &Pending, context: &Context) -> Result<(), String> {
    let finishes = recording::finishes(
        recording,
        usize::try_from(pending.upto).unwrap_or(usize::MAX),
        context,
    )
    .map_err(|error| error.to_string())?;
    let Some((last, helped)) = finishes.last() else {
        return Err(String::from("the replay reaches no end"));
    };
    if Some(last) != pending.finish.as_ref() {
        return Err(format!(
            "the replay ends with {last:?}, the result says {:?}",
            pending.finish
        ));
    }
    // Help is read from the recording's own lines: a result cannot hide a hint.
    if *helped != pending.helped {
        return Err(format!(
            "the recording says help was used: {helped}, the result says {}",
            pending.helped
        ));
    }
    Ok(())
}

/// Check every unchecked result, now and whenever the writer wrote new ones.
pub(crate) async fn verify_loop(store: Store, contexts: Contexts, verify: Arc<Notify>) {
    let mut checked = 0u64;
    let mut cpu = Duration::ZERO;
    let mut last_report = Instant::now();
    loop {
        // The levels of now: a result is checked against the files its game started
        // with unless they were reloaded in between (docs/teaching.md, "Levels without a restart").
        if let Err(error) = verify_ladders(&store, &contexts.current()).await {
            tracing::error!(%error, "cannot check ladder results now; retrying");
        }
        match verify_pending(&store, &contexts.current()).await {
            Ok((count, spent)) => {
                checked += count;
                cpu += spent;
            }
            Err(error) => tracing::error!(%error, "cannot check results now; retrying"),
        }
        if checked > 0 && last_report.elapsed() >= REPORT_EVERY {
            let each = cpu.as_micros() / u128::from(checked.max(1));
            tracing::info!(
                checked,
                replay_us_each = each as u64,
                "results checked by replay in the last 10 s"
            );
            checked = 0;
            cpu = Duration::ZERO;
            last_report = Instant::now();
        }
        // Woken by the writer; the timeout retries after a failure.
        let _ = tokio::time::timeout(Duration::from_secs(10), verify.notified()).await;
    }
}

/// Whether replaying `recording` to its end gives the ladder result `result`: the same
/// score (as a bot's state counts it) after the same moves.
pub fn check_ladder(
    recording: &Recording,
    result: &LadderResult,
    context: &Context,
) -> Result<(), String> {
    let (mut replay, _) =
        recording::Replay::begin(&recording.start, context).map_err(|error| error.to_string())?;
    for input in &recording.inputs {
        if replay.is_over() {
            break;
        }
        replay.step(&input.line);
    }
    let (game, memory) = replay.into_game();
    let score = game.observe(&memory).score;
    let moves = game.progress().moves;
    if (score, moves) != (result.score, result.moves) {
        return Err(format!(
            "the replay ends with score {score} after {moves} moves, the result says {} after {}",
            result.score, result.moves
        ));
    }
    Ok(())
}

/// Check the unchecked ladder results (SPEC section 12), in batches.
async fn verify_ladders(store: &Store, context: &Arc<Context>) -> Result<(), StoreError> {
    loop {
        let pending = store.pending_ladder_results(VERIFY_BATCH).await?;
        if pending.is_empty() {
            return Ok(());
        }
        let mut work = Vec::with_capacity(pending.len());
        for result in pending {
            let Some(id) = result.recording_id else {
                work.push((result, Err(String::from("it has no recording"))));
                continue;
            };
            let recording = load_to_check(store, id).await?;
            work.push((result, recording));
        }
        let context = Arc::clone(context);
        let checked = tokio::task::spawn_blocking(move || {
            work.into_iter()
                .map(|(result, recording)| {
                    let verdict =
                        recording.and_then(|recording| check_ladder(&recording, &result, &context));
                    (result.id, verdict)
                })
                .collect::<Vec<_>>()
        })
        .await;
        let Ok(verdicts) = checked else {
            tracing::error!("checking ladder results failed (a bug); they are checked again later");
            return Ok(());
        };
        for (id, verdict) in &verdicts {
            if let Err(why) = verdict {
                tracing::warn!(ladder_result = id, %why, "a ladder result does not replay to its end: kept off the table");
            }
        }
        let marks: Vec<(i64, bool)> = verdicts
            .iter()
            .map(|(id, verdict)| (*id, verdict.is_ok()))
            .collect();
        store.set_ladder_verified(&marks).await?;
    }
}

/// Recording `id`, for a result's check: the recording, or why the result cannot be
/// checked (gone, damaged: it is then refused); an error when the store does not
/// answer (the check waits for the next round).
async fn load_to_check(store: &Store, id: i64) -> Result<Result<Recording, String>, StoreError> {
    match recording::load(store, id).await {
        Ok(Some((_, recording))) => Ok(Ok(recording)),
        Ok(None) => Ok(Err(String::from("its recording is gone"))),
        Err(StoreError::Damaged(why)) => Ok(Err(why)),
        Err(error) => Err(error),
    }
}

/// Check the unchecked results, in batches; how many, and the time their replays took.
async fn verify_pending(
    store: &Store,
    context: &Arc<Context>,
) -> Result<(u64, Duration), StoreError> {
    let mut count = 0;
    let mut spent = Duration::ZERO;
    loop {
        let pending = store.pending_results(VERIFY_BATCH).await?;
        if pending.is_empty() {
            return Ok((count, spent));
        }
        let mut work = Vec::with_capacity(pending.len());
        for result in pending {
            let recording = load_to_check(store, result.recording_id).await?;
            work.push((result, recording));
        }
        // One trip to a blocking thread for the whole batch of replays.
        let context = Arc::clone(context);
        let checked = tokio::task::spawn_blocking(move || {
            let began = Instant::now();
            let verdicts: Vec<(Pending, Result<(), String>)> = work
                .into_iter()
                .map(|(result, recording)| {
                    let verdict =
                        recording.and_then(|recording| check(&recording, &result, &context));
                    (result, verdict)
                })
                .collect();
            (verdicts, began.elapsed())
        })
        .await;
        let Ok((verdicts, took)) = checked else {
            tracing::error!("checking results failed (a bug); they are checked again later");
            return Ok((count, spent));
        };
        spent += took;
        count += verdicts.len() as u64;
        for (result, verdict) in &verdicts {
            if let Err(why) = verdict {
                tracing::warn!(result = result.id, recording = result.recording_id, %why, "a result does not replay to its end: kept out of the leaderboards");
            }
        }
        let marks: Vec<(i64, bool)> = verdicts
            .iter()
            .map(|(result, verdict)| (result.id, verdict.is_ok()))
            .collect();
        store.set_verified(&marks).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use crate::games::{Finish, Outcome};
    use crate::records::recording::{Input, Start};

    /// A random wumpus world's result replays to its end from the recording's world,
    /// and from its recorded words alone (the drawn seed is among them).
    #[test]
    fn a_random_wumpus_world_replays_to_its_result() {
        use crate::catalog::kind::GameKind;
        use crate::games::Memory;
        let context = Context {
            levels: Levels::built_in().0,
            data_dir: std::env::temp_dir().join("arcade-verifier-tests-unused"),
        };
        let kind = GameKind::from_name("wumpus").unwrap();
        let args = (kind.recorded_args)(vec![String::from("random"), String::from("pits=0.3")]);
        assert!(args[2].starts_with("seed="), "{args:?}");
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut live = (kind.start)(&words, &context).unwrap();
        let world = live.state();
        let mut memory = Memory::default();
        live.start(&mut memory);
        let lines = ["turn left", "shoot", "turn right", "climb"];
        for line in lines {
            live.handle(line, &mut memory);
        }
        let mut finish = live.take_finish().expect("climbing out ends the game");
        finish.level = Some((kind.level_key)(&args));
        assert_eq!(finish.moves, 4);
        let recording = |args: Vec<String>, world: Option<String>| Recording {
            start: Start {
                game: String::from("wumpus"),
                args,
                memory: String::new(),
                world,
            },
            inputs: lines
                .iter()
                .map(|line| Input {
                    at_ms: 0,
                    line: line.to_string(),
                })
                .collect(),
        };
        let pending = Pending {
            id: 1,
            recording_id: 1,
            upto: 4,
            finish: Some(finish),
            helped: false,
        };
        let kept = recording(args.clone(), world);
        assert_eq!(check(&kept, &pending, &context), Ok(()));
        assert_eq!(
            check(&recording(args.clone(), None), &pending, &context),
            Ok(())
        );
        // Another seed is another world, ranked apart: its replay does not agree.
        let mut other = args;
        other[2] = String::from("seed=1");
        if other != kept.start.args {
            assert!(check(&recording(other, None), &pending, &context).is_err());
        }
    }

    #[test]
    fn a_result_that_hides_a_hint_is_kept_out() {
        let context = Context {
            levels: Levels::built_in().0,
            data_dir: std::env::temp_dir().join("arcade-verifier-tests-unused"),
        };
        let recording = Recording {
            start: Start {
                game: String::from("starpusher"),
                args: vec![String::from("arcade"), String::from("1")],
                memory: String::new(),
                world: None,
            },
            inputs: ["/hint\nPush the box at row 1, column 4 to the right.", "d3"]
                .iter()
                .map(|line| Input {
                    at_ms: 0,
                    line: line.to_string(),
                })
                .collect(),
        };
        let mut pending = Pending {
            id: 1,
            recording_id: 1,
            upto: 2,
            finish: Some(Finish {
                level: Some(String::from("arcade 1")),
                moves: 3,
                pushes: 2,
                ..Finish::new(Outcome::Solved)
            }),
            helped: true,
        };
        assert_eq!(check(&recording, &pending, &context), Ok(()));
        pending.helped = false;
        let refused = check(&recording, &pending, &context).unwrap_err();
        assert!(refused.contains("help was used"), "{refused}");
    }
}
