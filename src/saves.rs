//! Saved games on disk: `<data-dir>/<game>/<NAME>.txt`, the same layout as `levels/`,
//! so a data directory can also be given to `--levels`.
//!
//! Writes are atomic (temporary file, flush, sync, rename) so that a crash or a full
//! disk never leaves half a file where a save used to be.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::lobby::GameKind;

/// The most characters a save name may have.
pub const MAX_NAME: usize = 32;

/// Whether `name` is a valid save name (see [`SaveName`]): 1 to 32 of ASCII letters, digits, `-`, `_`.
/// Nothing else gets near a path, so a name can never leave the data directory.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A name `save NAME` accepts and `play GAME NAME` looks up: 1 to 32 ASCII letters,
/// digits, `-` or `_`, kept in lower case so that it matches the level catalog's
/// case-insensitive names on any file system. Nothing else can come near a path, so a
/// save never leaves the data directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SaveName(String);

/// A name that is not a valid [`SaveName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Cannot save as {0:?}: use 1 to {MAX_NAME} letters, digits, '-' or '_'.")]
pub struct BadSaveName(pub String);

impl SaveName {
    /// Check `name` against the save alphabet.
    ///
    /// # Errors
    /// [`BadSaveName`] for an empty name, one longer than 32, or any other character.
    pub fn parse(name: &str) -> Result<SaveName, BadSaveName> {
        if is_valid_name(name) {
            Ok(SaveName(name.to_ascii_lowercase()))
        } else {
            Err(BadSaveName(name.to_string()))
        }
    }

    /// The name, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name, in lower case, as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Where a save of `kind` called `name` lives under `data_dir`.
pub fn path(data_dir: &Path, kind: GameKind, name: &str) -> PathBuf {
    data_dir.join(kind.name()).join(format!("{name}.txt"))
}

/// Write `contents` to `path` atomically, creating its directory if needed.
///
/// # Errors
/// The directory cannot be created or written, or the disk is full.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a save needs a file name"))?;
    // Unique per process and per call: two sessions saving the same name at once must
    // not write into one temporary file, or one could rename the other's half-written
    // file into place.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(file_name);
    temporary_name.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let temporary = dir.join(temporary_name);
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(contents.as_bytes())?;
        file.flush()?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Save a game and say how it went, as the line to show the player.
pub fn save(data_dir: &Path, kind: GameKind, name: &str, contents: &str) -> String {
    let name = match SaveName::parse(name) {
        Ok(name) => name,
        Err(error) => return format!("{error}\n"),
    };
    let name = name.as_str();
    match write_atomically(&path(data_dir, kind, name), contents) {
        Ok(()) => format!("Saved as {name}.\n"),
        Err(error) => {
            tracing::warn!(%error, name, "save failed");
            format!("Could not save {name}: {error}.\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_valid_name("cave-1_B"));
        assert!(is_valid_name(&"x".repeat(32)));
        for bad in ["", "../etc", "a b", "a.txt", "é", &"x".repeat(33)] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn writes_atomically_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let message = save(dir.path(), GameKind::Sokoban, "one", "first\n");
        assert_eq!(message, "Saved as one.\n");
        let file = path(dir.path(), GameKind::Sokoban, "one");
        assert_eq!(fs::read_to_string(&file).unwrap(), "first\n");
        save(dir.path(), GameKind::Sokoban, "one", "second\n");
        assert_eq!(fs::read_to_string(&file).unwrap(), "second\n");
        let leftovers: Vec<_> = fs::read_dir(file.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        assert!(save(dir.path(), GameKind::Sokoban, "../x", "").starts_with("Cannot save"));
    }

    #[test]
    fn concurrent_saves_of_one_name_never_mix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("same.txt");
        let contents: Vec<String> = (0..8).map(|n| format!("{n}\n").repeat(20_000)).collect();
        std::thread::scope(|scope| {
            for text in &contents {
                let file = &file;
                scope.spawn(move || {
                    for _ in 0..5 {
                        write_atomically(file, text).unwrap();
                    }
                });
            }
        });
        let last = fs::read_to_string(&file).unwrap();
        assert!(contents.contains(&last), "a save mixed with another");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "temporary files left behind");
    }

    #[test]
    fn reports_an_unwritable_directory() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "not a directory").unwrap();
        let message = save(&blocker, GameKind::Sokoban, "x", "state");
        assert!(message.starts_with("Could not save x:"), "{message}");
    }
}
