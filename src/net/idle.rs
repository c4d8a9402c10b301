//! The idle timer (SPEC section 6): a session without input is warned, then closed;
//! a connection that has not sent one whole line within the login timeout is closed
//! first.
//!
//! What a command costs matters with thousands of mostly idle players, so the timer is
//! not reset by every line: a line only notes its time, and the timer, polled only once
//! its due time has passed, moves itself to the real deadline when it fires.

use std::future::Future;
use std::pin::Pin;
use std::task::{self, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use crate::net::shutdown::LastWaker;

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

/// The idle timer: warns, then closes, a session that has had no input for a while.
///
/// A line only notes its time ([`IdleTimer::input_came`]); the timer is not touched.
/// When it fires, it finds whether input came since and moves itself to the real
/// deadline. It is polled only once its due time has passed, or with a new waker.
///
/// Until the first whole line it also keeps the login deadline, which comes first.
pub(super) struct IdleTimer {
    timeout: Duration,
    /// Until the first whole line: the login timeout, and when it ends. Boxed: it is
    /// over for every player in the lobby or a game, and the timer lives in each
    /// session's future.
    login: Option<Box<(Duration, Instant)>>,
    last_input: Instant,
    /// The warning was sent since the last input.
    warned: bool,
    /// When `sleep` is due: it is polled only after this.
    due: Instant,
    /// `Sleep` is `!Unpin`; boxed, so that the session is `Unpin`.
    sleep: Pin<Box<Sleep>>,
    /// The waker `sleep` was last polled with.
    waker: LastWaker,
}

impl IdleTimer {
    /// A timer that starts now.
    pub(super) fn new(timeouts: Timeouts) -> IdleTimer {
        let Timeouts {
            idle: timeout,
            login,
        } = timeouts;
        let now = Instant::now();
        let login_ends = now + login;
        let due = (now + (timeout - idle_warning(timeout))).min(login_ends);
        IdleTimer {
            timeout,
            login: Some(Box::new((login, login_ends))),
            last_input: now,
            warned: false,
            due,
            sleep: Box::pin(tokio::time::sleep_until(due)),
            waker: LastWaker::default(),
        }
    }

    /// Input came: the idle time counts from now.
    pub(super) fn input_came(&mut self) {
        self.warned = false;
        self.last_input = Instant::now();
    }

    /// A whole line came: the idle time counts from now, and the login is over.
    pub(super) fn line_came(&mut self) {
        self.input_came();
        self.login = None;
    }
}

impl Future for IdleTimer {
    type Output = IdleEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<IdleEvent> {
        let timer = &mut *self;
        if !timer.waker.is_new(cx) && Instant::now() < timer.due {
            return Poll::Pending;
        }
        let warning = idle_warning(timer.timeout);
        loop {
            if timer.sleep.as_mut().poll(cx).is_pending() {
                timer.due = timer.sleep.deadline();
                return Poll::Pending;
            }
            if let Some(&(login, ends)) = timer.login.as_deref() {
                if Instant::now() >= ends {
                    return Poll::Ready(IdleEvent::LoginTimeout(login));
                }
            }
            let deadline = timer.last_input
                + if timer.warned {
                    timer.timeout
                } else {
                    timer.timeout - warning
                };
            if Instant::now() < deadline {
                // Input came since the timer was set: wait for the rest (or for the
                // end of the login, if that comes first).
                let next = match timer.login.as_deref() {
                    Some(&(_, ends)) => deadline.min(ends),
                    None => deadline,
                };
                timer.sleep.as_mut().reset(next);
                continue;
            }
            if timer.warned {
                return Poll::Ready(IdleEvent::Close);
            }
            timer.warned = true;
            let closes_at = timer.last_input + timer.timeout;
            timer.sleep.as_mut().reset(closes_at);
            timer.due = closes_at;
            // A timer that fired has let go of the waker: poll it to give it one.
            let _ = timer.sleep.as_mut().poll(cx);
            return Poll::Ready(IdleEvent::Warn(warning));
        }
    }
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

    #[tokio::test(start_paused = true)]
    async fn the_idle_timer_warns_then_closes_and_counts_from_the_last_input() {
        let mut timer = IdleTimer::new(timeouts(100, 1000));
        // Input at 30 s moves the warning from 50 s to 80 s.
        tokio::time::sleep(Duration::from_secs(30)).await;
        timer.line_came();
        let started = Instant::now();
        assert_eq!((&mut timer).await, IdleEvent::Warn(Duration::from_secs(50)));
        assert_eq!(started.elapsed(), Duration::from_secs(50));
        assert_eq!((&mut timer).await, IdleEvent::Close);
        assert_eq!(started.elapsed(), Duration::from_secs(100));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_whole_line_the_login_timeout_closes_first() {
        let started = Instant::now();
        let mut timer = IdleTimer::new(timeouts(100, 10));
        // Bytes without a line ending keep the session from idling, not from the
        // login timeout.
        tokio::time::sleep(Duration::from_secs(5)).await;
        timer.input_came();
        assert_eq!(
            (&mut timer).await,
            IdleEvent::LoginTimeout(Duration::from_secs(10))
        );
        assert_eq!(started.elapsed(), Duration::from_secs(10));
        // After a whole line only the idle timeout counts.
        let mut timer = IdleTimer::new(timeouts(100, 10));
        timer.line_came();
        assert_eq!((&mut timer).await, IdleEvent::Warn(Duration::from_secs(50)));
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
