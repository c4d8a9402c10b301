//! The free space of the data directory (issue 28, item 5), checked every
//! [`CHECK_EVERY`]: shown in `/metrics` (`arcade_data_dir_free_bytes`), a warning in the
//! log below `--disk-warn-below`, and below `--disk-stop-below` on the database's disk
//! the recorder stops recording (players told [`SHORT_OF_DISK`]) until there is room
//! again, rather than fill the disk to the last byte: SQLite on a full disk fails every
//! write, and the saves, the accounts and the log share it.
//!
//! [`SHORT_OF_DISK`]: crate::records::recorder::SHORT_OF_DISK

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::metrics::Metrics;
use crate::records::recorder::Recorder;

/// How often the free space is checked.
pub const CHECK_EVERY: Duration = Duration::from_secs(10);

/// Below this much free space the log warns, by default (`--disk-warn-below`).
pub const DEFAULT_WARN_BELOW: u64 = 512 * MIB;

/// Below this much free space on the database's disk games are no longer recorded,
/// by default (`--disk-stop-below`): room left for what must not fail (accounts,
/// saves, the results of games already recorded).
pub const DEFAULT_STOP_BELOW: u64 = 64 * MIB;

/// While the space stays low, the warning is repeated this often.
const REMIND_EVERY: Duration = Duration::from_secs(3600);

const MIB: u64 = 1024 * 1024;

/// What to watch and where the limits are.
#[derive(Debug, Clone)]
pub struct DiskWatch {
    /// The data directory (saves, and the SQLite database by default).
    pub data_dir: PathBuf,
    /// The folder of the SQLite database, whose disk recording needs; `None` when the
    /// database is elsewhere (PostgreSQL, in memory): then only the warning.
    pub database_dir: Option<PathBuf>,
    /// Warn below this many free bytes.
    pub warn_below: u64,
    /// Stop recording below this many free bytes on the database's disk.
    pub stop_below: u64,
}

/// Where the free space stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Above the warning.
    Plenty,
    /// Below the warning: logged.
    Low,
    /// Below the stop on the database's disk: not recording.
    Short,
}

/// The bytes a user other than root may still write on `dir`'s file system.
///
/// # Errors
/// The file system cannot be asked (the folder is gone).
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// The free space seen by one check.
#[derive(Debug, Clone, Copy)]
struct Seen {
    data_dir: u64,
    database: Option<u64>,
}

impl DiskWatch {
    fn look(&self) -> std::io::Result<Seen> {
        let data_dir = free_bytes(&self.data_dir)?;
        let database = match &self.database_dir {
            Some(dir) if *dir == self.data_dir => Some(data_dir),
            Some(dir) => Some(free_bytes(dir)?),
            None => None,
        };
        Ok(Seen { data_dir, database })
    }

    fn level(&self, seen: Seen) -> Level {
        if seen.database.is_some_and(|free| free < self.stop_below) {
            Level::Short
        } else if seen.data_dir < self.warn_below
            || seen.database.is_some_and(|free| free < self.warn_below)
        {
            Level::Low
        } else {
            Level::Plenty
        }
    }

    /// Check once now, tell `recorder` and `metrics`, and go on checking every
    /// [`CHECK_EVERY`] in the background: the first check is done before this returns,
    /// so that a server that starts on a full disk records nothing from its first game.
    pub fn start(self, recorder: Recorder, metrics: Arc<Metrics>) -> tokio::task::JoinHandle<()> {
        let mut state = State::default();
        match self.look() {
            Ok(seen) => state.apply(&self, seen, &recorder, &metrics),
            Err(error) => state.failed(&self, &error),
        }
        let watch = Arc::new(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(CHECK_EVERY).await;
                let looking = Arc::clone(&watch);
                // A file system that does not answer (a network mount) must not hold a
                // worker of the runtime.
                match tokio::task::spawn_blocking(move || looking.look()).await {
                    Ok(Ok(seen)) => state.apply(&watch, seen, &recorder, &metrics),
                    Ok(Err(error)) => state.failed(&watch, &error),
                    Err(_) => {}
                }
            }
        })
    }
}

/// What the watcher remembers between checks.
#[derive(Debug)]
struct State {
    level: Level,
    /// When the level was last logged.
    logged: Option<Instant>,
    /// A check failed and that was logged.
    failing: bool,
}

impl Default for State {
    fn default() -> State {
        State {
            level: Level::Plenty,
            logged: None,
            failing: false,
        }
    }
}

impl State {
    fn apply(&mut self, watch: &DiskWatch, seen: Seen, recorder: &Recorder, metrics: &Metrics) {
        self.failing = false;
        metrics
            .data_dir_free_bytes
            .set(i64::try_from(seen.data_dir).unwrap_or(i64::MAX));
        let level = watch.level(seen);
        recorder.set_low_disk(level == Level::Short);
        let remind = self.logged.is_some_and(|at| at.elapsed() >= REMIND_EVERY);
        if level == self.level && !remind {
            return;
        }
        let data_dir = watch.data_dir.display().to_string();
        let free_mib = seen.data_dir / MIB;
        let database_mib = seen.database.map(|free| free / MIB);
        match level {
            Level::Short => tracing::error!(
                data_dir,
                free_mib,
                database_mib,
                stop_below_mib = watch.stop_below / MIB,
                "the database's disk is nearly full (below --disk-stop-below): games are no longer recorded until there is room"
            ),
            Level::Low => tracing::warn!(
                data_dir,
                free_mib,
                database_mib,
                warn_below_mib = watch.warn_below / MIB,
                "the data directory's disk is getting full (below --disk-warn-below): free some space or lower --keep-recordings"
            ),
            Level::Plenty => tracing::info!(
                data_dir,
                free_mib,
                "the data directory's disk has room again: games are recorded"
            ),
        }
        self.logged = (level != Level::Plenty).then(Instant::now);
        self.level = level;
    }

    fn failed(&mut self, watch: &DiskWatch, error: &std::io::Error) {
        if !self.failing {
            tracing::warn!(data_dir = %watch.data_dir.display(), %error, "cannot read the data directory's free space");
            self.failing = true;
        }
    }
}

/// A size as `--disk-warn-below` takes it: a number of bytes with an optional unit, K,
/// M, G or T (binary: 1K is 1024 bytes; KiB, MB, MiB... read the same), such as 512M.
///
/// # Errors
/// What is wrong with the text, for clap to show.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: u64 = number
        .parse()
        .map_err(|_| String::from("give a size such as 512M, 2G or 0"))?;
    let unit = unit.trim().to_ascii_uppercase();
    let shift = match unit.trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("unknown unit {unit:?}: use K, M, G or T")),
    };
    number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| String::from("too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(warn: u64, stop: u64) -> DiskWatch {
        DiskWatch {
            data_dir: PathBuf::from("/data"),
            database_dir: Some(PathBuf::from("/data")),
            warn_below: warn,
            stop_below: stop,
        }
    }

    #[test]
    fn levels_follow_the_thresholds() {
        let watch = watch(100, 10);
        let seen = |free| Seen {
            data_dir: free,
            database: Some(free),
        };
        assert_eq!(watch.level(seen(500)), Level::Plenty);
        assert_eq!(watch.level(seen(99)), Level::Low);
        assert_eq!(watch.level(seen(9)), Level::Short);
        // A database elsewhere: the data directory only warns.
        let elsewhere = Seen {
            data_dir: 9,
            database: None,
        };
        assert_eq!(watch.level(elsewhere), Level::Low);
    }

    #[test]
    fn free_space_of_a_real_folder_is_read() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_bytes(dir.path()).unwrap() > 0);
        assert!(free_bytes(&dir.path().join("gone")).is_err());
    }

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("512M"), Ok(512 * MIB));
        assert_eq!(parse_size("512MiB"), Ok(512 * MIB));
        assert_eq!(parse_size("2gb"), Ok(2048 * MIB));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
