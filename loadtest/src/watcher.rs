//! One load-test session that watches a player (`--watchers`): it takes its name, waits
//! for its player to be in a game, types `watch NAME`, and then times every frame it
//! receives from when the player sent the command the frame answers.
//!
//! Frames carry no number: they are the player's replies in order, and the player
//! sends nothing before its watchers have the first board (see [`super::social`]), so
//! the k-th frame after the first board answers the player's k-th command. Frames the
//! server says it dropped (a watcher that falls behind is told how many) move the
//! count on and are counted as lost, so the frames after them are still matched right.

use std::sync::Arc;

use tokio::time::Instant;

use super::connection::{Connection, GAME_PROMPT};
use super::driver::{self, Ready};
use super::failure::{Failure, Waiting};
use super::parse;
use super::plan::Plan;
use super::social::Watched;
use super::stats::Recorder;

/// Run watcher session `index` of `plan` (numbered after the players), recording into
/// `recorder`; a failure is recorded with its reason and ends only this session.
pub(crate) async fn session(index: usize, plan: Arc<Plan>, recorder: Arc<Recorder>) {
    let player = (index - plan.sessions) % plan.sessions.max(1);
    let Some(watched) = plan.watched.get(player) else {
        return;
    };
    // Until this watcher has the first board, its player waits for it; however the
    // watcher ends before that, the player stops waiting.
    let mut pending = Pending(Some(watched));
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if Instant::now() >= plan.end {
        return;
    }
    if let Err(failure) = watch(index, player, &plan, &recorder, &mut pending).await {
        recorder.failure(failure.to_string());
    }
}

/// A watcher that has not yet had the first board.
struct Pending<'a>(Option<&'a Watched>);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(watched) = self.0.take() {
            watched.gave_up();
        }
    }
}

async fn watch(
    index: usize,
    player: usize,
    plan: &Plan,
    recorder: &Recorder,
    pending: &mut Pending<'_>,
) -> Result<(), Failure> {
    let mut connection = driver::connect(index, plan, recorder, true).await?;
    let (Some(watched), Some(name)) = (pending.0, plan.name(player)) else {
        // Watchers always have a player with a name (run() sees to it).
        return Err(Failure::NoPlayer);
    };
    if !watched.wait_playing(plan.measure_start).await {
        return Err(Failure::NoPlayer);
    }
    connection.send_line(&format!("watch {name}")).await?;
    let reply = connection
        .expect_reply(GAME_PROMPT, Waiting::Watch, Instant::now() + plan.timeout)
        .await?;
    let intro = format!("You are watching {name}. Type anything to stop.\r\n");
    if !reply.starts_with(intro.as_bytes()) {
        return Err(Failure::unexpected(Waiting::Watch, &reply));
    }
    // Counted in (or found late) exactly once: no longer pending either way.
    pending.0 = None;
    watched.arrived()?;
    let _ready = Ready::enter(recorder);
    let mut frames = Frames {
        index,
        plan,
        recorder,
        watched,
        next: 0,
    };
    loop {
        tokio::select! {
            read = connection.read_some(Waiting::Frame) => {
                read?;
                if frames.take(&mut connection)? == Watching::Ended {
                    // The player leaves once the window is over and its frames are
                    // delivered, maybe before this session's own timer says so.
                    if Instant::now() >= plan.end {
                        return Ok(());
                    }
                    return Err(ended(&connection));
                }
            }
            () = tokio::time::sleep_until(plan.end) => break,
        }
    }
    // Stay for the frames still on their way: those of every command the player sends
    // in the window, the last of which may leave after the window's end (the drain
    // waits for the player's last send too).
    let drained = recorder.drained(plan.drain_deadline());
    tokio::pin!(drained);
    loop {
        tokio::select! {
            read = connection.read_some(Waiting::Frame) => {
                read?;
                // The game may end now that the player is done: that is no failure.
                if frames.take(&mut connection)? == Watching::Ended {
                    break;
                }
            }
            () = &mut drained => break,
        }
    }
    Ok(())
}

/// The failure for a watch the server ended while the run went on.
fn ended(connection: &Connection) -> Failure {
    let text = String::from_utf8_lossy(connection.buffer());
    let last = text
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty() && *line != ">")
        .unwrap_or("")
        .chars()
        .take(60)
        .collect();
    Failure::WatchEnded(last)
}

/// Whether the watcher still watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watching {
    /// Frames go on.
    Still,
    /// The server sent the watcher back to the lobby.
    Ended,
}

/// Matches the frames a watcher receives to its player's commands.
struct Frames<'a> {
    /// The watcher's session, for its histogram shard.
    index: usize,
    plan: &'a Plan,
    recorder: &'a Recorder,
    /// The player watched: when it sent each command.
    watched: &'a Watched,
    /// The player's command the next frame answers (0: its first).
    next: usize,
}

impl Frames<'_> {
    /// Time every whole frame received so far.
    fn take(&mut self, connection: &mut Connection) -> Result<Watching, Failure> {
        let now = Instant::now();
        let buffer = connection.buffer();
        let mut taken = 0;
        while let Some(end) = parse::frame_end(&buffer[taken..]) {
            let frame = &buffer[taken..taken + end];
            self.skip(parse::skipped_before(frame));
            let Some(sent) = self.watched.sent(self.next) else {
                return Err(Failure::StrayFrame(self.next));
            };
            self.recorder.delivery(
                self.index,
                now.saturating_duration_since(self.plan.at_micros(sent.at_us)),
                sent.measured,
            );
            self.next += 1;
            taken += end;
        }
        if parse::back_in_lobby(&buffer[taken..]) {
            return Ok(Watching::Ended);
        }
        connection.consume(taken, Waiting::Frame)?;
        Ok(Watching::Still)
    }

    /// The server dropped the frames of the next `count` commands: lost, and counted
    /// as such when their commands were sent in the measured window.
    fn skip(&mut self, count: u64) {
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let after = self.next.saturating_add(count);
        // Only commands sent can have lost frames: a count beyond them (which no
        // server of ours sends) costs no more than the commands there are.
        let lost = (self.next..after.min(self.watched.sent_len()))
            .filter(|&command| self.watched.sent(command).is_some_and(|sent| sent.measured))
            .count();
        self.recorder.skipped(lost as u64);
        self.next = after;
    }
}
