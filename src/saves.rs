//! Saved games on disk: `<data-dir>/<game>/<NAME>.txt`, the same layout as `levels/`,
//! so a data directory can also be given to `--levels`.
//!
//! Writes are atomic and durable: a temporary file in the same directory, written and
//! synced, renamed over the old save (`tempfile`'s `persist`), then the directory
//! itself synced so that the rename survives a power cut. A crash or a full disk never
//! leaves half a file where a save used to be. Everything here blocks: callers on the
//! runtime run it with `spawn_blocking`.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::games::SaveName;

/// What a temporary save file's name starts with: a leftover of a crash during a
/// save is recognised by it.
pub const TEMPORARY_PREFIX: &str = ".arcade-save-";

/// Where a save of the game `game` called `name` lives under `data_dir`.
pub fn path(data_dir: &Path, game: &str, name: &SaveName) -> PathBuf {
    data_dir.join(game).join(format!("{name}.txt"))
}

/// Write `contents` to `path` atomically and durably, creating its directory if
/// needed.
///
/// # Errors
/// The directory cannot be created or written, or the disk is full.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    // A fresh, uniquely named file per call: two sessions saving the same name at once
    // never write into one temporary file.
    let mut file = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .suffix(".tmp")
        .tempfile_in(dir)?;
    file.write_all(contents.as_bytes())?;
    file.as_file().sync_all()?;
    // On failure the temporary file is removed when the error drops it.
    file.persist(path).map_err(|error| error.error)?;
    sync_dir(dir)
}

/// Make a rename in `dir` durable.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Save a game and say how it went, as the line to show the player.
pub fn save(data_dir: &Path, game: &str, name: &SaveName, contents: &str) -> String {
    match write_atomically(&path(data_dir, game, name), contents) {
        Ok(()) => format!("Saved as {name}.\n"),
        Err(error) => {
            tracing::warn!(%error, %name, "save failed");
            format!("Could not save {name}: {error}.\n")
        }
    }
}

/// The text of the save `name` of `game`; `None` when there is no such save.
///
/// # Errors
/// The file exists but cannot be read.
pub fn read(data_dir: &Path, game: &str, name: &SaveName) -> io::Result<Option<String>> {
    match fs::read_to_string(path(data_dir, game, name)) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// The names of the saves of `game`, sorted: the `.txt` files of its folder whose
/// names are valid save names.
pub fn names(data_dir: &Path, game: &str) -> Vec<SaveName> {
    let Ok(entries) = fs::read_dir(data_dir.join(game)) else {
        return Vec::new();
    };
    let mut names: Vec<SaveName> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            if !path.extension()?.eq_ignore_ascii_case("txt") {
                return None;
            }
            SaveName::parse(path.file_stem()?.to_str()?).ok()
        })
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> SaveName {
        SaveName::parse(text).unwrap()
    }

    #[test]
    fn writes_atomically_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let message = save(dir.path(), "sokoban", &name("one"), "first\n");
        assert_eq!(message, "Saved as one.\n");
        let file = path(dir.path(), "sokoban", &name("one"));
        assert_eq!(fs::read_to_string(&file).unwrap(), "first\n");
        save(dir.path(), "sokoban", &name("one"), "second\n");
        assert_eq!(fs::read_to_string(&file).unwrap(), "second\n");
        let leftovers: Vec<_> = fs::read_dir(file.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn reads_and_lists_saves() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path(), "wumpus", &name("none")).unwrap(), None);
        assert_eq!(names(dir.path(), "wumpus"), Vec::new());
        save(dir.path(), "wumpus", &name("b"), "two\n");
        save(dir.path(), "wumpus", &name("A"), "one\n");
        fs::write(dir.path().join("wumpus/not a name.txt"), "x").unwrap();
        fs::write(dir.path().join("wumpus/notes.md"), "x").unwrap();
        assert_eq!(
            read(dir.path(), "wumpus", &name("a")).unwrap().as_deref(),
            Some("one\n")
        );
        assert_eq!(names(dir.path(), "wumpus"), vec![name("a"), name("b")]);
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
        let message = save(&blocker, "sokoban", &name("x"), "state");
        assert!(message.starts_with("Could not save x:"), "{message}");
    }
}
