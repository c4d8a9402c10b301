//! The solver's threads: every search for a player (a hint, `/solve`, a corral proved
//! dead) runs on [`SOLVER_WORKERS`] threads of its own, fed by a queue of at most
//! [`SOLVER_QUEUE`] waiting searches; beyond it a request is refused at once.
//!
//! Why threads of its own, as for password hashes: a search is CPU and memory for up to
//! its budget. On tokio's blocking pool a class asking for hints at once would get a
//! thread each (and an allocator arena each that keeps the memory); here the memory is
//! bounded by the workers' budgets, the wait by the queue, and the runtime's threads
//! stay with the players. Each search gets a stop flag that is raised when whoever
//! asked stops waiting (the session closed, the server stops).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Threads that search: one leaves the other core to the games on a 2-core machine.
pub const SOLVER_WORKERS: usize = 1;

/// Searches waiting for a worker at most; beyond it a request is refused at once.
pub const SOLVER_QUEUE: usize = 16;

/// The queue is full, or the workers are gone (the server is stopping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the solver is busy")]
pub struct Busy;

/// A search, given its stop flag.
type Work = Box<dyn FnOnce(&AtomicBool) + Send>;

/// The workers' queue: a cheap handle.
#[derive(Clone)]
pub struct Pool {
    queue: mpsc::SyncSender<(Work, Arc<AtomicBool>)>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

/// Raises the stop flag when the asker stops waiting.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Pool {
    /// `workers` threads (at least one) behind a queue of `queue` searches. The threads
    /// end when the last handle is dropped.
    pub fn new(workers: usize, queue: usize) -> Pool {
        let (sender, receiver) = mpsc::sync_channel::<(Work, Arc<AtomicBool>)>(queue);
        let receiver = Arc::new(Mutex::new(receiver));
        for n in 0..workers.max(1) {
            let receiver = Arc::clone(&receiver);
            let spawned = std::thread::Builder::new()
                .name(format!("arcade-solver-{n}"))
                .spawn(move || work(&receiver));
            if let Err(error) = spawned {
                tracing::error!(%error, "a solver thread could not start");
            }
        }
        Pool { queue: sender }
    }

    /// Queue `work` without waiting for it (an analysis a later request will find in
    /// its cache); false when the queue is full.
    pub fn submit(&self, work: impl FnOnce() + Send + 'static) -> bool {
        let work: Work = Box::new(move |_: &AtomicBool| work());
        self.queue
            .try_send((work, Arc::new(AtomicBool::new(false))))
            .is_ok()
    }

    /// Run `search` on a worker and wait for what it gives. Dropping the returned
    /// future raises the search's stop flag.
    ///
    /// # Errors
    /// [`Busy`] when too many searches wait already, or the workers are gone.
    pub async fn run<T: Send + 'static>(
        &self,
        search: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Result<T, Busy> {
        let (reply, answer) = oneshot::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let work: Work = Box::new(move |stop: &AtomicBool| {
            // A search whose asker has gone is not started at all.
            if !stop.load(Ordering::Relaxed) {
                let _ = reply.send(search(stop));
            }
        });
        self.queue
            .try_send((work, Arc::clone(&stop)))
            .map_err(|_| Busy)?;
        let _stop = StopOnDrop(stop);
        answer.await.map_err(|_| Busy)
    }
}

/// A worker: takes searches until every handle is gone.
fn work(receiver: &Mutex<mpsc::Receiver<(Work, Arc<AtomicBool>)>>) {
    loop {
        // The lock is held while waiting: the other workers wait for it instead of for
        // the channel, which is the same.
        let next = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok((search, stop)) = next else { return };
        search(&stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[tokio::test]
    async fn runs_on_its_own_thread_and_gives_the_answer() {
        let pool = Pool::new(1, 2);
        let name = pool
            .run(|_| std::thread::current().name().map(str::to_owned))
            .await
            .unwrap();
        assert_eq!(name.as_deref(), Some("arcade-solver-0"));
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let pool = Pool::new(1, 2);
        // Each search waits for its stop flag (or a second): the worker stays busy.
        let searches = (0..10).map(|_| {
            pool.run(|stop: &AtomicBool| {
                let until = Instant::now() + Duration::from_secs(1);
                while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        });
        let answers = futures_util::future::join_all(searches).await;
        let refused = answers.iter().filter(|answer| answer.is_err()).count();
        // One taken by the worker, two waiting: seven refused at least.
        assert!(refused >= 7, "{answers:?}");
        assert!(answers.iter().any(Result::is_ok));
    }

    #[tokio::test]
    async fn an_asker_who_stops_waiting_stops_the_search() {
        let pool = Pool::new(1, 2);
        let runner = pool.clone();
        let (started, ready) = std::sync::mpsc::channel();
        let (ended, stopped) = std::sync::mpsc::channel();
        let search = async move {
            runner
                .run(move |stop: &AtomicBool| {
                    let _ = started.send(());
                    let until = Instant::now() + Duration::from_secs(30);
                    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let _ = ended.send(stop.load(Ordering::Relaxed));
                })
                .await
        };
        let waiting = tokio::spawn(search);
        tokio::task::spawn_blocking(move || ready.recv().unwrap())
            .await
            .unwrap();
        waiting.abort();
        let was_stopped = tokio::task::spawn_blocking(move || stopped.recv().unwrap())
            .await
            .unwrap();
        assert!(was_stopped, "the search ran to its end");
    }
}
