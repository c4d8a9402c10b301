//! One load-test session, from connect to the end of the run.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::time::Instant;

use super::connection::{Connection, Waiting, GAME_PROMPT, LOBBY_PROMPT};
use super::stats::Recorder;
use super::{Failure, Mode, Plan};

/// Counts a session as in its game for as long as it lives.
struct InGame<'a>(&'a Recorder);

impl<'a> InGame<'a> {
    fn enter(recorder: &'a Recorder) -> Self {
        recorder.in_game.fetch_add(1, Ordering::Relaxed);
        InGame(recorder)
    }
}

impl Drop for InGame<'_> {
    fn drop(&mut self) {
        self.0.in_game.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Run session `index` of `plan`, recording into `recorder`; a failure is recorded
/// with its reason and ends only this session.
pub(crate) async fn session(index: usize, plan: Arc<Plan>, recorder: Arc<Recorder>) {
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if Instant::now() >= plan.end {
        return;
    }
    if let Err(failure) = play(index, &plan, &recorder).await {
        recorder.failure(failure.to_string());
    }
}

async fn play(index: usize, plan: &Plan, recorder: &Recorder) -> Result<(), Failure> {
    let connecting = Instant::now();
    let mut connection = tokio::time::timeout(
        plan.timeout,
        Connection::open(plan.target, plan.source(index)),
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
    connection.send_line(plan.script.lobby_line()).await?;
    connection
        .expect(GAME_PROMPT, Waiting::Game, Instant::now() + plan.timeout)
        .await?;
    let _in_game = InGame::enter(recorder);
    let commands = plan.script.commands().iter().cycle();
    match plan.mode {
        Mode::Idle => tokio::time::sleep_until(plan.end).await,
        Mode::Closed => {
            for command in commands {
                let sent = Instant::now();
                if sent >= plan.end {
                    break;
                }
                command_round_trip(&mut connection, command, plan).await?;
                recorder.command(index, sent.elapsed(), plan.is_measured(sent));
            }
        }
        Mode::Open(interval) => {
            // A random phase within one interval, so that sessions connected together
            // do not send together.
            let mut due = Instant::now() + interval.mul_f64(rand::random::<f64>());
            let mut last_reply = Instant::now();
            for command in commands {
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
                command_round_trip(&mut connection, command, plan).await?;
                last_reply = Instant::now();
                recorder.command(index, last_reply - start, plan.is_measured(due));
                due += interval;
            }
            // Stay connected to the end. A session that closed after its last
            // command would do so within the last interval of the measured window,
            // and then the window would time every session's teardown, on both sides,
            // along with the commands.
            tokio::time::sleep_until(plan.end).await;
        }
    }
    Ok(())
}

async fn command_round_trip(
    connection: &mut Connection,
    command: &str,
    plan: &Plan,
) -> Result<(), Failure> {
    connection.send_line(command).await?;
    connection
        .expect(GAME_PROMPT, Waiting::Reply, Instant::now() + plan.timeout)
        .await
}
