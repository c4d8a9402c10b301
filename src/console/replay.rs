//! `replay ID [SPEED]` played back: a recording's frames sent to the viewer's inbox at
//! the pace they were played, so the session shows them as any other message. The
//! inputs are read from the store a page at a time as the replay goes (a recording at
//! its size limit replays for hours and its frames are hundreds of megabytes), and
//! each replay holds one of the server's places for replays (`seat::Services`).

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::table::Context;
use crate::players::inbox::{InboxSender, Message};
use crate::records::reader::Inputs;
use crate::records::recording::Replay;
use crate::seat;
use crate::store::RecordingHead;

/// The fastest `replay ID SPEED`.
pub const MAX_SPEED: u32 = 100;

/// The longest pause a replay keeps (before SPEED): a player who went for coffee is
/// not waited for.
pub const MAX_PAUSE: Duration = Duration::from_secs(5);

/// What a `replay` beyond [`MAX_REPLAYS`](crate::seat::MAX_REPLAYS) in all, or
/// [`REPLAYS_PER_ADDRESS`](crate::seat::REPLAYS_PER_ADDRESS) from one address, is told.
pub const TOO_MANY_REPLAYS: &str = "Too many replays are running, try again in a moment.";

/// Send the recording that `head` begins to `inbox` at its own pace times `speed`,
/// reading its `inputs` a page at a time, then say it ended.
pub(super) async fn play_back(
    head: RecordingHead,
    mut inputs: Inputs,
    speed: u32,
    inbox: InboxSender,
    context: Arc<Context>,
    reader: bool,
) {
    let listed = &head.listed;
    let id = listed.id;
    let first = Replay::begin_for(&head.start, &context, reader);
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
    'pages: loop {
        let page = match inputs.next_page().await {
            Ok(Some(page)) => page,
            Ok(None) => break,
            Err(error) => {
                let text = format!(
                    "Cannot read the rest of recording {id}: {}.\n",
                    seat::store_failed(&error)
                );
                let _ = inbox.send(Message::Frame(Arc::from(text)));
                break;
            }
        };
        for input in page {
            if replay.is_over() {
                break 'pages;
            }
            let pause = Duration::from_millis(input.at_ms.saturating_sub(previous)).min(MAX_PAUSE);
            previous = input.at_ms;
            tokio::time::sleep(pause / speed).await;
            let step = replay.step(&input.line);
            // The line as the player's terminal showed it, then the game's answer. A
            // recording made before every typed line was cleaned may hold control
            // characters: never shown. A line of help (`/hint` and its answer under
            // it) shows what was typed, then the answer.
            let typed = input.line.split('\n').next().unwrap_or_default();
            let frame = format!("{}\n{}", crate::text::one_line(typed), step.text);
            if inbox.send(Message::Frame(Arc::from(frame))).is_err() {
                return;
            }
        }
    }
    let _ = inbox.send(Message::ReplayEnded(id));
}
