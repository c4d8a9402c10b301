//! Single keys, colour and the telnet signals (SPEC section 10), as the session meets
//! them: asking the client for character mode and giving it back, keys edited into
//! lines or acting at once, and signals such as Ctrl-C and `AYT`.
//!
//! Reached only by those who ask for keys or colour: `nc`, scripts and line-mode telnet
//! go through none of it beyond [`Session::signal`]'s first match.

use std::time::Duration;

use crate::codec::telnet::{
    Signal, TelnetCodec, ECHO_OPTION, NAWS_OPTION, SGA_OPTION, TTYPE_OPTION,
};
use crate::codec::terminal::Key;
use crate::console::Outcome;
use crate::net::tty::{Answer, Edit, LineEditor, Negotiation, Tty, Verdict};

use super::output::encode;
use super::{Session, Transport};

/// How long a client has to agree to single keys before the player is told it did not.
pub(super) const KEYS_ANSWER_WAIT: Duration = Duration::from_secs(3);

/// Single keys, colour and the telnet signals (SPEC section 10).
impl<S: Transport> Session<S> {
    /// Whether the settings ask for single keys or colour.
    pub(super) fn wants_terminal(&self) -> bool {
        let settings = self.console.settings();
        settings.keys || settings.color
    }

    /// Bring the terminal in line with the settings: ask for single keys when they are
    /// wanted (and the window size and terminal type), give them back when not.
    pub(super) async fn sync_terminal(&mut self) -> std::io::Result<()> {
        let settings = self.console.settings();
        if !settings.keys && !settings.color && self.tty.is_none() {
            return Ok(());
        }
        if !self.codec.is_telnet() {
            self.sync_without_telnet(settings.keys);
            return Ok(());
        }
        let tty = self.tty.get_or_insert_with(Box::default);
        let mut bytes = Vec::new();
        if settings.keys && tty.keys.ask() {
            bytes.extend_from_slice(&self.codec.offer(ECHO_OPTION, true));
            bytes.extend_from_slice(&self.codec.offer(SGA_OPTION, true));
            tty.deadline = Some(Box::pin(tokio::time::sleep(KEYS_ANSWER_WAIT)));
        }
        if !settings.keys && tty.keys.give_back() {
            bytes.extend_from_slice(&self.codec.offer(ECHO_OPTION, false));
            bytes.extend_from_slice(&self.codec.offer(SGA_OPTION, false));
            self.codec.set_character_mode(false);
            tty.deadline = None;
            tty.editor = LineEditor::default();
            self.echo_off = false;
        }
        // A telnet client (it negotiates) is asked for its window and terminal once.
        if !tty.asked_about_terminal && (settings.keys || self.codec.negotiated()) {
            tty.asked_about_terminal = true;
            bytes.extend_from_slice(&self.codec.ask(NAWS_OPTION));
            bytes.extend_from_slice(&self.codec.ask(TTYPE_OPTION));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.write(&bytes).await
    }

    /// [`Session::sync_terminal`] on a stream without telnet (SSH). With a pty the
    /// client sends keys whatever the settings (its terminal is raw), so keys stay on
    /// and `set keys off` only stops them from acting at once. Without one, nothing can
    /// be asked: `set keys on` goes unanswered, as with `nc`.
    fn sync_without_telnet(&mut self, keys: bool) {
        let tty = self.tty.get_or_insert_with(Box::default);
        if tty.pty {
            return;
        }
        if keys && tty.keys.ask() {
            tty.deadline = Some(Box::pin(tokio::time::sleep(KEYS_ANSWER_WAIT)));
        }
        if !keys && tty.keys.give_back() {
            tty.deadline = None;
        }
    }

    /// The client did not agree to single keys: say so, and stay in line mode.
    pub(super) fn keys_refused(&mut self, why: &str) -> Outcome {
        if let Some(tty) = self.tty.as_deref_mut() {
            tty.keys = Negotiation::Off;
            tty.deadline = None;
        }
        self.console.keys_refused();
        Outcome::Send(format!(
            "\n{why}: keys stay off.\nSingle keys need a telnet client; lines and Enter work as before.\n{}",
            self.console.prompt()
        ))
    }

    /// A telnet command or answer: what to show, if anything.
    pub(super) async fn signal(&mut self, signal: Signal) -> std::io::Result<Option<Outcome>> {
        let prompt = self.console.prompt();
        let Some(tty) = self.tty.as_deref_mut() else {
            return Ok(match signal {
                Signal::Interrupt => Some(Outcome::Send(format!("^C\n{prompt}"))),
                Signal::AreYouThere => {
                    Some(Outcome::Send(format!("\n[arcade: yes, here]\n{prompt}")))
                }
                _ => None,
            });
        };
        let keys_on = tty.keys.is_on();
        Ok(match signal {
            Signal::Agreed(option @ (ECHO_OPTION | SGA_OPTION))
            | Signal::Declined(option @ (ECHO_OPTION | SGA_OPTION))
                if tty.keys.is_asking() =>
            {
                let answer = match signal {
                    Signal::Agreed(_) => Answer::Agreed(option),
                    _ => Answer::Declined(option),
                };
                match tty.keys.answer(answer, ECHO_OPTION, SGA_OPTION) {
                    Verdict::On => {
                        tty.deadline = None;
                        self.codec.set_character_mode(true);
                        Some(Outcome::Send(format!(
                            "\nSingle keys are on. In 2048 each key acts at once; in Sokoban and Star\nPusher w a s d and the arrow keys take one step. Other keys start a line you\nend with Enter (type d3 as D3). Ctrl-C drops a line.\n{prompt}"
                        )))
                    }
                    Verdict::Refused => {
                        Some(self.keys_refused("Your client refused character mode"))
                    }
                    Verdict::Pending | Verdict::Unanswered => None,
                }
            }
            Signal::Agreed(TTYPE_OPTION) => {
                self.write(&TelnetCodec::ask_terminal_type()).await?;
                None
            }
            Signal::Agreed(_) => None,
            Signal::Declined(_) | Signal::AbortOutput => None,
            Signal::WindowSize { width, height } => {
                tty.window = Some((width, height));
                None
            }
            Signal::TerminalType(kind) => {
                tracing::debug!(peer = %self.peer(), terminal = %kind, "terminal type");
                None
            }
            Signal::AreYouThere => Some(Outcome::Send(format!("\n[arcade: yes, here]\n{prompt}"))),
            Signal::Interrupt => {
                tty.editor.key(Key::Interrupt, false);
                Some(Outcome::Send(format!("^C\n{prompt}")))
            }
            Signal::EraseChar if keys_on => {
                let hide = self.console.hides_input();
                if let Edit::Echo(echo) = tty.editor.key(Key::Erase, hide) {
                    self.write(&encode(&echo)).await?;
                }
                None
            }
            Signal::EraseLine if keys_on => {
                let hide = self.console.hides_input();
                if let Edit::Echo(echo) = tty.editor.key(Key::KillLine, hide) {
                    self.write(&encode(&echo)).await?;
                }
                None
            }
            Signal::EraseChar | Signal::EraseLine => None,
        })
    }

    /// Keys from a character-mode client: edited into lines, or acting at once. True
    /// when the session is to close.
    pub(super) async fn keys(&mut self, bytes: &[u8]) -> std::io::Result<bool> {
        let mut keys = Vec::new();
        match self.tty.as_deref_mut() {
            Some(tty) => tty.reader.feed(bytes, &mut keys),
            None => return Ok(false),
        }
        self.idle.input_came(self.registration.now_ms());
        for key in keys {
            let Some(tty) = self.tty.as_deref_mut() else {
                return Ok(false);
            };
            // On a pty, keys always come one by one; they act at once only with keys on.
            let empty = tty.editor.line().is_empty() && (!tty.pty || self.console.settings().keys);
            let instant = match key {
                Key::Char(c) if empty => self.console.instant(c),
                Key::Arrow(arrow) if empty => self.console.arrow(arrow),
                _ => None,
            };
            let outcome = if let Some(line) = instant {
                // The key ends the line it was typed on, as Enter would.
                let echo = match key {
                    Key::Char(c) => format!("{c}\r\n"),
                    _ => String::from("\r\n"),
                };
                self.write(echo.as_bytes()).await?;
                self.console.handle_line(line)
            } else {
                let hide = self.console.hides_input();
                match tty.editor.key(key, hide) {
                    Edit::Echo(echo) => {
                        self.write(&encode(&echo)).await?;
                        continue;
                    }
                    Edit::Abandon => Outcome::Send(format!("^C\n{}", self.console.prompt())),
                    Edit::Submit(line) => {
                        if !hide {
                            self.write(b"\r\n").await?;
                        }
                        self.idle.line_came(self.registration.now_ms());
                        self.console.handle_line(line.trim())
                    }
                }
            };
            self.registration.activity().touch();
            if self.act(outcome).await? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A message arriving while the player types, with keys on: the half-typed line
    /// is cleared first and typed again after it.
    pub(super) fn around_typing(&self, text: String) -> String {
        match self.tty.as_deref() {
            Some(Tty { keys, editor, .. })
                if keys.is_on() && !editor.line().is_empty() && !text.is_empty() =>
            {
                format!(
                    "\r\u{1b}[K{}{}",
                    text.trim_start_matches('\n'),
                    editor.line()
                )
            }
            _ => text,
        }
    }
}
