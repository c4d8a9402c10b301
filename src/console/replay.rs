//! `replay ID [SPEED]` played back: a recording's frames sent to the viewer's inbox at
//! the pace they were played, so the session shows them as any other message.

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::table::Context;
use crate::players::inbox::{InboxSender, Message};
use crate::records::recording::{Recording, Replay};
use crate::store::Listed;

/// The fastest `replay ID SPEED`.
pub const MAX_SPEED: u32 = 100;

/// The longest pause a replay keeps (before SPEED): a player who went for coffee is
/// not waited for.
pub const MAX_PAUSE: Duration = Duration::from_secs(5);

/// Send recording `found` to `inbox` at its own pace times `speed`, then say it ended.
pub(super) async fn play_back(
    found: (Listed, Recording),
    speed: u32,
    inbox: InboxSender,
    context: Arc<Context>,
) {
    let (listed, recording) = found;
    let id = listed.id;
    let first = Replay::begin(&recording.start, &context);
    let (mut replay, first) = match first {
        Ok(begun) => begun,
        Err(error) => {
            let _ = inbox.send(Message::Frame(Arc::from(format!("{error}.\n"))));
            let _ = inbox.send(Message::ReplayEnded(id));
            return;
        }
    };
    let what = format!("{} {}", listed.game, listed.args);
    let header = format!(
        "Recording {id}: {} playing {}. Type anything to stop.\n",
        listed.player,
        what.trim_end()
    );
    if inbox
        .send(Message::Frame(Arc::from(header + &first.text)))
        .is_err()
    {
        return;
    }
    let mut previous = 0;
    for input in &recording.inputs {
        if replay.is_over() {
            break;
        }
        let pause = Duration::from_millis(input.at_ms.saturating_sub(previous)).min(MAX_PAUSE);
        previous = input.at_ms;
        tokio::time::sleep(pause / speed).await;
        let step = replay.step(&input.line);
        // The line as the player's terminal showed it, then the game's answer.
        let frame = format!("{}\n{}", input.line, step.text);
        if inbox.send(Message::Frame(Arc::from(frame))).is_err() {
            return;
        }
    }
    let _ = inbox.send(Message::ReplayEnded(id));
}
