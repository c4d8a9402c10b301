//! The data directory's lock (one server per data directory), and the check that the
//! server can write in it.
//!
//! Two servers on one data directory closed each other's games and let a player hold
//! one unfinished game twice. A server takes an advisory lock on `arcade.lock` in the
//! directory when it starts and holds it until it exits (the kernel lets it go if the
//! process dies, so a crash leaves nothing to clean up); a second server finds it
//! taken and refuses to start, naming the process written in the file. Instances that
//! share a PostgreSQL database each have a data directory of their own: nothing here
//! stops them.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "arcade.lock";

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another server holds it.
    #[error(
        "--data-dir {path}: another arcade server is using it ({holder}). Stop that one \
         first, or give this one a --data-dir of its own (instances share a --db \
         postgres://..., never a data directory)."
    )]
    Taken {
        /// The directory.
        path: String,
        /// Who holds it, as the lock file says.
        holder: String,
    },
    /// The lock file cannot be opened or locked.
    #[error("--data-dir {path}: cannot lock {LOCK_FILE} in it: {source}")]
    Io {
        /// The directory.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The lock, held for as long as this value lives.
#[derive(Debug)]
pub struct DataDirLock {
    file: File,
    path: PathBuf,
}

impl DataDirLock {
    /// Take the lock on `data_dir` (which exists), writing this process's id into it.
    ///
    /// # Errors
    /// [`LockError::Taken`] when another process holds it.
    pub fn take(data_dir: &Path) -> Result<DataDirLock, LockError> {
        let path = data_dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: data_dir.display().to_string(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = crate::text::one_line(holder.trim());
                let holder = if holder.is_empty() {
                    String::from("its process id is not written yet")
                } else {
                    holder
                };
                return Err(LockError::Taken {
                    path: data_dir.display().to_string(),
                    holder,
                });
            }
            Err(TryLockError::Error(source)) => return Err(io(source)),
        }
        if let Err(error) = write_holder(&mut file) {
            // The lock holds without the note in it.
            tracing::warn!(%error, path = %path.display(), "cannot write the process id into the lock file");
        }
        Ok(DataDirLock { file, path })
    }

    /// The lock an old server handed over (SPEC section 11): `file` is its lock file,
    /// locked; the lock belongs to the open file, so this process holds it as well,
    /// and keeps it when the old one exits. Its note names this process from now.
    pub fn handed(mut file: File, data_dir: &Path) -> DataDirLock {
        let path = data_dir.join(LOCK_FILE);
        if let Err(error) = write_holder(&mut file) {
            tracing::warn!(%error, path = %path.display(), "cannot write the process id into the lock file");
        }
        DataDirLock { file, path }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The locked file itself, for a new server to take over.
    pub fn file(&self) -> &File {
        &self.file
    }
}

/// Write this process into the lock file, for the message a second server gives.
fn write_holder(file: &mut File) -> std::io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    writeln!(
        file,
        "process {} on {}",
        std::process::id(),
        hostname().unwrap_or_else(|| String::from("this machine"))
    )
}

/// The machine's name, as the kernel has it (a container's id in Docker).
fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

/// The data directory cannot be written in: why, and what to do about it.
#[derive(Debug)]
pub struct NotWritable {
    /// The error creating a file in it.
    pub source: std::io::Error,
    /// How to fix it, for the message at start.
    pub fix: String,
}

/// Whether the server can create a file in `data_dir` (tried with a temporary file,
/// removed at once).
///
/// # Errors
/// [`NotWritable`], with the fix for a read-only file system or a directory owned by
/// another user (the usual Docker mistake).
pub fn check_writable(data_dir: &Path) -> Result<(), NotWritable> {
    match tempfile::Builder::new()
        .prefix(".arcade-write-check")
        .tempfile_in(data_dir)
    {
        Ok(_removed_on_drop) => Ok(()),
        Err(source) => {
            let fix = if source.kind() == std::io::ErrorKind::ReadOnlyFilesystem {
                String::from(
                    "Its file system is mounted read-only: give a directory on a writable one \
                     (in Docker, a volume not marked :ro)",
                )
            } else {
                format!(
                    "It must be writable by the user the server runs as (uid {}). In Docker \
                     with a host folder on /data: sudo chown -R 10001 HOST_FOLDER, or use a \
                     named volume (-v arcade-data:/data)",
                    current_uid()
                )
            };
            Err(NotWritable { source, fix })
        }
    }
}

/// The user the server runs as, from `/proc/self/status` (no unsafe `getuid`).
fn current_uid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().next())
                .and_then(|uid| uid.parse().ok())
        })
        .unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_directory_is_refused_and_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::take(dir.path()).unwrap();
        let second = DataDirLock::take(dir.path()).unwrap_err();
        let text = second.to_string();
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("another arcade server is using it"), "{text}");
        drop(first);
        // Let go: the next server takes it.
        assert!(DataDirLock::take(dir.path()).is_ok());
    }
}
