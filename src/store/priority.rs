//! SQLite's threads at a lower CPU priority than the sessions (Linux). sqlx runs each
//! SQLite connection on a thread of its own; where that thread shares a core with the
//! runtime's worker, the recorder's transaction of each second kept the worker waiting
//! for the CPU for up to 4 ms, and every reply due then waited with it (perf sched
//! under row 3's load, docs/BENCHMARKS.md, issue 29: 1.2 ms at most with the threads
//! at nice 10, 0.6 ms at 19). At [`NICE`] below the server the kernel lets the worker
//! in soon; the database still has whatever CPU the sessions leave, and about a tenth
//! of a shared core when both want it, which keeps the writer's second well within its
//! queue's bound.

/// How much lower than the server's own priority SQLite's threads run, in nice
/// values (the server's is usually 0; 19 is the lowest there is).
pub const NICE: i32 = 10;

/// sqlx's name for its SQLite threads (`sqlx-sqlite-worker-N`) as the kernel keeps it:
/// the first 15 bytes.
const THREAD_NAME: &str = "sqlx-sqlite-wor";

/// Give every SQLite thread of this process the server's nice value plus [`NICE`]
/// (those already lowered are set again: it is idempotent). Called as each connection
/// is made, after its thread starts. Failing is not an error: the server only loses a
/// little latency.
#[cfg(target_os = "linux")]
pub(super) fn lower_sqlite_threads() {
    let own = rustix::process::getpriority_process(None).unwrap_or(0);
    let nice = own.saturating_add(NICE).min(19);
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    for task in tasks.flatten() {
        let Ok(comm) = std::fs::read_to_string(task.path().join("comm")) else {
            continue;
        };
        if !comm.starts_with(THREAD_NAME) {
            continue;
        }
        let Some(thread) = task
            .file_name()
            .to_str()
            .and_then(|tid| tid.parse().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        if let Err(error) = rustix::process::setpriority_process(Some(thread), nice) {
            tracing::debug!(%error, "cannot lower a database thread's CPU priority");
        }
    }
}

/// Elsewhere the threads keep the default priority.
#[cfg(not(target_os = "linux"))]
pub(super) fn lower_sqlite_threads() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::store::{DbUrl, Store};

    /// Each SQLite thread of this process and its nice value, from /proc.
    fn sqlite_threads() -> Vec<(String, i32)> {
        let mut found = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if !comm.starts_with(THREAD_NAME) {
                continue;
            }
            let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
            // Fields after the name in parentheses start at the third; nice is the 19th.
            let nice = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(16))
                .and_then(|nice| nice.parse().ok());
            if let Some(nice) = nice {
                found.push((task.file_name().to_string_lossy().into_owned(), nice));
            }
        }
        found
    }

    #[tokio::test]
    async fn a_stores_sqlite_threads_run_below_the_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let _store = Store::open(&DbUrl::Sqlite(dir.path().join("arcade.db")))
            .await
            .unwrap();
        let threads = sqlite_threads();
        // Other tests' stores may be making threads of their own right now: this
        // store's are lowered once it is open, so at least one is.
        let own = rustix::process::getpriority_process(None).unwrap();
        let lowered = own.saturating_add(NICE).min(19);
        assert!(
            threads.iter().any(|(_, nice)| *nice == lowered),
            "SQLite threads and their nice values: {threads:?}"
        );
    }
}
