//! One load-test session in a race (`--race N`, SPEC 9): it takes its name, opens its
//! race (the first session of each race, its host) or joins it, the host starts it
//! once everyone is in, and every racer plays 2048 on the open-loop schedule, reading
//! its socket all the time.
//!
//! What a racer reads is cut into units at every prompt ([`parse::unit`]). The answer
//! to its move is timed as a playing session's command is (from the send, or from when
//! it was due if the last answer held it back). A line of the race can come at any
//! time, also while a move waits for its answer, and is never taken for the answer: a
//! message begins with a line end, an answer never does. A progress line about
//! another racer is a delivery, timed from when that racer sent the move that caused
//! it ([`super::racing`]). The deliveries expected are counted by the racers whose
//! moves cause them: a move that raised the racer's largest tile to the race's
//! milestone or beyond, or ended its game, makes one line for every other racer still
//! in the race, as the server's rules say (src/race.rs).
//!
//! Moves are random (`w`, `a`, `s`, `d`), so racers given the same tiles by the race's
//! seed still play different games and do not all reach a tile in the same second. A
//! racer whose game is over (2048's win tile or no move left: the server answers `You
//! are done in race N` and takes it back to the lobby; or the race's time ran out)
//! stops sending, since its keys would be unknown commands in the lobby, but stays
//! connected to the end, hearing the race's lines like the others. The report counts
//! the racers still playing at the end.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::time::Instant;

use super::chatter::sleep_until_some;
use super::connection::{Connection, GAME_PROMPT, LOBBY_PROMPT};
use super::driver::{self, Ready};
use super::failure::{Failure, Waiting};
use super::parse::{self, News, RaceLine, Unit};
use super::plan::{Mode, Plan};
use super::racing::{Group, Moves, Racing};
use super::social::{self, Sent};
use super::stats::{Recorder, Sending};
use arcade::races::rules::RaceId;

/// The keys a racer plays, one chosen at random for each move.
const KEYS: [&str; 4] = ["w", "a", "s", "d"];

/// Run racer session `index` of `plan`, recording into `recorder`; a failure is
/// recorded with its reason and ends only this session.
pub(crate) async fn session(
    index: usize,
    plan: Arc<Plan>,
    recorder: Arc<Recorder>,
    sending: Sending,
) {
    let Some(racing) = &plan.race else {
        return;
    };
    let Some((group, host)) = racing.seat(index) else {
        return;
    };
    // However the session ends, the others of its race stop counting on it.
    let mut membership = Membership {
        group,
        host,
        joined: false,
    };
    tokio::time::sleep_until(plan.connect_at(index)).await;
    if Instant::now() >= plan.end {
        return;
    }
    if let Err(failure) = race(index, &plan, racing, &recorder, &mut membership, sending).await {
        recorder.failure(failure.to_string());
    }
}

/// A session's place in its race, told to the others however the session ends.
struct Membership<'a> {
    group: &'a Group,
    /// The first of its race, which opens and starts it.
    host: bool,
    /// In the race (the host once it is open).
    joined: bool,
}

impl Drop for Membership<'_> {
    fn drop(&mut self) {
        match (self.joined, self.host) {
            (true, _) => self.group.left(),
            (false, true) => self.group.host_failed(),
            (false, false) => self.group.gave_up(),
        }
    }
}

async fn race(
    index: usize,
    plan: &Plan,
    racing: &Racing,
    recorder: &Recorder,
    membership: &mut Membership<'_>,
    sending: Sending,
) -> Result<(), Failure> {
    let mut connection = driver::connect(index, plan, recorder, true).await?;
    let group = membership.group;
    let race = if membership.host {
        let race = open(&mut connection, plan, racing).await?;
        group.opened(race);
        membership.joined = true;
        start(&mut connection, plan, group, race).await?;
        race
    } else {
        // The host opens the race as soon as it has connected, which is before the
        // measured window begins.
        let race = group
            .race(plan.measure_start)
            .await
            .ok_or(Failure::NoRace)?;
        join(&mut connection, plan, race).await?;
        group.joined();
        membership.joined = true;
        race
    };
    let largest = go(&mut connection, plan, race).await?;
    let moves = racing.moves(index).ok_or(Failure::NoRace)?;
    let mut racer = Racer {
        index,
        plan,
        racing,
        recorder,
        group,
        moves,
        largest,
        pending: None,
        last_reply: Instant::now(),
        playing: Some(Ready::enter(recorder)),
    };
    racer.play(&mut connection, sending).await
}

/// The next whole unit received (up to a prompt), read until `deadline`.
async fn next_unit(
    connection: &mut Connection,
    waiting: Waiting,
    deadline: Instant,
) -> Result<Vec<u8>, Failure> {
    loop {
        if let Some(end) = parse::unit_end(connection.buffer()) {
            let unit = connection.buffer()[..end].to_vec();
            connection.consume(end, waiting)?;
            return Ok(unit);
        }
        tokio::time::timeout_at(deadline, connection.read_some(waiting))
            .await
            .map_err(|_| Failure::Timeout(waiting))??;
        // Fails once what has come without a prompt is longer than any of ours.
        connection.consume(0, waiting)?;
    }
}

/// For the host: open the race (`race 2048 ARGS`); its number.
async fn open(
    connection: &mut Connection,
    plan: &Plan,
    racing: &Racing,
) -> Result<RaceId, Failure> {
    connection.send_line(&racing.line).await?;
    let unit = next_unit(connection, Waiting::Open, Instant::now() + plan.timeout).await?;
    match parse::unit(&unit) {
        Unit::Reply(reply) => {
            parse::race_opened(reply).ok_or_else(|| Failure::unexpected(Waiting::Open, reply))
        }
        _ => Err(Failure::unexpected(Waiting::Open, &unit)),
    }
}

/// For the host: once every other racer has joined or failed (at the latest when the
/// measured window begins), `start`.
async fn start(
    connection: &mut Connection,
    plan: &Plan,
    group: &Group,
    race: RaceId,
) -> Result<(), Failure> {
    let everyone_in = group.everyone_in(plan.measure_start);
    tokio::pin!(everyone_in);
    loop {
        // Reading meanwhile: every join is told to the host.
        tokio::select! {
            read = connection.read_some(Waiting::Start) => {
                read?;
                skip_race_lines(connection, Waiting::Start)?;
            }
            () = &mut everyone_in => break,
        }
    }
    connection.send_line("start").await?;
    let starts = format!("Race {race} starts now.");
    let mut alone = false;
    let deadline = Instant::now() + plan.timeout;
    loop {
        let unit = next_unit(connection, Waiting::Start, deadline).await?;
        match parse::unit(&unit) {
            Unit::Race(_) => {}
            Unit::Reply(reply) if reply.starts_with(starts.as_bytes()) => return Ok(()),
            // Nobody else is in (a race of one, or the others failed): the server
            // asks for `start` again to race alone.
            Unit::Reply(reply) if !alone && reply.starts_with(b"Nobody has joined race ") => {
                alone = true;
                connection.send_line("start").await?;
            }
            _ => return Err(Failure::unexpected(Waiting::Start, &unit)),
        }
    }
}

/// Forget the race's lines received so far (others joining); anything else is not
/// what the protocol gives before the start.
fn skip_race_lines(connection: &mut Connection, waiting: Waiting) -> Result<(), Failure> {
    let mut taken = 0;
    let buffer = connection.buffer();
    while let Some(end) = parse::unit_end(&buffer[taken..]) {
        let unit = &buffer[taken..taken + end];
        if !matches!(parse::unit(unit), Unit::Race(_)) {
            return Err(Failure::unexpected(waiting, unit));
        }
        taken += end;
    }
    connection.consume(taken, waiting)
}

/// For a racer other than the host: `join N`.
async fn join(connection: &mut Connection, plan: &Plan, race: RaceId) -> Result<(), Failure> {
    connection.send_line(&format!("join {race}")).await?;
    let joined = format!("You joined race {race}: ");
    let deadline = Instant::now() + plan.timeout;
    loop {
        let unit = next_unit(connection, Waiting::Join, deadline).await?;
        match parse::unit(&unit) {
            // Others joining at the same time.
            Unit::Race(_) => {}
            Unit::Reply(reply) if reply.starts_with(joined.as_bytes()) => return Ok(()),
            _ => return Err(Failure::unexpected(Waiting::Join, &unit)),
        }
    }
}

/// Wait for the race to start this racer's game (`Race N: go!`, the welcome and the
/// first board): the largest tile of that board.
async fn go(connection: &mut Connection, plan: &Plan, race: RaceId) -> Result<u64, Failure> {
    // The host starts at the latest when the measured window begins.
    let deadline = plan.measure_start.max(Instant::now()) + plan.timeout;
    let go = format!("\r\nRace {race}: go!\r\n");
    loop {
        let unit = next_unit(connection, Waiting::Start, deadline).await?;
        match parse::unit(&unit) {
            Unit::Race(_) => {}
            Unit::Aside(text) if text.starts_with(go.as_bytes()) && text.ends_with(GAME_PROMPT) => {
                return Ok(parse::largest_tile(text).unwrap_or(0));
            }
            _ => return Err(Failure::unexpected(Waiting::Start, &unit)),
        }
    }
}

/// A move sent and not yet answered.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// When its time starts: the send, or when it was due if the last answer came
    /// after that.
    from: Instant,
    /// When it was sent.
    sent: Instant,
    /// Due inside the measured window.
    measured: bool,
}

/// One racer's state while it plays.
struct Racer<'a> {
    /// The session, for its histogram shard.
    index: usize,
    plan: &'a Plan,
    racing: &'a Racing,
    recorder: &'a Recorder,
    group: &'a Group,
    /// Its own moves, for the others.
    moves: &'a Moves,
    /// The largest tile on its board.
    largest: u64,
    pending: Option<Pending>,
    last_reply: Instant,
    /// Counted among the sessions playing while its game goes on.
    playing: Option<Ready<'a>>,
}

impl Racer<'_> {
    /// Play until the end of the measured window (or the end of the game), then stay
    /// while the last lines are on their way.
    async fn play(&mut self, connection: &mut Connection, sending: Sending) -> Result<(), Failure> {
        let Mode::Open(interval) = self.plan.mode else {
            // run() gives races the open loop only.
            return Ok(());
        };
        // A random phase within one interval, so that racers started together do not
        // send together.
        let mut due = Instant::now() + interval.mul_f64(rand::random::<f64>());
        let end = self.plan.end;
        loop {
            let send_at =
                (self.playing.is_some() && self.pending.is_none() && due < end).then_some(due);
            let answer_by = self.pending.map(|pending| pending.sent + self.plan.timeout);
            // A move sent before the end is answered before the racer stops.
            let idle = self.pending.is_none();
            tokio::select! {
                read = connection.read_some(Waiting::Reply) => {
                    read?;
                    self.take(connection)?;
                }
                () = sleep_until_some(send_at) => {
                    self.send(connection, due).await?;
                    due += interval;
                }
                () = sleep_until_some(answer_by) => return Err(Failure::Timeout(Waiting::Reply)),
                () = tokio::time::sleep_until(end), if idle => break,
            }
        }
        // No move goes out after this: the drain need not wait for this racer.
        drop(sending);
        if self.playing.is_some() {
            self.recorder.racers_playing.fetch_add(1, Ordering::Relaxed);
        }
        // Stay for the lines still on their way to this racer and to the others.
        let recorder = self.recorder;
        let drained = recorder.drained(self.plan.drain_deadline());
        tokio::pin!(drained);
        loop {
            tokio::select! {
                read = connection.read_some(Waiting::Reply) => {
                    read?;
                    self.take(connection)?;
                }
                () = &mut drained => break,
            }
        }
        Ok(())
    }

    /// Send the next move, due at `due`.
    async fn send(&mut self, connection: &mut Connection, due: Instant) -> Result<(), Failure> {
        let now = Instant::now();
        // When the last answer came after this move was due, the server held it back:
        // count from when it was due, as a playing session does.
        let from = if self.last_reply > due { due } else { now };
        let measured = self.plan.is_measured(due);
        // Noted before the write, so that a line this move causes always finds it.
        self.moves.sending(Sent {
            at_us: self.plan.micros(now),
            measured,
        });
        self.pending = Some(Pending {
            from,
            sent: now,
            measured,
        });
        let key = KEYS[rand::random_range(0..KEYS.len())];
        connection.send_line(key).await
    }

    /// Handle every whole unit received so far.
    fn take(&mut self, connection: &mut Connection) -> Result<(), Failure> {
        let now = Instant::now();
        let buffer = connection.buffer();
        let mut taken = 0;
        while let Some(end) = parse::unit_end(&buffer[taken..]) {
            self.unit(&buffer[taken..taken + end], now)?;
            taken += end;
        }
        connection.consume(taken, Waiting::Reply)
    }

    fn unit(&mut self, unit: &[u8], now: Instant) -> Result<(), Failure> {
        match parse::unit(unit) {
            Unit::Race(RaceLine::Progress { name, news }) => self.delivery(name, news, now),
            Unit::Race(RaceLine::Other) => {}
            // The race's time ran out: the server ended this racer's game and sent it
            // to the lobby.
            Unit::Aside(text) => {
                if text.ends_with(LOBBY_PROMPT) {
                    self.stop();
                }
            }
            Unit::Reply(reply) => self.answered(reply, now)?,
        }
        Ok(())
    }

    /// The answer to the pending move: timed, and read for what the move made the
    /// others hear.
    fn answered(&mut self, reply: &[u8], now: Instant) -> Result<(), Failure> {
        let Some(pending) = self.pending.take() else {
            return Err(Failure::unexpected(Waiting::Reply, reply));
        };
        self.last_reply = now;
        self.recorder.command(
            self.index,
            now.saturating_duration_since(pending.from),
            pending.measured,
        );
        let done = parse::done_in_race(reply);
        let raised = parse::largest_tile(reply).filter(|&tile| tile > self.largest);
        self.moves.answered(raised, done);
        // The others hear of a new largest tile from the milestone on, and of the end
        // of the game (one line, the end, when a move does both).
        let news = done || raised.is_some_and(|tile| tile >= self.racing.milestone);
        if news && pending.measured {
            self.recorder.expect_deliveries(self.group.hearers());
        }
        if let Some(tile) = raised {
            self.largest = tile;
        }
        if done || reply.ends_with(LOBBY_PROMPT) {
            self.stop();
        }
        Ok(())
    }

    /// A progress line about racer `name`: a delivery, timed from the move that caused
    /// it. Lines about anyone but this run's racers are not ours to time.
    fn delivery(&self, name: &[u8], news: News, now: Instant) {
        let cause = self
            .plan
            .names
            .as_deref()
            .and_then(|tag| social::index_of(tag, name))
            .and_then(|index| self.racing.moves(index))
            .and_then(|moves| moves.cause(news));
        if let Some(sent) = cause {
            self.recorder.delivery(
                self.index,
                now.saturating_duration_since(self.plan.at_micros(sent.at_us)),
                sent.measured,
            );
        }
    }

    /// The racer's game is over: it sends no more.
    fn stop(&mut self) {
        if self.playing.take().is_some() {
            self.recorder.racers_done.fetch_add(1, Ordering::Relaxed);
        }
    }
}
