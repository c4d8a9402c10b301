//! Password hashing with a bound: every Argon2id hash and check of the server runs on
//! [`HASH_WORKERS`] threads of its own, fed by a queue of at most [`HASH_QUEUE`] waiting
//! jobs; beyond it a login is refused with [`Busy`] at once.
//!
//! Why: an Argon2id hash takes 19 MiB and tens of milliseconds on purpose. Run on
//! tokio's blocking pool, 250 parallel wrong passwords made 250 threads each holding
//! its 19 MiB (9.6 GB, kept by the allocator's per-thread arenas afterwards) and took
//! every core from the players. One worker thread reuses one arena, so the memory is
//! bounded by the workers and comes back to the same place; the queue bounds the
//! wait; and the rest of the machine keeps its cores for the games.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use prometheus::IntCounter;
use tokio::sync::oneshot;

use super::accounts::{hash_password, verify_password, HashError};

/// Threads that hash: one leaves the other cores to the games, and a class logging in
/// at once (30 hashes of ~25 ms) waits under a second.
pub const HASH_WORKERS: usize = 1;

/// Hashes waiting for a worker at most; beyond it a login is refused at once.
pub const HASH_QUEUE: usize = 32;

/// What a player is told when the queue is full.
pub const BUSY: &str = "Too many logins at once, try again in a moment.";

/// The queue is full, or the workers are gone (the server is stopping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{BUSY}")]
pub struct Busy;

/// One piece of work for a worker.
enum Job {
    Hash {
        password: String,
        reply: oneshot::Sender<Result<String, HashError>>,
    },
    Verify {
        password: String,
        hash: String,
        reply: oneshot::Sender<bool>,
    },
}

/// The hashing workers' queue: a cheap handle, cloned into each service.
#[derive(Clone)]
pub struct Hasher {
    queue: mpsc::SyncSender<Job>,
}

/// A counter of the passwords checked, for a hasher whose count nobody reads.
fn uncounted() -> IntCounter {
    IntCounter::new("password_checks", "Passwords checked").expect("a valid metric name and help")
}

impl std::fmt::Debug for Hasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hasher").finish_non_exhaustive()
    }
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher::new(HASH_WORKERS, HASH_QUEUE, uncounted())
    }
}

impl Hasher {
    /// `workers` threads (at least one) behind a queue of `queue` jobs, each password
    /// they check counted in `checks` (`/metrics`). The threads end when the last
    /// handle is dropped.
    pub fn new(workers: usize, queue: usize, checks: IntCounter) -> Hasher {
        let (sender, receiver) = mpsc::sync_channel::<Job>(queue);
        let receiver = Arc::new(Mutex::new(receiver));
        for n in 0..workers.max(1) {
            let receiver = Arc::clone(&receiver);
            let checks = checks.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("arcade-hash-{n}"))
                .spawn(move || work(&receiver, &checks));
            if let Err(error) = spawned {
                tracing::error!(%error, "a password hashing thread could not start");
            }
        }
        Hasher { queue: sender }
    }

    /// The Argon2id hash of `password`.
    ///
    /// # Errors
    /// [`Busy`] when too many hashes wait already; inside, [`HashError`].
    pub async fn hash(&self, password: String) -> Result<Result<String, HashError>, Busy> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .try_send(Job::Hash { password, reply })
            .map_err(|_| Busy)?;
        answer.await.map_err(|_| Busy)
    }

    /// Whether `password` matches `hash`; `None` for the hash checks a password against
    /// a hash made at start, so that an unknown name costs what a wrong password costs.
    ///
    /// # Errors
    /// [`Busy`] when too many hashes wait already.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, Busy> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| dummy_hash().to_string());
        let (reply, answer) = oneshot::channel();
        self.queue
            .try_send(Job::Verify {
                password,
                hash,
                reply,
            })
            .map_err(|_| Busy)?;
        let matches = answer.await.map_err(|_| Busy)?;
        Ok(known && matches)
    }
}

/// A worker: takes jobs until every handle is gone.
fn work(receiver: &Mutex<mpsc::Receiver<Job>>, checks: &IntCounter) {
    loop {
        // The lock is held while waiting: the other workers wait for it instead of for
        // the channel, which is the same.
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        match job {
            Job::Hash { password, reply } => {
                let _ = reply.send(hash_password(&password));
            }
            Job::Verify {
                password,
                hash,
                reply,
            } => {
                checks.inc();
                let _ = reply.send(verify_password(&password, &hash));
            }
        }
    }
}

/// A hash of a password nobody knows, made once, for unknown names.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_password("not anybody's password: an unknown name's stand-in")
            // Never fails short of the system's random generator failing; a string
            // that is no hash still costs nothing and matches nothing.
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_and_checks_on_its_own_thread() {
        let hasher = Hasher::default();
        let hash = hasher.hash(String::from("secret1")).await.unwrap().unwrap();
        assert!(hasher
            .verify(String::from("secret1"), Some(hash.clone()))
            .await
            .unwrap());
        assert!(!hasher
            .verify(String::from("secret2"), Some(hash))
            .await
            .unwrap());
        // An unknown name: checked against the stand-in, never matching, and counted.
        let checks = uncounted();
        let counted = Hasher::new(1, 2, checks.clone());
        assert!(!counted.verify(String::from("secret1"), None).await.unwrap());
        assert_eq!(checks.get(), 1);
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let hasher = Hasher::new(1, 2, uncounted());
        let hash = hash_password("secret1").unwrap();
        let attempts = (0..20).map(|_| hasher.verify(String::from("x"), Some(hash.clone())));
        let answers = futures_util::future::join_all(attempts).await;
        let refused = answers.iter().filter(|answer| answer.is_err()).count();
        // One may be taken by the worker before the queue fills: 20 - (2 + 1) refused
        // at least.
        assert!(refused >= 17, "{answers:?}");
        assert!(answers.iter().any(|answer| answer == &Ok(false)));
    }
}
