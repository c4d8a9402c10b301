//! One load-test session that stays in the lobby: it takes its name, then sits there
//! (`--lobby`) or chats (`--chat`), reading its socket all the time so that every line
//! of chat is timed when it arrives, not when the session next looks.
//!
//! A session says a line on a fixed schedule (open loop: it never waits for its own
//! line to come back before the next is due). Its own line coming back is timed as its
//! command; every other session's line is a delivery, timed from the send time the
//! line carries.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::connection::Connection;
use super::driver::{self, Ready};
use super::failure::{Failure, Waiting};
use super::parse::{self, LobbyLine};
use super::plan::{Mode, Plan};
use super::stats::{Recorder, Sending};

/// Run lobby session `index` of `plan`, recording into `recorder`; a failure is
/// recorded with its reason and ends only this session.
pub(crate) async fn session(
    index: usize,
    plan: Arc<Plan>,
    recorder: Arc<Recorder>,
    sending: Sending,
) {
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if Instant::now() >= plan.end {
        return;
    }
    if let Err(failure) = sit(index, &plan, &recorder, sending).await {
        recorder.failure(failure.to_string());
    }
}

/// A line of chat said and not yet back.
#[derive(Debug, Clone, Copy)]
struct Said {
    /// Its send time, in microseconds since the run's start (also its text).
    sent_us: u64,
    /// Said inside the measured window.
    measured: bool,
    /// The deliveries it was counted on to make (when measured).
    receivers: u64,
}

/// One lobby session's state while it reads.
struct Chatter<'a> {
    /// The session, for its histogram shard.
    index: usize,
    plan: &'a Plan,
    recorder: &'a Recorder,
    /// The name it took: its own lines come back under it.
    name: Option<String>,
    /// Counted among the sessions in the lobby once its name is confirmed.
    ready: Option<Ready<'a>>,
    /// Its lines not yet back, oldest first.
    outstanding: VecDeque<Said>,
}

async fn sit(
    index: usize,
    plan: &Plan,
    recorder: &Recorder,
    sending: Sending,
) -> Result<(), Failure> {
    // The name is taken below, among the lines of chat that may already arrive.
    let mut connection = driver::connect(index, plan, recorder, false).await?;
    let name = plan.name(index);
    let mut chatter = Chatter {
        index,
        plan,
        recorder,
        name,
        ready: None,
        outstanding: VecDeque::new(),
    };
    let name_deadline = match &chatter.name {
        Some(name) => {
            connection.send_line(&format!("name {name}")).await?;
            Instant::now() + plan.timeout
        }
        None => {
            chatter.ready = Some(Ready::enter(recorder));
            plan.end
        }
    };
    let every = match plan.mode {
        Mode::Chat(every) => Some(every),
        _ => None,
    };
    let mut next_say = None;
    loop {
        if next_say.is_none() && chatter.ready.is_some() {
            next_say = every.map(|every| first_turn(plan, index, every, Instant::now()));
        }
        let say_at = next_say.filter(|&at| at < plan.end);
        let echo_due = chatter
            .outstanding
            .front()
            .map(|said| plan.at_micros(said.sent_us) + plan.timeout);
        tokio::select! {
            read = connection.read_some(Waiting::Chat) => {
                read?;
                chatter.take_lines(&mut connection)?;
            }
            () = sleep_until_some(say_at) => {
                chatter.say(&mut connection).await?;
                next_say = say_at.zip(every).map(|(at, every)| at + every);
            }
            () = sleep_until_some(echo_due) => return Err(Failure::Timeout(Waiting::Chat)),
            () = tokio::time::sleep_until(name_deadline), if chatter.ready.is_none() => {
                return Err(Failure::Timeout(Waiting::Name));
            }
            () = tokio::time::sleep_until(plan.end) => break,
        }
    }
    // Nothing is said after the end: the drain need not wait for this session.
    drop(sending);
    // Stay for the lines still on their way to this session and to the others.
    let drained = recorder.drained(plan.drain_deadline());
    tokio::pin!(drained);
    loop {
        tokio::select! {
            read = connection.read_some(Waiting::Chat) => {
                read?;
                chatter.take_lines(&mut connection)?;
            }
            () = &mut drained => break,
        }
    }
    Ok(())
}

/// When session `index` first says a line, at `now` or later: the sessions take turns
/// on one schedule of the whole rate, from the end of the ramp, so session `index`
/// has slots `index`, `index + sessions`, ... and says one line every `every`.
fn first_turn(plan: &Plan, index: usize, every: Duration, now: Instant) -> Instant {
    let mut turn = plan.chat_start() + every.mul_f64(index as f64 / plan.sessions as f64);
    if turn < now && !every.is_zero() {
        // Slots missed while connecting are skipped, not made up in a burst.
        let behind = (now - turn).as_secs_f64() / every.as_secs_f64();
        turn += every.mul_f64(behind.ceil());
    }
    turn
}

/// Sleep until `at`, or forever without one: a `select!` branch that is off.
pub(crate) async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Chatter<'_> {
    /// Say the next line: its send time as its text.
    async fn say(&mut self, connection: &mut Connection) -> Result<(), Failure> {
        let sent_us = self.plan.micros(Instant::now());
        let measured = self.plan.is_measured(self.plan.at_micros(sent_us));
        let receivers = if measured {
            // Every other session in the lobby should hear it.
            let others = self
                .recorder
                .ready
                .load(Ordering::Relaxed)
                .saturating_sub(1);
            self.recorder.chat_said(others);
            others
        } else {
            0
        };
        self.outstanding.push_back(Said {
            sent_us,
            measured,
            receivers,
        });
        connection
            .send_line(&format!("say {}", parse::chat_text(sent_us)))
            .await
    }

    /// Handle the whole lines received so far.
    fn take_lines(&mut self, connection: &mut Connection) -> Result<(), Failure> {
        let now = Instant::now();
        let whole = parse::whole_lines(connection.buffer());
        for line in parse::lobby_lines(&connection.buffer()[..whole]) {
            self.line(line, now)?;
        }
        connection.consume(whole, Waiting::Chat)
    }

    fn line(&mut self, line: LobbyLine<'_>, now: Instant) -> Result<(), Failure> {
        match line {
            LobbyLine::Blank => {}
            LobbyLine::Chat(chat) if Some(chat.name) == self.name.as_deref().map(str::as_bytes) => {
                // Its own line back: the reply to its `say`.
                while self
                    .outstanding
                    .front()
                    .is_some_and(|said| said.sent_us <= chat.sent_us)
                {
                    self.outstanding.pop_front();
                }
                self.answered(chat.sent_us, now);
            }
            LobbyLine::Chat(chat) => {
                // Only once in the lobby's count: the senders count the receivers so.
                if self.ready.is_some() {
                    let sent = self.plan.at_micros(chat.sent_us);
                    self.recorder.delivery(
                        self.index,
                        now.saturating_duration_since(sent),
                        self.plan.is_measured(sent),
                    );
                }
            }
            LobbyLine::TooFast => {
                if let Some(said) = self.outstanding.pop_front() {
                    if said.measured {
                        self.recorder.chat_refused(said.receivers);
                    }
                    self.answered(said.sent_us, now);
                }
            }
            LobbyLine::Other(text) => {
                if self.ready.is_none() {
                    let confirmed = self
                        .name
                        .as_deref()
                        .is_some_and(|name| driver::name_line(name).as_bytes() == text);
                    if confirmed {
                        self.ready = Some(Ready::enter(self.recorder));
                    } else if !text.starts_with(b"[") {
                        // Chat in another form (people on the server) is not ours to
                        // judge; anything else is the name refused.
                        return Err(Failure::unexpected(Waiting::Name, text));
                    }
                }
                // Once settled, lines that are not timed chat (other people on the
                // server, notices) are left alone.
            }
        }
        Ok(())
    }

    /// The server answered the line said at `sent_us` (it came back, or was refused).
    fn answered(&self, sent_us: u64, now: Instant) {
        let sent = self.plan.at_micros(sent_us);
        self.recorder.command(
            self.index,
            now.saturating_duration_since(sent),
            self.plan.is_measured(sent),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::sources;
    use crate::script::Script;
    use std::net::{Ipv4Addr, SocketAddr};

    fn plan(sessions: usize, start: Instant) -> Plan {
        let target = SocketAddr::from((Ipv4Addr::LOCALHOST, 4000));
        Plan {
            target,
            sources: sources(target, 1),
            ssh: false,
            script: Script::default(),
            setup: Box::default(),
            restart: None,
            mode: Mode::Chat(Duration::from_secs(4)),
            timeout: Duration::from_secs(1),
            sessions,
            watchers: 0,
            names: None,
            watched: Box::default(),
            race: None,
            start,
            ramp: Duration::from_secs(2),
            measure_start: start + Duration::from_secs(3),
            end: start + Duration::from_secs(10),
        }
    }

    #[test]
    fn sessions_take_turns_on_one_schedule() {
        let start = Instant::now();
        // 4 sessions at 1 line/s together: each says one every 4 s, a second apart.
        let plan = plan(4, start);
        let every = Duration::from_secs(4);
        let chat_start = start + Duration::from_secs(2);
        let turns: Vec<Instant> = (0..4)
            .map(|index| first_turn(&plan, index, every, start))
            .collect();
        assert_eq!(
            turns,
            (0..4)
                .map(|second| chat_start + Duration::from_secs(second))
                .collect::<Vec<_>>()
        );
        // A session ready late keeps to its slots: the next one, not a burst.
        let late = chat_start + Duration::from_millis(5500);
        assert_eq!(
            first_turn(&plan, 1, every, late),
            chat_start + Duration::from_secs(9)
        );
    }
}
