//! The idle timer (SPEC section 6): a session without input is warned, then closed;
//! a connection that has not sent one whole line within the login timeout is closed
//! first.
//!
//! The timer is arithmetic on milliseconds, with no clock of its own: the registry's
//! alarm clock (players::alarms) rings the session's inbox when [`IdleTimer::due`]
//! comes, and the session asks the timer what that means. A line only notes its time;
//! the alarm is moved only when it rings, so that a command costs nothing here.

use std::time::Duration;

/// The longest the idle warning comes before the close.
const MAX_IDLE_WARNING: Duration = Duration::from_secs(60);

/// How long a session may go without input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Without a line for this long, a session is warned, then closed.
    pub idle: Duration,
    /// A connection that has not sent one complete line this long after connecting is
    /// closed: a silent connection must not hold a place for the whole idle timeout.
    pub login: Duration,
}

/// What the idle timer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IdleEvent {
    /// Warn the player that the session closes in this long.
    Warn(Duration),
    /// Close the session.
    Close,
    /// Close the session: no whole line came within this long of connecting.
    LoginTimeout(Duration),
}

/// The idle timer of one session: when its input last came, whether it was warned,
/// and (until the first whole line) when its login time ends. Times are milliseconds
/// on one clock, passed in by the caller.
#[derive(Debug)]
pub(super) struct IdleTimer {
    /// The idle timeout in milliseconds (8 bytes where a `Duration` takes 16, in
    /// every session's future).
    timeout_ms: u64,
    /// Until the first whole line: the login timeout, and when it ends. Boxed: it is
    /// over for every player in the lobby or a game, and the timer lives in each
    /// session's future.
    login: Option<Box<(Duration, u64)>>,
    last_input: u64,
    /// The warning was sent since the last input.
    warned: bool,
    /// When the session's alarm should ring next.
    due: u64,
}

impl IdleTimer {
    /// A timer that starts at `now`.
    pub(super) fn new(timeouts: Timeouts, now: u64) -> IdleTimer {
        let Timeouts {
            idle: timeout,
            login,
        } = timeouts;
        let login_ends = now.saturating_add(millis(login));
        IdleTimer {
            timeout_ms: millis(timeout),
            login: Some(Box::new((login, login_ends))),
            last_input: now,
            warned: false,
            due: now
                .saturating_add(millis(timeout - idle_warning(timeout)))
                .min(login_ends),
        }
    }

    /// When the session's alarm should ring next.
    pub(super) fn due(&self) -> u64 {
        self.due
    }

    /// Input came at `now`: the idle time counts from then.
    pub(super) fn input_came(&mut self, now: u64) {
        self.warned = false;
        self.last_input = now;
    }

    /// A whole line came at `now`: the idle time counts from then, and the login is
    /// over.
    pub(super) fn line_came(&mut self, now: u64) {
        self.input_came(now);
        self.login = None;
    }

    /// The alarm rang at `now`: what to do, if anything. [`Self::due`] is then when
    /// it should ring next.
    pub(super) fn alarm(&mut self, now: u64) -> Option<IdleEvent> {
        if let Some(&(login, ends)) = self.login.as_deref() {
            if now >= ends {
                return Some(IdleEvent::LoginTimeout(login));
            }
        }
        let timeout = Duration::from_millis(self.timeout_ms);
        let warning = idle_warning(timeout);
        let quiet = if self.warned {
            timeout
        } else {
            timeout - warning
        };
        let deadline = self.last_input.saturating_add(millis(quiet));
        if now < deadline {
            // Input came since the alarm was set: wait for the rest (or for the end
            // of the login, if that comes first).
            self.due = match self.login.as_deref() {
                Some(&(_, ends)) => deadline.min(ends),
                None => deadline,
            };
            return None;
        }
        if self.warned {
            return Some(IdleEvent::Close);
        }
        self.warned = true;
        self.due = self.last_input.saturating_add(self.timeout_ms);
        Some(IdleEvent::Warn(warning))
    }
}

/// What of an idle timer moves in an upgrade (SPEC section 11): times as they were
/// relative to the moment of packing, since each process has its own clock.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct IdleState {
    /// Milliseconds since the last input.
    quiet_ms: u64,
    warned: bool,
    /// Milliseconds left before the login times out, while it has not ended.
    login_left_ms: Option<u64>,
}

impl IdleTimer {
    /// This timer at `now`, to move.
    pub(super) fn pack(&self, now: u64) -> IdleState {
        IdleState {
            quiet_ms: now.saturating_sub(self.last_input),
            warned: self.warned,
            login_left_ms: self
                .login
                .as_deref()
                .map(|&(_, ends)| ends.saturating_sub(now)),
        }
    }

    /// A timer moved here at `now` (this process's clock), as it was packed, with this
    /// server's `timeouts`: the idle time goes on counting from the same last input.
    pub(super) fn unpack(timeouts: Timeouts, now: u64, state: &IdleState) -> IdleTimer {
        let mut timer = IdleTimer::new(timeouts, now);
        timer.last_input = now.saturating_sub(state.quiet_ms);
        timer.warned = state.warned;
        timer.login = state
            .login_left_ms
            .map(|left| Box::new((timeouts.login, now.saturating_add(left))));
        // Rung at once: the timer then says when it is due next, from these times.
        timer.due = now;
        timer
    }
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How long before closing an idle session it is warned: half the idle timeout, at
/// most [`MAX_IDLE_WARNING`].
fn idle_warning(idle_timeout: Duration) -> Duration {
    (idle_timeout / 2).min(MAX_IDLE_WARNING)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeouts(idle: u64, login: u64) -> Timeouts {
        Timeouts {
            idle: Duration::from_secs(idle),
            login: Duration::from_secs(login),
        }
    }

    /// Ring the alarm whenever it is due, from `now`, until the timer has something to
    /// say: what it said and when.
    fn next_event(timer: &mut IdleTimer) -> (IdleEvent, u64) {
        loop {
            let now = timer.due();
            if let Some(event) = timer.alarm(now) {
                return (event, now);
            }
        }
    }

    #[test]
    fn a_timer_moved_to_another_clock_counts_from_the_same_last_input() {
        let mut timer = IdleTimer::new(timeouts(100, 1000), 0);
        timer.line_came(30_000);
        // Packed at 40 s of the old clock; unpacked at 100 s of the new one (whose
        // registry's clock starts a day on, so that a last input before it has a time).
        let state = timer.pack(40_000);
        let json = serde_json::to_string(&state).unwrap();
        let state: IdleState = serde_json::from_str(&json).unwrap();
        let mut moved = IdleTimer::unpack(timeouts(100, 1000), 100_000, &state);
        // The warning comes 50 s after the last input (10 s before the move), as it
        // would have; the close 50 s after that.
        assert_eq!(
            next_event(&mut moved),
            (IdleEvent::Warn(Duration::from_secs(50)), 140_000)
        );
        assert_eq!(next_event(&mut moved), (IdleEvent::Close, 190_000));
        // A session still logging in keeps what is left of its time to send a line.
        let fresh = IdleTimer::new(timeouts(1000, 60), 0);
        let mut moved = IdleTimer::unpack(timeouts(1000, 60), 100_000, &fresh.pack(20_000));
        assert_eq!(
            next_event(&mut moved),
            (IdleEvent::LoginTimeout(Duration::from_secs(60)), 140_000)
        );
    }

    #[test]
    fn the_idle_timer_warns_then_closes_and_counts_from_the_last_input() {
        let mut timer = IdleTimer::new(timeouts(100, 1000), 0);
        assert_eq!(timer.due(), 50_000);
        // Input at 30 s moves the warning from 50 s to 80 s.
        timer.line_came(30_000);
        assert_eq!(
            next_event(&mut timer),
            (IdleEvent::Warn(Duration::from_secs(50)), 80_000)
        );
        assert_eq!(next_event(&mut timer), (IdleEvent::Close, 130_000));
    }

    #[test]
    fn input_after_the_warning_starts_over() {
        let mut timer = IdleTimer::new(timeouts(100, 1000), 0);
        timer.line_came(1);
        assert_eq!(
            next_event(&mut timer),
            (IdleEvent::Warn(Duration::from_secs(50)), 50_001)
        );
        timer.line_came(60_000);
        assert_eq!(timer.alarm(100_001), None, "not closed: input came");
        assert_eq!(
            next_event(&mut timer),
            (IdleEvent::Warn(Duration::from_secs(50)), 110_000)
        );
    }

    #[test]
    fn without_a_whole_line_the_login_timeout_closes_first() {
        let mut timer = IdleTimer::new(timeouts(100, 10), 0);
        assert_eq!(timer.due(), 10_000);
        // Bytes without a line ending keep the session from idling, not from the
        // login timeout.
        timer.input_came(5_000);
        assert_eq!(
            next_event(&mut timer),
            (IdleEvent::LoginTimeout(Duration::from_secs(10)), 10_000)
        );
        // After a whole line only the idle timeout counts.
        let mut timer = IdleTimer::new(timeouts(100, 10), 0);
        timer.line_came(0);
        assert_eq!(
            next_event(&mut timer),
            (IdleEvent::Warn(Duration::from_secs(50)), 50_000)
        );
    }

    #[test]
    fn an_alarm_that_rings_late_still_says_what_is_due() {
        let mut timer = IdleTimer::new(timeouts(100, 1000), 0);
        timer.line_came(0);
        assert_eq!(
            timer.alarm(200_000),
            Some(IdleEvent::Warn(Duration::from_secs(50)))
        );
        assert_eq!(timer.alarm(200_000), Some(IdleEvent::Close));
    }

    #[test]
    fn the_warning_comes_at_most_a_minute_early() {
        assert_eq!(
            idle_warning(Duration::from_secs(10)),
            Duration::from_secs(5)
        );
        assert_eq!(
            idle_warning(Duration::from_secs(1800)),
            Duration::from_secs(60)
        );
    }
}
