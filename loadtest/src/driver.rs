//! One load-test session that plays a game, from connect (and `--setup`) to the end
//! of the run (ending it and starting another every so often with
//! `--restart-every`); and the steps every kind of session starts with (connect,
//! banner, name).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::time::Instant;

use super::connection::{Connection, GAME_PROMPT, LOBBY_PROMPT};
use super::failure::{Failure, Waiting};
use super::plan::{Mode, Plan};
use super::script::{Step, StepKind};
use super::social::{GoneOnDrop, Sent, Stage, Watched};
use super::stats::{Recorder, Sending};

/// Counts a session as ready (in its game, settled in the lobby, or watching) for as
/// long as it lives.
pub(crate) struct Ready<'a>(&'a Recorder);

impl<'a> Ready<'a> {
    /// Count the session in until this is dropped.
    pub(crate) fn enter(recorder: &'a Recorder) -> Self {
        recorder.ready.fetch_add(1, Ordering::Relaxed);
        Ready(recorder)
    }
}

impl Drop for Ready<'_> {
    fn drop(&mut self) {
        self.0.ready.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Run session `index` of `plan`, recording into `recorder`; a failure is recorded
/// with its reason and ends only this session.
pub(crate) async fn session(
    index: usize,
    plan: Arc<Plan>,
    recorder: Arc<Recorder>,
    sending: Sending,
) {
    // However the session ends, its watchers stop waiting for it.
    let _gone = GoneOnDrop(plan.watched.get(index));
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if Instant::now() >= plan.end {
        return;
    }
    if let Err(failure) = play(index, &plan, &recorder, sending).await {
        recorder.failure(failure.to_string());
    }
}

/// Connect session `index` and read the banner (timed as the connect); with
/// `take_name`, also take the session's name if the plan gives names.
pub(crate) async fn connect(
    index: usize,
    plan: &Plan,
    recorder: &Recorder,
    take_name: bool,
) -> Result<Connection, Failure> {
    let connecting = Instant::now();
    let mut connection = tokio::time::timeout(
        plan.timeout,
        Connection::open(plan.target, plan.source(index), plan.ssh),
    )
    .await
    .map_err(|_| {
        Failure::Connect(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "no answer within --timeout",
        ))
    })?
    .map_err(Failure::Connect)?;
    connection
        .expect(LOBBY_PROMPT, Waiting::Banner, connecting + plan.timeout)
        .await?;
    recorder.connect(connecting.elapsed());
    if let Some(name) = plan.name(index).filter(|_| take_name) {
        connection.send_line(&format!("name {name}")).await?;
        let reply = connection
            .expect_reply(LOBBY_PROMPT, Waiting::Name, Instant::now() + plan.timeout)
            .await?;
        if reply != named(&name).as_bytes() {
            return Err(Failure::unexpected(Waiting::Name, &reply));
        }
    }
    Ok(connection)
}

/// The line the server answers `name NAME` with when it takes the name (SPEC 7).
pub(crate) fn name_line(name: &str) -> String {
    format!("You are now {name}.")
}

/// The server's whole reply to `name NAME` when it takes the name.
fn named(name: &str) -> String {
    format!("{}\r\n{}", name_line(name), arcade::console::lobby::PROMPT)
}

async fn play(
    index: usize,
    plan: &Plan,
    recorder: &Recorder,
    sending: Sending,
) -> Result<(), Failure> {
    let mut connection = connect(index, plan, recorder, true).await?;
    set_up(&mut connection, plan, recorder).await?;
    connection.send_line(plan.script.lobby_line()).await?;
    connection
        .expect(GAME_PROMPT, Waiting::Game, Instant::now() + plan.timeout)
        .await?;
    let _ready = Ready::enter(recorder);
    let mut watched = match plan.watched.get(index) {
        Some(watched) => {
            watched.set_stage(Stage::Playing);
            // Its watchers match frames to commands by counting from the first
            // board on: no command before every watcher has it. At the latest when
            // the measured window begins, so that the window has its commands.
            let watchers = watched.start(plan.measure_start).await;
            Some(Frames { watched, watchers })
        }
        None => None,
    };
    // The first game's length is random in 1..=K, so that the sessions' exits are
    // spread over time instead of coming in waves of those that connected together.
    let first_game = plan
        .restart
        .map_or(0, |restart| rand::random_range(1..=restart.every.get()));
    let steps = plan.script.steps(plan.restart, first_game);
    match plan.mode {
        // Bots play in `bot`, not here.
        Mode::Idle | Mode::Chat(_) | Mode::Bots => tokio::time::sleep_until(plan.end).await,
        Mode::Closed => {
            for step in steps {
                let sent = Instant::now();
                if sent >= plan.end {
                    break;
                }
                let measured = plan.is_measured(sent);
                round_trip(
                    &mut connection,
                    step,
                    plan,
                    recorder,
                    &mut watched,
                    measured,
                )
                .await?;
                recorder.command(index, sent.elapsed(), measured);
            }
        }
        Mode::Open(interval) => {
            // A random phase within one interval, so that sessions connected together
            // do not send together.
            let mut due = Instant::now() + interval.mul_f64(rand::random::<f64>());
            let mut last_reply = Instant::now();
            for step in steps {
                if due >= plan.end {
                    break;
                }
                tokio::time::sleep_until(due).await;
                // When the previous reply came after this command was due, the server
                // held it back: count from when it was due (no coordinated omission).
                // Otherwise count from the send: the gap after `due` is this client's
                // timer, which fires on millisecond ticks, not the server's doing.
                let start = if last_reply > due {
                    due
                } else {
                    Instant::now()
                };
                let measured = plan.is_measured(due);
                round_trip(
                    &mut connection,
                    step,
                    plan,
                    recorder,
                    &mut watched,
                    measured,
                )
                .await?;
                last_reply = Instant::now();
                recorder.command(index, last_reply - start, measured);
                due += interval;
            }
            // Stay connected to the end. A session that closed after its last
            // command would do so within the last interval of the measured window,
            // and then the window would time every session's teardown, on both sides,
            // along with the commands.
            tokio::time::sleep_until(plan.end).await;
        }
    }
    recorder.stall.notices(connection.upgrade_notices);
    // Its last command is out: the drain need not wait for this session.
    drop(sending);
    if watched.is_some() {
        // Stay while the watchers receive the last frames: leaving would end their
        // watching.
        recorder.drained(plan.drain_deadline()).await;
    }
    Ok(())
}

/// Send the `--setup` lines in the lobby, each answered with the lobby prompt; not
/// timed. The first session to have every reply hands them to the report.
async fn set_up(
    connection: &mut Connection,
    plan: &Plan,
    recorder: &Recorder,
) -> Result<(), Failure> {
    if plan.setup.is_empty() {
        return Ok(());
    }
    let keep = !recorder.has_setup_replies();
    let mut replies = Vec::new();
    for line in &plan.setup {
        connection.send_line(line).await?;
        let reply = connection
            .expect_reply(LOBBY_PROMPT, Waiting::Setup, Instant::now() + plan.timeout)
            .await?;
        if keep {
            replies.push(reply_text(&reply));
        }
    }
    if keep {
        recorder.setup_done(replies);
    }
    Ok(())
}

/// A lobby reply as one line of text: its lines joined, the prompt and line endings
/// left out.
fn reply_text(reply: &[u8]) -> String {
    let reply = reply.strip_suffix(LOBBY_PROMPT).unwrap_or(reply);
    String::from_utf8_lossy(reply)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A watched player's part in timing its frames.
struct Frames<'a> {
    watched: &'a Watched,
    /// How many watch: each should get a frame for every command.
    watchers: usize,
}

/// Send one line of the game and wait for the prompt its reply ends with: the game's
/// for a command and for the lobby line that starts a new game, the lobby's for the
/// exit line.
async fn round_trip(
    connection: &mut Connection,
    step: Step<'_>,
    plan: &Plan,
    recorder: &Recorder,
    watched: &mut Option<Frames<'_>>,
    measured: bool,
) -> Result<(), Failure> {
    // Watchers time the frames of game commands only (--watchers and --restart-every
    // do not go together).
    if let (Some(frames), StepKind::Command) = (watched, step.kind) {
        // Noted before the write, so that the frame this command causes always finds
        // its send time.
        if measured {
            recorder.expect_deliveries(frames.watchers as u64);
        }
        frames.watched.sending(Sent {
            at_us: plan.micros(Instant::now()),
            measured,
        });
    }
    connection.send_line(step.line).await?;
    let (prompt, waiting) = match step.kind {
        StepKind::Command => (GAME_PROMPT, Waiting::Reply),
        StepKind::Exit => (LOBBY_PROMPT, Waiting::Exit),
        StepKind::Restart => (GAME_PROMPT, Waiting::Game),
    };
    connection
        .expect(prompt, waiting, Instant::now() + plan.timeout)
        .await?;
    if step.kind == StepKind::Restart {
        recorder.restarted(measured);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_reply_is_one_line_without_the_prompt() {
        let reply = b"Warnings are on: a push that leaves a Sokoban level unsolvable\r\n  is reported.\r\n> ";
        assert_eq!(
            reply_text(reply),
            "Warnings are on: a push that leaves a Sokoban level unsolvable is reported."
        );
        assert_eq!(reply_text(b"> "), "");
    }
}
