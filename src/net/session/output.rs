//! What a session writes: replies (painted, with the echo switched around secrets),
//! raw telnet bytes, and the last words of a session the server closes.
//!
//! Nearly every reply fits in the socket's buffer and leaves at once; only the rest
//! waits, boxed, for a client that reads slowly, for at most [`WRITE_TIMEOUT`] or until
//! shutdown.

use std::time::Duration;

use tokio::io::AsyncWriteExt;

use crate::codec::telnet::Output;
use crate::codec::terminal;

use super::{Ending, Session, Transport};

/// How long one reply may take to leave. A client that stops reading fills its socket
/// buffers; after this long its session is closed rather than held open forever.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the last message of a session that the server closes may take: the
/// client may be gone, and closing goes on regardless.
const LAST_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// `text` as it goes on the wire.
pub(super) fn encode(text: &str) -> Vec<u8> {
    let output = Output::Text(text);
    let mut bytes = Vec::with_capacity(output.encoded_len());
    output.encode_into(&mut bytes);
    bytes
}

/// Writing to the client.
impl<S: Transport> Session<S> {
    /// With colour on and a board in `text`: the text painted, the board drawn in
    /// place, and a word if it is wider than the window.
    fn paint(&self, text: &str) -> Option<String> {
        // Colour on makes the terminal's state (`sync_terminal`): without it, no
        // setting is looked at on a reply.
        let tty = self.tty.as_deref()?;
        if !self.console.settings().color {
            return None;
        }
        let palette = self.console.palette()?;
        let (mut painted, width) = terminal::paint(text, &palette);
        let window = self.stream.window().or(tty.window);
        if let (Some(width), Some((columns, _))) = (width, window) {
            if let Some(warning) = terminal::too_wide(width, columns) {
                let at = painted.rfind('\n').map_or(0, |at| at + 1);
                painted.insert_str(at, &warning);
            }
        }
        Some(painted)
    }

    /// The server closes the session: a last message, which may be lost (the client
    /// may be gone, or not reading), then `ending`.
    pub(super) async fn last_words(&mut self, text: &str, ending: Ending) -> Ending {
        let bytes = encode(text);
        // Boxed, like every rare wait here: an `async fn`'s future is as large as its
        // largest wait, and a session's future lives as long as its player.
        let _ = Box::pin(tokio::time::timeout(
            LAST_WRITE_TIMEOUT,
            self.stream.write_all(&bytes),
        ))
        .await;
        self.discard_unread();
        ending
    }

    /// Read and drop what the client sent and the session never read (a line typed
    /// just as it was closed): a socket closed with unread input is reset, and a reset
    /// can discard the last words before the client has read them.
    pub(super) fn discard_unread(&mut self) {
        self.stream.discard_unread();
    }

    /// Send `text`, its `\n` as `\r\n`; nothing if it is empty. When the console has
    /// begun or stopped asking for a secret, the client is first told to stop or to go
    /// on echoing what is typed (`IAC WILL ECHO` / `IAC WONT ECHO`); with keys on the
    /// server echoes, and simply echoes no secret. With colour on, boards are painted.
    ///
    /// The reply is made and written without an await; only what the socket could not
    /// take waits, boxed with its bytes. So nothing of it stays in the session's
    /// future, which every idle player keeps (docs/BENCHMARKS.md, issue 29). Not
    /// `self.write(&bytes)`: its future would keep the bytes (64 bytes more in every
    /// session's; `a_waiting_session_is_small` fails).
    pub(super) async fn send(&mut self, text: &str) -> std::io::Result<()> {
        let Some(bytes) = self.reply_bytes(text) else {
            return Ok(());
        };
        let written = self.write_now(&bytes)?;
        if written == bytes.len() {
            return Ok(());
        }
        Box::pin(async move { self.write_slowly(&bytes[written..]).await }).await
    }

    /// `text` as the wire carries it to this client (painted, the echo switched
    /// around a secret); `None` when there is nothing to send.
    pub(super) fn reply_bytes(&mut self, text: &str) -> Option<Vec<u8>> {
        let painted;
        let text = match self.paint(text) {
            Some(text) => {
                painted = text;
                painted.as_str()
            }
            None => text,
        };
        let keys_on = self.tty.as_ref().is_some_and(|tty| tty.keys.is_on());
        // Without telnet the client cannot be told to stop echoing: `nc`, or `ssh -T`.
        let hide = self.console.hides_input() && !keys_on && self.codec.is_telnet();
        if hide == self.echo_off {
            if text.is_empty() {
                return None;
            }
            return Some(encode(text));
        }
        self.echo_off = hide;
        let mut bytes = self.codec.echo(hide).to_vec();
        Output::Text(text).encode_into(&mut bytes);
        Some(bytes)
    }

    /// Write `bytes` as they are. Nearly every reply fits in the socket's buffer and
    /// leaves at once; the rest is written as the client reads, for at most
    /// [`WRITE_TIMEOUT`], or until shutdown.
    pub(super) async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let written = self.write_now(bytes)?;
        let rest = &bytes[written..];
        if rest.is_empty() {
            return Ok(());
        }
        Box::pin(self.write_slowly(rest)).await
    }

    /// As much of `bytes` as the socket takes now: how much that was.
    pub(super) fn write_now(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.stream.write_now(bytes)
    }

    /// The rest of a reply the socket could not take at once.
    pub(super) async fn write_slowly(&mut self, rest: &[u8]) -> std::io::Result<()> {
        tokio::select! {
            result = tokio::time::timeout(WRITE_TIMEOUT, self.stream.write_all(rest)) => {
                result.unwrap_or_else(|_| {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client stopped reading",
                    ))
                })
            }
            // A client that does not read must not hold up shutdown; it would not
            // read the goodbye either.
            () = self.inbox.shutdown() => Err(std::io::Error::other(
                "server shutting down while the client was not reading",
            )),
        }
    }
}
