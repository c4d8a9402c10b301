//! The threads a game's start runs on (a game's start, a race's opening: the console
//! work that makes a game's state): [`FILE_WORKERS`] of them, fed by one queue, rather
//! than tokio's blocking pool.
//!
//! Why threads of their own: a game's state is made where its start runs, and stays
//! for the whole game. On the blocking pool, 10,000 players arriving in three seconds
//! started their games on some twenty threads, each with an allocator arena of its own
//! (glibc keeps up to eight a core) that kept its share of the arrival's leftovers for
//! as long as the games it held lived: about 50 bytes a session more than on two
//! threads (issue 29, row 5; docs/BENCHMARKS.md, run BP). Two threads keep two arenas.
//!
//! The queue has no bound of its own: each session waits for its one job, so it holds
//! at most one job a session. A start takes well under a millisecond unless it reads
//! a player's saved world from a slow disk; saves and reloads, which write or read
//! many files, stay on the blocking pool (`Job::run`), so that they hold up no start.

use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use tokio::sync::oneshot;

/// Threads running file work. Two: one can run while the other waits on the disk.
pub const FILE_WORKERS: usize = 2;

/// A job, with where its answer goes.
type Task = Box<dyn FnOnce() + Send>;

/// The queue to the workers, started on first use; `None` if no thread could start.
static QUEUE: OnceLock<Option<mpsc::Sender<Task>>> = OnceLock::new();

/// Run `work` on a file thread and wait for what it gives. `None` if it panicked.
/// Without file threads (none could be started) it runs on tokio's blocking pool.
pub async fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let Some(queue) = QUEUE.get_or_init(start).as_ref() else {
        return tokio::task::spawn_blocking(work).await.ok();
    };
    let (answer, answered) = oneshot::channel();
    let task: Task = Box::new(move || {
        let _ = answer.send(work());
    });
    queue.send(task).ok()?;
    answered.await.ok()
}

/// Start the workers. A worker that panics in a job goes on with the next (the job's
/// answer is dropped, which its waiter sees as `None`).
fn start() -> Option<mpsc::Sender<Task>> {
    let (sender, receiver) = mpsc::channel::<Task>();
    let receiver = Arc::new(Mutex::new(receiver));
    let mut started = 0;
    for number in 0..FILE_WORKERS {
        let receiver = Arc::clone(&receiver);
        let spawned = std::thread::Builder::new()
            .name(format!("arcade-files-{number}"))
            .spawn(move || loop {
                let next = match receiver.lock() {
                    Ok(receiver) => receiver.recv(),
                    Err(poisoned) => poisoned.into_inner().recv(),
                };
                let Ok(task) = next else { return };
                if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(task)) {
                    let text = panic
                        .downcast_ref::<&str>()
                        .map(|text| (*text).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(panic = %text, "a job on a file thread panicked");
                }
            });
        match spawned {
            Ok(_) => started += 1,
            Err(error) => tracing::error!(%error, "cannot start a file thread"),
        }
    }
    (started > 0).then_some(sender)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_runs_on_a_file_thread_and_a_panic_stops_no_worker() {
        let name = run(|| std::thread::current().name().map(String::from)).await;
        assert!(
            name.flatten()
                .is_some_and(|name| name.starts_with("arcade-files-")),
            "ran on a file thread"
        );
        // As many panics as workers: were a worker lost to each, none would be left.
        for _ in 0..FILE_WORKERS {
            let panicked: Option<u8> = run(|| panic!("a job that panics")).await;
            assert_eq!(panicked, None);
        }
        assert_eq!(run(|| 7).await, Some(7));
    }
}
