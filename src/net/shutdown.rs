//! Shutdown as a value (mini-redis' shape): the server holds a [`ShutdownSignal`], each
//! wait that must end at shutdown (the accept loop's connections waiting for their
//! PROXY header) a [`Shutdown`] that completes when the signal fires or is dropped.
//! Sessions hear shutdown through their inbox instead (the registry rings every
//! session's shutdown bell), so that an idle player holds no listener of its own.
//!
//! Besides the broadcast channel that wakes the listeners, the signal keeps a flag
//! raised just before they are woken. A [`Shutdown`] looks at that flag (one shared,
//! read-only cache line) when its task wakes, and polls the channel only once the flag
//! is up, or when it is polled with a new waker: polling a broadcast receiver takes
//! locks that every listener shares.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use tokio::sync::broadcast;

/// The server's side of shutdown: one signal that every wait for a PROXY header
/// listens for. Sessions hear shutdown from the registry
/// ([`crate::players::registry::Registry::shut_down`]).
#[derive(Debug)]
pub struct ShutdownSignal {
    sender: broadcast::Sender<()>,
    started: Arc<AtomicBool>,
}

impl Default for ShutdownSignal {
    fn default() -> Self {
        ShutdownSignal::new()
    }
}

impl ShutdownSignal {
    /// A signal nobody listens to yet.
    pub fn new() -> ShutdownSignal {
        let (sender, _) = broadcast::channel(1);
        ShutdownSignal {
            sender,
            started: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A listener for one wait.
    pub fn subscribe(&self) -> Shutdown {
        let mut notify = self.sender.subscribe();
        Shutdown {
            started: Arc::clone(&self.started),
            notified: Box::pin(async move {
                // Nothing is ever sent: the channel closes when the signal goes.
                let _ = notify.recv().await;
            }),
            waker: LastWaker::default(),
            fired: false,
        }
    }

    /// Tell every listener to stop waiting.
    pub fn fire(self) {
        drop(self);
    }
}

impl Drop for ShutdownSignal {
    /// Dropping the signal, however it happens (a cancelled or aborted server task
    /// included), raises the flag before the channel closes, so listeners always see it.
    fn drop(&mut self) {
        self.started.store(true, Ordering::Release);
    }
}

/// Listens for the server's shutdown signal: a future that completes once the signal
/// has fired, and at once on every poll after that.
pub struct Shutdown {
    started: Arc<AtomicBool>,
    /// Boxed so that the listener is `Unpin` and stays out of the session's hot fields.
    notified: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// The waker `notified` was last polled with.
    waker: LastWaker,
    fired: bool,
}

/// The waker a lazily polled future last handed on. Such a future (the shutdown
/// listener) skips polling what it wraps while nothing can have happened, but must
/// poll it again whenever it is polled with a new waker, or the wrapped future would
/// wake the old one.
#[derive(Debug, Default)]
struct LastWaker(Option<Waker>);

impl LastWaker {
    /// Whether `cx` brings a waker other than the last one; it is kept if so.
    fn is_new(&mut self, cx: &Context<'_>) -> bool {
        if self
            .0
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            return false;
        }
        self.0 = Some(cx.waker().clone());
        true
    }
}

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shutdown")
            .field("fired", &self.fired)
            .finish_non_exhaustive()
    }
}

impl Shutdown {
    /// Wait until shutdown is signalled (the signal fired or was dropped).
    pub async fn recv(mut self) {
        (&mut self).await;
    }

    /// Whether the signal has been seen.
    pub fn is_fired(&self) -> bool {
        self.fired
    }
}

impl Future for Shutdown {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.fired {
            return Poll::Ready(());
        }
        if !self.waker.is_new(cx) && !self.started.load(Ordering::Acquire) {
            // The channel holds this waker already and the signal has not started.
            return Poll::Pending;
        }
        if self.notified.as_mut().poll(cx).is_ready() {
            self.fired = true;
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn shutdown_is_seen_after_other_wakeups() {
        let signal = ShutdownSignal::new();
        let mut first = signal.subscribe();
        let second = signal.subscribe().recv();
        tokio::pin!(second);
        // Polled again and again without a signal, as a busy session polls it.
        for _ in 0..3 {
            assert!(futures::poll!(&mut first).is_pending());
        }
        signal.fire();
        tokio::time::timeout(Duration::from_secs(5), async {
            (&mut first).await;
            second.await;
        })
        .await
        .expect("every listener sees the signal");
        // Once fired, it stays fired.
        assert!(first.is_fired());
        assert!(futures::poll!(&mut first).is_ready());
    }

    #[tokio::test]
    async fn a_dropped_signal_still_stops_sessions() {
        let signal = ShutdownSignal::new();
        let listener = signal.subscribe().recv();
        tokio::pin!(listener);
        assert!(futures::poll!(&mut listener).is_pending());
        assert!(futures::poll!(&mut listener).is_pending());
        // As when the server's task is cancelled: no fire(), just gone.
        drop(signal);
        tokio::time::timeout(Duration::from_secs(5), listener)
            .await
            .expect("a dropped signal is a shutdown");
    }

    #[tokio::test]
    async fn a_listener_polled_with_a_new_waker_still_hears_the_signal() {
        let signal = ShutdownSignal::new();
        let mut listener = signal.subscribe();
        // First polled by someone else (a waker that does nothing), then by a task
        // of its own: the signal must wake that task.
        let noop = futures::task::noop_waker();
        let mut elsewhere = Context::from_waker(&noop);
        assert!(Pin::new(&mut listener).poll(&mut elsewhere).is_pending());
        let waiting = tokio::spawn(listener);
        tokio::time::sleep(Duration::from_millis(50)).await;
        signal.fire();
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the new waker is woken")
            .expect("no panic");
    }
}
