//! What one event does: at once when nothing has to wait, boxed when something must.
//!
//! Nearly every event is a line answered at once: the console decides, the reply fits
//! in the socket's buffer, and nothing waits. So that is done without an await
//! ([`Session::at_once`]), and whatever has to wait for something (a job on a blocking
//! thread, a client that reads slowly, keys, an upgrade, the last words of a session
//! that closes) is carried out in a box of its own ([`Session::later`]). The session's
//! future then holds only its wait for the next event: every idle player keeps that
//! future, so its size is most of what an idle player costs (docs/BENCHMARKS.md,
//! issue 29).

use bytes::Bytes;
use tokio::time::Instant;

use crate::codec::telnet::{Input, Signal, ECHO_OPTION, LINE_TOO_LONG, SGA_OPTION};
use crate::console::{Job, Outcome};
use crate::net::idle::IdleEvent;
use crate::net::tty::{Answer, Verdict};
use crate::players::inbox::Delivery;

use super::{Ending, Event, Session, Transport, IDLE_CLOSED, LOGIN_TIMED_OUT};
use super::{SHUTTING_DOWN, SHUTTING_DOWN_KEPT};

/// How far an event got without an await.
pub(super) enum Step {
    Done(Done),
    /// Something is left that waits: for [`Session::later`].
    Later(Rest),
}

/// What an event came to.
pub(super) enum Done {
    /// Nothing was answered (telnet's negotiation, keys, an ignored signal).
    Quiet,
    /// A reply left: the command is done; when its line arrived, if that is measured.
    Answered(Option<Instant>),
    /// The session ends.
    End(Ending),
}

/// What is left of an event that has to wait for something.
pub(super) enum Rest {
    /// Refusals of the client's telnet requests, to send back.
    Negotiation(Bytes),
    /// Keys from a character-mode client.
    Keys(Bytes),
    /// A telnet command or answer.
    Signal(Signal),
    /// The client closed its side: the console's last words, then the end.
    End,
    /// An upgrade's roll call.
    Move,
    /// A job to wait for, then its reply; when the line that led to it arrived.
    Job(Job, Option<Instant>),
    /// What the socket did not take of a reply at once, from `written` on, and whether
    /// the session closes after it.
    Reply {
        bytes: Vec<u8>,
        written: usize,
        close: bool,
        line_came: Option<Instant>,
    },
    /// After a reply, the terminal brought in line with the settings (keys, colour).
    Terminal(Option<Instant>),
    /// The last words of a session that the server closes.
    LastWords(String, Ending),
}

impl<S: Transport> Session<S> {
    /// Handle `event` as far as it goes without an await.
    pub(super) fn at_once(&mut self, event: Event) -> std::io::Result<Step> {
        let mut line_came = None;
        let outcome = match event {
            Event::Input(Input::Line(line)) => {
                if self.observed() {
                    line_came = Some(Instant::now());
                }
                let now = self.registration.now_ms();
                self.idle.line_came(now);
                self.registration.activity().touch();
                self.console.line_at(now);
                self.console.handle_line(line.trim())
            }
            Event::Input(Input::LineTooLong) => {
                self.idle.input_came(self.registration.now_ms());
                Outcome::Send(
                    self.console
                        .server_says(&format!("{LINE_TOO_LONG}\n{}", self.console.prompt())),
                )
            }
            Event::Input(Input::Negotiation(bytes)) => return Ok(Step::Later(Rest::Negotiation(bytes))),
            Event::Input(Input::Keys(bytes)) => return Ok(Step::Later(Rest::Keys(bytes))),
            Event::Input(Input::Signal(signal)) => return Ok(Step::Later(Rest::Signal(signal))),
            Event::KeysUnanswered => {
                let verdict = self.tty.as_deref_mut().map(|tty| {
                    tty.deadline = None;
                    tty.keys.answer(Answer::Silence, ECHO_OPTION, SGA_OPTION)
                });
                match verdict {
                    Some(Verdict::Unanswered) => {
                        self.keys_refused("Your client did not answer (nc and scripts never do)")
                    }
                    _ => return Ok(Step::Done(Done::Quiet)),
                }
            }
            Event::End => return Ok(Step::Later(Rest::End)),
            Event::Delivery(Delivery { message, skipped }) => {
                match self.console.on_message(message, skipped) {
                    Outcome::Close(text) => {
                        return Ok(Step::Later(Rest::LastWords(text, Ending::Closed)))
                    }
                    Outcome::Send(text) => Outcome::Send(self.around_typing(text)),
                    outcome => outcome,
                }
            }
            Event::Idle(IdleEvent::Warn(warning)) => Outcome::Send(self.console.server_says(&format!(
                "\nNo input for a while: this session closes in {} seconds\nunless you type something.\n{}",
                warning.as_secs().max(1),
                self.console.prompt()
            ))),
            Event::MoveTimeout => {
                self.registration.alarm_at(self.idle.due());
                self.console.move_timed_out()
            }
            Event::Idle(IdleEvent::Close) => {
                let text = self.console.server_says(IDLE_CLOSED);
                return Ok(Step::Later(Rest::LastWords(text, Ending::Idle)));
            }
            Event::Idle(IdleEvent::LoginTimeout(timeout)) => {
                let seconds = timeout.as_secs();
                let unit = if seconds == 1 { "second" } else { "seconds" };
                let text = self.console.server_says(&format!(
                    "\n{LOGIN_TIMED_OUT} {seconds} {unit} of connecting.\n"
                ));
                return Ok(Step::Later(Rest::LastWords(text, Ending::LoginTimeout)));
            }
            Event::Move => return Ok(Step::Later(Rest::Move)),
            Event::Shutdown => {
                let words = if self.console.keeps_game() {
                    SHUTTING_DOWN_KEPT
                } else {
                    SHUTTING_DOWN
                };
                let text = self.console.server_says(words);
                return Ok(Step::Later(Rest::LastWords(text, Ending::Shutdown)));
            }
        };
        self.reply(outcome, line_came)
    }

    /// Carry out what a line led to, as far as it goes without an await: its text
    /// written as far as the socket takes it at once.
    fn reply(&mut self, outcome: Outcome, line_came: Option<Instant>) -> std::io::Result<Step> {
        let (text, close) = match outcome {
            Outcome::Send(text) => (text, false),
            Outcome::Close(text) => (text, true),
            Outcome::Wait(job) => return Ok(Step::Later(Rest::Job(job, line_came))),
        };
        // Before the reply leaves: by the time the player sees the board, the web
        // page's next look at the table finds the game's progress with it.
        self.show_progress();
        if let Some(bytes) = self.reply_bytes(&text) {
            let written = self.write_now(&bytes)?;
            if written < bytes.len() {
                return Ok(Step::Later(Rest::Reply {
                    bytes,
                    written,
                    close,
                    line_came,
                }));
            }
        }
        Ok(self.replied(close, line_came))
    }

    /// A reply has left: the session closes after it, or the terminal follows the
    /// settings.
    fn replied(&mut self, close: bool, line_came: Option<Instant>) -> Step {
        if close {
            self.discard_unread();
            return Step::Done(Done::End(Ending::Quit));
        }
        if self.tty.is_some() || self.wants_terminal() {
            return Step::Later(Rest::Terminal(line_came));
        }
        Step::Done(Done::Answered(line_came))
    }

    /// The game's progress, for the web page's live table (only read with it on).
    fn show_progress(&self) {
        if self.observed() {
            self.registration
                .activity()
                .set_progress(self.console.progress());
        }
    }

    /// Carry out `rest`, and whatever it leads to, waiting where it must. Called
    /// boxed: its future is large and rare, while the session's lives as long as its
    /// player.
    pub(super) async fn later(&mut self, rest: Rest) -> std::io::Result<Done> {
        let mut rest = rest;
        loop {
            let step = match rest {
                Rest::Negotiation(bytes) => {
                    self.write(&bytes).await?;
                    Step::Done(Done::Quiet)
                }
                Rest::Keys(bytes) => {
                    if Box::pin(self.keys(&bytes)).await? {
                        Step::Done(Done::End(Ending::Quit))
                    } else {
                        Step::Done(Done::Quiet)
                    }
                }
                Rest::Signal(signal) => match Box::pin(self.signal(signal)).await? {
                    Some(outcome) => self.reply(outcome, None)?,
                    None => Step::Done(Done::Quiet),
                },
                Rest::End => {
                    let text = self.console.end_of_input();
                    if !text.is_empty() {
                        self.send(&text).await?;
                    }
                    Step::Done(Done::End(Ending::ClientClosed))
                }
                Rest::Move => match Box::pin(self.move_out()).await? {
                    Some(ending) => Step::Done(Done::End(ending)),
                    None => Step::Done(Done::Quiet),
                },
                Rest::Job(job, line_came) => {
                    // Boxed: a job's future (a store query, a hash) is large.
                    let outcome = Box::pin(self.wait_for(job)).await;
                    self.reply(outcome, line_came)?
                }
                Rest::Reply {
                    bytes,
                    written,
                    close,
                    line_came,
                } => {
                    self.write_slowly(&bytes[written..]).await?;
                    self.replied(close, line_came)
                }
                Rest::Terminal(line_came) => {
                    Box::pin(self.sync_terminal()).await?;
                    Step::Done(Done::Answered(line_came))
                }
                Rest::LastWords(text, ending) => {
                    Step::Done(Done::End(self.last_words(&text, ending).await))
                }
            };
            match step {
                Step::Done(done) => return Ok(done),
                Step::Later(next) => rest = next,
            }
        }
    }

    /// Carry out what a key led to (keys act one by one, each as a line would): true
    /// when the session is to close.
    pub(super) async fn act(&mut self, outcome: Outcome) -> std::io::Result<bool> {
        let done = match self.reply(outcome, None)? {
            Step::Done(done) => done,
            Step::Later(rest) => Box::pin(self.later(rest)).await?,
        };
        Ok(matches!(done, Done::End(_)))
    }

    /// Run `job`, and each job its result leads to, until there is text to send or
    /// the session closes. The session waits for the job (what blocks runs on a
    /// blocking thread); messages wait in the inbox meanwhile.
    async fn wait_for(&mut self, job: Job) -> Outcome {
        let mut job = job;
        loop {
            // The levels of now: a reload gives new games the new files.
            let context = self.console.seat().map_or_else(
                || std::sync::Arc::clone(&self.context),
                |seat| seat.services().contexts.current(),
            );
            let done = job.run(context).await;
            match self.console.finish(done) {
                Outcome::Wait(next) => job = next,
                outcome => return outcome,
            }
        }
    }
}
