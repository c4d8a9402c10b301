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

/// How old a temporary file must be before a starting server removes it: a save in
/// flight takes milliseconds, and another server sharing the data directory may be
/// writing one right now.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// How many saves one game may keep in a data directory. A save is a few hundred
/// bytes, so this is a few megabytes per game; it keeps a flood of saves from
/// filling the disk or making every listing slow.
pub const MAX_SAVES_PER_GAME: usize = 10_000;

/// How many new saves one session may make (saving over its own is always allowed).
pub const MAX_NEW_SAVES_PER_SESSION: usize = 100;

/// What a save may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// The saver may still make a new save (not only replace one).
    pub may_create: bool,
    /// How many saves the game's folder may hold.
    pub max_saves: usize,
}

/// How a save went: the line for the player, and whether a new file was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// What to tell the player.
    pub message: String,
    /// A save of a new name was written (it counts against the session's quota).
    pub created: bool,
}

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

/// Save a game within `quota` and say how it went. Saving over an existing save is
/// always allowed; a new one only while the quota allows it.
pub fn save(data_dir: &Path, game: &str, name: &SaveName, contents: &str, quota: Quota) -> Saved {
    let file = path(data_dir, game, name);
    let created = !file.exists();
    if created {
        if !quota.may_create {
            return Saved {
                message: format!(
                    "Cannot save as {name}: one session may make at most {MAX_NEW_SAVES_PER_SESSION} new saves;\nsave over one of yours instead.\n"
                ),
                created: false,
            };
        }
        if count(data_dir, game) >= quota.max_saves {
            tracing::warn!(
                game,
                limit = quota.max_saves,
                "save refused: the data directory is full"
            );
            return Saved {
                message: format!(
                    "Cannot save as {name}: the server keeps at most {} saves of this game;\nsave over an existing one, or ask the operator to clear old ones.\n",
                    quota.max_saves
                ),
                created: false,
            };
        }
    }
    match write_atomically(&file, contents) {
        Ok(()) => Saved {
            message: format!("Saved as {name}.\n"),
            created,
        },
        Err(error) => {
            tracing::warn!(%error, %name, "save failed");
            Saved {
                message: format!("Could not save {name}: {error}.\n"),
                created: false,
            }
        }
    }
}

/// How many files the folder of `game` holds.
fn count(data_dir: &Path, game: &str) -> usize {
    fs::read_dir(data_dir.join(game)).map_or(0, |entries| entries.count())
}

/// The folder, under the data directory, of a registered player's saves (by the
/// name's lower-case key): theirs alone, for good.
pub fn player_folder(key: &str) -> String {
    format!("{PLAYERS}/{key}")
}

/// The folder, under the data directory, of the saves of a session without a
/// registered name (by session number): removed when the session ends and at start.
pub fn session_folder(session: &str) -> String {
    format!("{SESSIONS}/{session}")
}

const PLAYERS: &str = "players";
const SESSIONS: &str = "sessions";

/// At server start: remove the saves of an earlier run's sessions (gone with those
/// sessions) and what interrupted saves left, in the data directory's own game
/// folders and in every player's. Returns how many temporary files were removed.
pub fn tidy_at_start(data_dir: &Path) -> usize {
    let sessions = data_dir.join(SESSIONS);
    if sessions.is_dir() {
        if let Err(error) = fs::remove_dir_all(&sessions) {
            tracing::warn!(%error, folder = %sessions.display(), "cannot remove the saves of earlier sessions");
        }
    }
    let mut removed = remove_stale_temporaries(data_dir);
    if let Ok(players) = fs::read_dir(data_dir.join(PLAYERS)) {
        for player in players.flatten() {
            removed += remove_stale_temporaries(&player.path());
        }
    }
    removed
}

/// Remove what saves interrupted by a crash left behind: temporary files older than a
/// minute in the game folders of `data_dir` (this version's, and the
/// `.NAME.txt.PID.N.tmp` of earlier ones). Returns how many were removed.
pub fn remove_stale_temporaries(data_dir: &Path) -> usize {
    let Ok(folders) = fs::read_dir(data_dir) else {
        return 0;
    };
    let mut removed = 0;
    for folder in folders.flatten().map(|entry| entry.path()) {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !(name.starts_with('.') && name.ends_with(".tmp")) {
                continue;
            }
            let stale = entry
                .metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|metadata| metadata.modified().ok())
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age >= STALE_AFTER);
            if stale && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
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

    const ANY: Quota = Quota {
        may_create: true,
        max_saves: MAX_SAVES_PER_GAME,
    };

    fn save(data_dir: &Path, game: &str, name: &SaveName, contents: &str) -> String {
        super::save(data_dir, game, name, contents, ANY).message
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

    #[test]
    fn the_quota_refuses_new_saves_but_never_an_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let full = Quota {
            may_create: true,
            max_saves: 2,
        };
        assert!(super::save(dir.path(), "wumpus", &name("a"), "1", full).created);
        assert!(super::save(dir.path(), "wumpus", &name("b"), "2", full).created);
        let refused = super::save(dir.path(), "wumpus", &name("c"), "3", full);
        assert_eq!(refused.message, "Cannot save as c: the server keeps at most 2 saves of this game;\nsave over an existing one, or ask the operator to clear old ones.\n");
        assert!(!refused.created);
        assert!(!path(dir.path(), "wumpus", &name("c")).exists());
        let over = super::save(dir.path(), "wumpus", &name("a"), "4", full);
        assert_eq!(
            (over.message.as_str(), over.created),
            ("Saved as a.\n", false)
        );
        let spent = Quota {
            may_create: false,
            max_saves: 100,
        };
        let refused = super::save(dir.path(), "wumpus", &name("d"), "5", spent);
        assert!(
            refused
                .message
                .starts_with("Cannot save as d: one session may make at most 100 new saves"),
            "{}",
            refused.message
        );
        assert!(super::save(dir.path(), "wumpus", &name("b"), "6", spent)
            .message
            .starts_with("Saved"));
    }

    #[test]
    fn stale_temporaries_are_removed_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("wumpus");
        fs::create_dir_all(&folder).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for stale in [".x.txt.123.4.tmp", ".arcade-save-abc.tmp"] {
            let file = fs::File::create(folder.join(stale)).unwrap();
            file.set_modified(old).unwrap();
        }
        fs::write(folder.join(".arcade-save-fresh.tmp"), "in flight").unwrap();
        fs::write(folder.join("kept.txt"), "a save").unwrap();
        let old_save = fs::File::create(folder.join("old.txt")).unwrap();
        old_save.set_modified(old).unwrap();
        assert_eq!(remove_stale_temporaries(dir.path()), 2);
        let mut left: Vec<String> = fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".arcade-save-fresh.tmp", "kept.txt", "old.txt"]);
        assert_eq!(remove_stale_temporaries(&dir.path().join("missing")), 0);
    }
}
