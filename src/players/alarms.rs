//! The alarm clock of every session of this instance: when each session's idle timer
//! is next due, kept in one ordered set, and one task that rings the session's inbox
//! ([`Bell::Alarm`](crate::players::inbox::Bell)) when its time comes.
//!
//! A tokio `Sleep` per session is a timer entry of about 110 bytes on the heap, and
//! its box and waker in the session's future; with thousands of idle players, one
//! set of (time, session) pairs and one task cost a few tens of bytes a session
//! (issue 29, docs/BENCHMARKS.md). Times are kept in steps of [`TICK`], so that the
//! task wakes once for all the alarms of a step. The session decides what an alarm
//! means (net::idle); the clock only rings.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::players::ids::SessionId;

/// The clock's step: an alarm rings at most this late.
pub const TICK: Duration = Duration::from_millis(50);

const TICK_MS: u64 = TICK.as_millis() as u64;

/// When each session's alarm is due, in steps since the clock started.
#[derive(Debug)]
pub(super) struct AlarmClock {
    epoch: Instant,
    due: Mutex<BTreeSet<(u64, SessionId)>>,
    /// An alarm earlier than all others was set, or the registry went: the task
    /// looks again.
    changed: Notify,
    /// The task that rings has been started.
    running: AtomicBool,
}

impl AlarmClock {
    #[cfg(test)]
    pub(super) fn new() -> AlarmClock {
        AlarmClock::started_before(Duration::ZERO)
    }

    /// A clock that reads `headroom` at its start: a session moved here by an upgrade
    /// (SPEC section 11) whose last input was up to that long ago has a time on it.
    pub(super) fn started_before(headroom: Duration) -> AlarmClock {
        AlarmClock {
            epoch: Instant::now()
                .checked_sub(headroom)
                .unwrap_or_else(Instant::now),
            due: Mutex::new(BTreeSet::new()),
            changed: Notify::new(),
            running: AtomicBool::new(false),
        }
    }

    fn due(&self) -> MutexGuard<'_, BTreeSet<(u64, SessionId)>> {
        // Every change under the lock is one insert or removal: a poisoned set is whole.
        self.due.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Milliseconds since the clock started: the time alarms are set in.
    pub(super) fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether the task that rings still has to be started (true once).
    pub(super) fn start(&self) -> bool {
        !self.running.swap(true, Ordering::AcqRel)
    }

    /// Set `id`'s alarm to ring at `at_ms`, in place of the one at step `old` (0:
    /// none). Returns the step it rings at, for the next change or [`Self::clear`].
    pub(super) fn set(&self, id: SessionId, old: u64, at_ms: u64) -> u64 {
        let step = at_ms.div_ceil(TICK_MS).max(1);
        let earliest = {
            let mut due = self.due();
            if old != 0 {
                due.remove(&(old, id));
            }
            due.insert((step, id));
            due.first() == Some(&(step, id))
        };
        if earliest {
            self.changed.notify_one();
        }
        step
    }

    /// `id`'s alarm at step `step` is no longer wanted (the session ended).
    pub(super) fn clear(&self, id: SessionId, step: u64) {
        if step != 0 {
            self.due().remove(&(step, id));
        }
    }

    /// How many alarms are set.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.due().len()
    }

    /// Wake the task that rings: the registry has gone.
    pub(super) fn stop(&self) {
        self.changed.notify_one();
    }

    /// The sessions whose alarms are due now, taken off the clock, and the step of the
    /// next one.
    fn take_due(&self) -> (Vec<SessionId>, Option<u64>) {
        let now = self.now_ms() / TICK_MS;
        let mut due = self.due();
        let later = due.split_off(&(now + 1, SessionId(0)));
        let ringing = std::mem::replace(&mut *due, later);
        let next = due.first().map(|&(step, _)| step);
        (ringing.into_iter().map(|(_, id)| id).collect(), next)
    }
}

/// Ring each session's alarm when it is due, with `ring`, until `ring` says the
/// registry has gone (it is called with no sessions too, to ask).
pub(super) async fn ring_alarms(
    clock: std::sync::Arc<AlarmClock>,
    ring: impl Fn(&[SessionId]) -> bool,
) {
    /// However the task ends (its runtime gone, a panic), the next alarm set starts
    /// another: idle timeouts must not stop silently for every session.
    struct Stopped<'a>(&'a AlarmClock);
    impl Drop for Stopped<'_> {
        fn drop(&mut self) {
            self.0.running.store(false, Ordering::Release);
        }
    }
    let _stopped = Stopped(&clock);
    loop {
        let changed = clock.changed.notified();
        tokio::pin!(changed);
        // From here on a change wakes this loop, even one made before it waits.
        changed.as_mut().enable();
        let (due, next) = clock.take_due();
        if !ring(&due) {
            return;
        }
        drop(due);
        match next {
            Some(step) => {
                let at = clock.epoch + Duration::from_millis(step.saturating_mul(TICK_MS));
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = &mut changed => {}
                }
            }
            None => changed.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn id(n: u64) -> SessionId {
        SessionId(n)
    }

    #[test]
    fn an_alarm_is_due_from_its_step_on_and_only_once() {
        let clock = AlarmClock::new();
        let step = clock.set(id(1), 0, 120);
        assert_eq!(step, 3, "120 ms rounds up to the third step of 50");
        clock.set(id(2), 0, 10_000);
        let (due, next) = clock.take_due();
        assert!(due.is_empty(), "nothing is due at once: {due:?}");
        assert_eq!(next, Some(3));
    }

    #[test]
    fn setting_an_alarm_again_moves_it_and_clearing_removes_it() {
        let clock = AlarmClock::new();
        let first = clock.set(id(1), 0, 500);
        let moved = clock.set(id(1), first, 900);
        assert_eq!(clock.due().len(), 1, "one alarm a session");
        assert_eq!(clock.due().first(), Some(&(moved, id(1))));
        clock.clear(id(1), moved);
        assert!(clock.due().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn the_task_rings_each_session_when_its_alarm_is_due() {
        let clock = Arc::new(AlarmClock::new());
        let rung: Arc<Mutex<Vec<(SessionId, u64)>>> = Arc::default();
        let task = tokio::spawn(ring_alarms(Arc::clone(&clock), {
            let rung = Arc::clone(&rung);
            let clock = Arc::clone(&clock);
            move |ids: &[SessionId]| {
                let now = clock.now_ms();
                rung.lock().unwrap().extend(ids.iter().map(|&id| (id, now)));
                true
            }
        }));
        clock.set(id(1), 0, 300);
        clock.set(id(2), 0, 100);
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        let rung = rung.lock().unwrap().clone();
        assert_eq!(
            rung.iter().map(|&(id, _)| id).collect::<Vec<_>>(),
            [id(2), id(1)],
            "in the order they were due"
        );
        for (id, at) in rung {
            let wanted = if id.0 == 1 { 300 } else { 100 };
            assert!(
                (wanted..wanted + TICK_MS).contains(&at),
                "session {id} rang at {at} ms, wanted {wanted}"
            );
        }
        task.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_that_ended_is_started_again() {
        let clock = Arc::new(AlarmClock::new());
        assert!(clock.start(), "the first alarm starts the task");
        assert!(!clock.start(), "once");
        let task = tokio::spawn(ring_alarms(Arc::clone(&clock), |_: &[SessionId]| true));
        tokio::time::sleep(Duration::from_millis(10)).await;
        task.abort();
        let _ = task.await;
        assert!(clock.start(), "an aborted task is started again");
    }

    #[tokio::test(start_paused = true)]
    async fn the_task_ends_when_the_registry_has_gone() {
        let clock = Arc::new(AlarmClock::new());
        let alive = Arc::new(AtomicBool::new(true));
        let task = tokio::spawn(ring_alarms(Arc::clone(&clock), {
            let alive = Arc::clone(&alive);
            move |_: &[SessionId]| alive.load(Ordering::Acquire)
        }));
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!task.is_finished());
        alive.store(false, Ordering::Release);
        clock.stop();
        tokio::time::timeout(Duration::from_secs(1), task)
            .await
            .expect("the task ends")
            .unwrap();
    }
}
