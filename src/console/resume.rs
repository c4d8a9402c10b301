//! `resume`: a registered player's unfinished game rebuilt from its recording, input
//! by input, and taken up where it stopped.

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::table::{Context, GameKind, NewGame};
use crate::games::Memory;
use crate::records::recorder::{Player, Tape};
use crate::records::recording::{self, Replay};
use crate::seat::{self, Services};
use crate::store::RecordingState;

use super::JOB_FAILED;

/// How long `resume` waits for the recording to be written.
const RESUME_WAIT: Duration = Duration::from_secs(5);

/// An unfinished game rebuilt from its recording.
pub(super) struct Resumed {
    pub(super) kind: &'static GameKind,
    pub(super) game: NewGame,
    pub(super) memory: Memory,
    pub(super) tape: Tape,
}

/// Rebuild `player`'s unfinished game from its recording, exactly: every input is
/// played again, so board, counters and undo history are as they were.
pub(super) async fn resume(
    player: Player,
    services: Services,
    context: Arc<Context>,
) -> Result<Box<Resumed>, String> {
    let failed = |error: &crate::store::StoreError| {
        format!("Cannot resume now: {}.", seat::store_failed(error))
    };
    // The game may have lost its connection a moment ago (a takeover): wait for its
    // last lines to be written. Or its instance may have stopped (several instances):
    // the store reports it unfinished once that instance's heartbeat is stale, so
    // look for a little longer than that.
    let mut found = None;
    let looks = 20 + crate::store::STALE_AFTER_MS / 100;
    for _ in 0..looks {
        if !services.recorder.flush(RESUME_WAIT).await {
            return Err(String::from(
                "Cannot resume now: the server's database is not available right now,\ntry again later.",
            ));
        }
        match services
            .store
            .waiting_game(&player.key)
            .await
            .map_err(|e| failed(&e))?
        {
            // Still open: the connection that played it is closing; look again.
            Some((_, _, RecordingState::Open)) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            waiting => {
                found = waiting.map(|(id, _, _)| id);
                break;
            }
        }
    }
    let Some(id) = found else {
        return Err(String::from("You have no unfinished game."));
    };
    rebuild(player, &services, context, id, None).await
}

/// Rebuild recording `id`, `player`'s unfinished game, exactly by replay, and carry on
/// recording it: what `resume` does once it has found the game, and what an upgrade
/// does with each game that moves (SPEC section 11), which knows what was `moved`
/// (inputs and milliseconds played): the recording must have exactly those inputs.
pub(super) async fn rebuild(
    player: Player,
    services: &Services,
    context: Arc<Context>,
    id: i64,
    moved: Option<(u64, u64)>,
) -> Result<Box<Resumed>, String> {
    let failed = |error: &crate::store::StoreError| {
        format!("Cannot resume now: {}.", seat::store_failed(error))
    };
    let Some((listed, recording)) = recording::load(&services.store, id)
        .await
        .map_err(|e| failed(&e))?
    else {
        return Err(String::from("You have no unfinished game."));
    };
    let kind = GameKind::from_name(&listed.game)
        .ok_or_else(|| format!("Cannot resume: this server has no game {}.", listed.game))?;
    let rebuilt = tokio::task::spawn_blocking(move || {
        let (mut replay, _) = Replay::begin(&recording.start, &context)?;
        // Help asked for since the last result marks the next one, as live.
        let mut helped = false;
        for input in &recording.inputs {
            helped |= recording::is_help(&input.line);
            if replay.step(&input.line).finish.is_some() {
                helped = false;
            }
        }
        let over = replay.is_over();
        Ok::<_, recording::ReplayError>((replay.into_game(), over, recording, helped))
    })
    .await
    .map_err(|_| String::from(JOB_FAILED.trim_end()))?
    .map_err(|error| format!("Cannot resume: {error}."))?;
    let ((game, memory), over, recording, helped) = rebuilt;
    if over {
        return Err(String::from("You have no unfinished game."));
    }
    let level = (kind.level_key)(&recording.start.args);
    let tape = match moved {
        Some((inputs, _)) if recording.inputs.len() as u64 != inputs => {
            return Err(format!(
                "its recording has {} inputs where {inputs} were played",
                recording.inputs.len()
            ))
        }
        Some(played) => {
            services
                .recorder
                .carry_on(player, (&listed, &recording), level, helped, played)
        }
        None => services
            .recorder
            .reopen(player, &listed, &recording, level, helped),
    };
    Ok(Box::new(Resumed {
        kind,
        game,
        memory,
        tape,
    }))
}
