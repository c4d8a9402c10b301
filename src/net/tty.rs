//! What a session keeps of a terminal that asked for single keys or colour (SPEC
//! section 10): the telnet negotiation for single keys, the line the server edits
//! while keys are on, the client's time to answer and its window size.
//!
//! The state machines here are pure (keys and answers in, verdicts and echoes out);
//! the session ([`crate::net::session`]) does the writing. Decoding keys from bytes
//! and painting boards are byte codecs, in [`crate::codec::terminal`].

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

use tokio::time::Sleep;

use crate::codec::terminal::{Key, KeyReader};

/// What the session knows of a terminal that asked for keys or colour (SPEC section
/// 10). Boxed in the session and made on first use: `nc` and scripts never need it.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Tty {
    /// Whether the client sends keys, or is being asked to.
    pub(super) keys: Negotiation,
    /// While single keys are asked for: when the client's time to answer runs out.
    /// Not moved by an upgrade: the new process gives the client its time again.
    #[serde(skip)]
    pub(super) deadline: Option<Pin<Box<Sleep>>>,
    pub(super) reader: KeyReader,
    pub(super) editor: LineEditor,
    /// Columns and rows, when the client told (NAWS).
    pub(super) window: Option<(u16, u16)>,
    /// The window size and terminal type were asked for.
    pub(super) asked_about_terminal: bool,
    /// The terminal is an SSH pty: keys come one by one from the start, with no
    /// negotiation, and the window size comes from the stream.
    pub(super) pty: bool,
}

impl Tty {
    /// An SSH pty's: keys on from the start, nothing to ask.
    pub(super) fn pty() -> Box<Tty> {
        Box::new(Tty {
            keys: Negotiation::On,
            asked_about_terminal: true,
            pty: true,
            ..Tty::default()
        })
    }
}

/// The moment `set keys on` goes unanswered; never, when nothing is being asked. A
/// `poll_fn`, not an `async fn`: it is made on every turn of the session's loop, inside
/// the session's future.
pub(super) fn keys_deadline(tty: &mut Option<Box<Tty>>) -> impl Future<Output = ()> + '_ {
    poll_fn(
        move |cx| match tty.as_deref_mut().and_then(|tty| tty.deadline.as_mut()) {
            Some(deadline) => deadline.as_mut().poll(cx),
            None => Poll::Pending,
        },
    )
}

/// The server's half of the telnet negotiation for single keys (SPEC section 10):
/// `set keys on` offers `WILL ECHO` and `WILL SGA`; the client's `DO` to both turns
/// character mode on, a `DONT` to either or no answer in time leaves it off.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Negotiation {
    /// Lines, as the client sends them.
    #[default]
    Off,
    /// The offers are out; the client has agreed to these so far.
    Asking {
        /// `DO ECHO` came.
        echo: bool,
        /// `DO SGA` came.
        sga: bool,
    },
    /// The client sends keys; the server edits the line.
    On,
}

/// What the client said, or that it said nothing in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `DO option`.
    Agreed(u8),
    /// `DONT option`.
    Declined(u8),
    /// No answer in time.
    Silence,
}

/// What an answer changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing to say (yet).
    Pending,
    /// Character mode is on.
    On,
    /// The client refused.
    Refused,
    /// The client did not answer.
    Unanswered,
}

impl Negotiation {
    /// Keys wanted: true when the offers must be sent (they were not out yet).
    pub fn ask(&mut self) -> bool {
        if *self != Negotiation::Off {
            return false;
        }
        *self = Negotiation::Asking {
            echo: false,
            sga: false,
        };
        true
    }

    /// Keys no longer wanted: true when the client must be told (`WONT ECHO`, `WONT
    /// SGA`) to edit its lines again.
    pub fn give_back(&mut self) -> bool {
        let was = *self;
        *self = Negotiation::Off;
        was != Negotiation::Off
    }

    /// Whether the client sends keys.
    pub fn is_on(&self) -> bool {
        *self == Negotiation::On
    }

    /// Whether an answer is awaited.
    pub fn is_asking(&self) -> bool {
        matches!(self, Negotiation::Asking { .. })
    }

    /// Take the client's answer (echo and go-ahead are `echo_option` and `sga_option`,
    /// the telnet option numbers).
    pub fn answer(&mut self, answer: Answer, echo_option: u8, sga_option: u8) -> Verdict {
        let Negotiation::Asking { echo, sga } = self else {
            return Verdict::Pending;
        };
        match answer {
            Answer::Agreed(option) => {
                *echo |= option == echo_option;
                *sga |= option == sga_option;
                if *echo && *sga {
                    *self = Negotiation::On;
                    return Verdict::On;
                }
                Verdict::Pending
            }
            Answer::Declined(option) if option == echo_option || option == sga_option => {
                *self = Negotiation::Off;
                Verdict::Refused
            }
            Answer::Declined(_) => Verdict::Pending,
            Answer::Silence => {
                *self = Negotiation::Off;
                Verdict::Unanswered
            }
        }
    }
}

/// The line being typed with keys on, and what each key does to it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct LineEditor {
    line: String,
}

/// What a key did to the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Show this (the echo of the edit; may be empty).
    Echo(String),
    /// Enter: the line is done.
    Submit(String),
    /// Ctrl-C: the line is dropped.
    Abandon,
}

impl LineEditor {
    /// The line typed so far.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// Apply `key`; `hide`: a secret is typed, echo nothing.
    pub fn key(&mut self, key: Key, hide: bool) -> Edit {
        let echo = |text: String| Edit::Echo(if hide { String::new() } else { text });
        match key {
            Key::Char(c) => {
                if self.line.len() + c.len_utf8() > crate::codec::telnet::MAX_LINE {
                    return Edit::Echo(String::new());
                }
                self.line.push(c);
                echo(c.to_string())
            }
            Key::Erase => match self.line.pop() {
                Some(_) => echo(String::from("\u{8} \u{8}")),
                None => Edit::Echo(String::new()),
            },
            Key::KillLine => {
                let erased = self.line.chars().count();
                self.line.clear();
                echo("\u{8} \u{8}".repeat(erased))
            }
            Key::KillWord => {
                let kept = self.line.trim_end().len();
                let word_start = self.line[..kept].rfind(' ').map_or(0, |space| space + 1);
                let erased = self.line[word_start..].chars().count();
                self.line.truncate(word_start);
                echo("\u{8} \u{8}".repeat(erased))
            }
            Key::Enter => Edit::Submit(std::mem::take(&mut self.line)),
            Key::Interrupt => {
                self.line.clear();
                Edit::Abandon
            }
            Key::Arrow(_) => Edit::Echo(String::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ECHO: u8 = 1;
    const SGA: u8 = 3;

    #[test]
    fn the_negotiation_goes_on_with_both_agreements_and_off_with_a_refusal_or_silence() {
        let mut keys = Negotiation::default();
        assert!(keys.ask(), "the offers go out");
        assert!(!keys.ask(), "once");
        assert!(keys.is_asking());
        assert_eq!(
            keys.answer(Answer::Agreed(ECHO), ECHO, SGA),
            Verdict::Pending
        );
        assert_eq!(keys.answer(Answer::Agreed(31), ECHO, SGA), Verdict::Pending);
        assert_eq!(
            keys.answer(Answer::Declined(24), ECHO, SGA),
            Verdict::Pending
        );
        assert_eq!(keys.answer(Answer::Agreed(SGA), ECHO, SGA), Verdict::On);
        assert!(keys.is_on());
        // Answers after the fact change nothing.
        assert_eq!(
            keys.answer(Answer::Declined(ECHO), ECHO, SGA),
            Verdict::Pending
        );
        assert!(keys.is_on());
        assert!(keys.give_back(), "the client is told");
        assert!(!keys.give_back(), "once");

        let mut refused = Negotiation::default();
        refused.ask();
        refused.answer(Answer::Agreed(SGA), ECHO, SGA);
        assert_eq!(
            refused.answer(Answer::Declined(ECHO), ECHO, SGA),
            Verdict::Refused
        );
        assert_eq!(refused, Negotiation::Off);

        let mut silent = Negotiation::default();
        silent.ask();
        assert_eq!(
            silent.answer(Answer::Silence, ECHO, SGA),
            Verdict::Unanswered
        );
        assert_eq!(silent, Negotiation::Off);
        assert!(silent.ask(), "asked again later, the offers go out again");
    }

    #[test]
    fn the_editor_echoes_erases_and_submits() {
        let mut editor = LineEditor::default();
        let echo = |text: &str| Edit::Echo(text.to_string());
        assert_eq!(editor.key(Key::Char('s'), false), echo("s"));
        assert_eq!(editor.key(Key::Char('x'), false), echo("x"));
        assert_eq!(editor.key(Key::Erase, false), echo("\u{8} \u{8}"));
        for c in "ay hello wrld".chars() {
            editor.key(Key::Char(c), false);
        }
        assert_eq!(editor.line(), "say hello wrld");
        assert_eq!(
            editor.key(Key::KillWord, false),
            echo(&"\u{8} \u{8}".repeat(4))
        );
        assert_eq!(editor.line(), "say hello ");
        for c in "world".chars() {
            editor.key(Key::Char(c), false);
        }
        assert_eq!(
            editor.key(Key::Enter, false),
            Edit::Submit(String::from("say hello world"))
        );
        assert_eq!(editor.line(), "");
        assert_eq!(editor.key(Key::Erase, false), echo(""));
        editor.key(Key::Char('a'), false);
        editor.key(Key::Char('b'), false);
        assert_eq!(
            editor.key(Key::KillLine, false),
            echo("\u{8} \u{8}\u{8} \u{8}")
        );
        editor.key(Key::Char('q'), false);
        assert_eq!(editor.key(Key::Interrupt, false), Edit::Abandon);
        assert_eq!(editor.line(), "");
    }

    #[test]
    fn a_secret_is_never_echoed() {
        let mut editor = LineEditor::default();
        for c in "hunter22".chars() {
            assert_eq!(editor.key(Key::Char(c), true), Edit::Echo(String::new()));
        }
        assert_eq!(editor.key(Key::Erase, true), Edit::Echo(String::new()));
        assert_eq!(
            editor.key(Key::Enter, true),
            Edit::Submit(String::from("hunter2"))
        );
    }

    #[test]
    fn the_editor_holds_at_most_a_line() {
        let mut editor = LineEditor::default();
        for _ in 0..2000 {
            editor.key(Key::Char('x'), false);
        }
        assert_eq!(editor.line().len(), crate::codec::telnet::MAX_LINE);
    }
}
