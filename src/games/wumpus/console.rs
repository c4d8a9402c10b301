//! `arcade play wumpus FILE [--save OUT]`: one game on a reader and a writer, like the
//! seed's own program on stdin and stdout.
//!
//! This is the only part of the wumpus module that touches files, and it is kept out
//! of the game itself: the [`Wumpus`] state machine stays pure and the network session
//! drives the very same one.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use super::{Cave, Wumpus};
use crate::games::{Game, Memory, Status, PROMPT};

/// Play one game in `cave`: lines from `input`, replies to `output` with `\n` line
/// endings. When the game ends (pit, wumpus, climb, `quit`) or `input` ends, the final
/// state is printed and, if `out` is given, written there atomically. `save NAME`
/// writes `NAME.txt` into `save_dir` when one is given; without one it says that
/// saving is not available.
///
/// # Errors
/// Reading `input` or writing `output` fails, or `out` cannot be written. A failed
/// `save NAME` is reported to the player and play goes on.
pub fn play_stdio(
    cave: Cave,
    mut input: impl BufRead,
    mut output: impl Write,
    out: Option<&Path>,
    save_dir: Option<&Path>,
) -> io::Result<()> {
    let mut game = Wumpus::new(cave);
    let mut memory = Memory::default();
    let mut reply = game.start(&mut memory);
    let mut line = Vec::new();
    loop {
        output.write_all(reply.text.as_bytes())?;
        match reply.status {
            Status::Playing => {}
            Status::Ended => break,
            Status::Save { name, state } => {
                let outcome = match save_dir {
                    Some(dir) => match save_atomically(dir, &name, &state) {
                        Ok(_) => format!("Saved as {name}.\n"),
                        Err(error) => format!("Could not save {name}: {error}.\n"),
                    },
                    None => String::from("Saving is not available here: use --save OUT.\n"),
                };
                output.write_all(outcome.as_bytes())?;
                output.write_all(PROMPT.as_bytes())?;
            }
        }
        output.flush()?;
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.write_all(game.end_of_input().as_bytes())?;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        reply = game.handle(text.trim(), &mut memory);
    }
    output.flush()?;
    if let Some(out) = out {
        write_atomically(out, &game.cave().to_string())?;
    }
    Ok(())
}

/// Write `contents` to `dir/NAME.txt` atomically (see [`write_atomically`]), creating
/// `dir` if needed. `name` must already be a checked save name.
///
/// # Errors
/// The directory cannot be created or written, or the disk is full.
pub fn save_atomically(dir: &Path, name: &str, contents: &str) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.txt"));
    write_atomically(&path, contents)?;
    Ok(path)
}

/// Write `contents` to `path` so that a crash never leaves half a file there: write a
/// temporary file beside it, flush and sync it, then rename it over `path`.
///
/// # Errors
/// Creating, writing, syncing or renaming the temporary file fails; the temporary file
/// is then removed.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);

    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name to write"))?;
    // Unique per process and per call, so that two saves of one name never share it.
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(file_name);
    temporary_name.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let temporary = path.with_file_name(temporary_name);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::wumpus::parse_cave;

    const CLASSIC: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    fn run(input: &str, out: Option<&Path>, save_dir: Option<&Path>) -> String {
        let mut output = Vec::new();
        play_stdio(
            parse_cave(CLASSIC).unwrap(),
            input.as_bytes(),
            &mut output,
            out,
            save_dir,
        )
        .unwrap();
        String::from_utf8(output).unwrap()
    }

    #[test]
    fn end_of_input_prints_and_writes_the_state() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let text = run("move forward\r\n  TURN left \n", Some(&out), None);
        let state = "dim 4 4\nplayer 0 1 0 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";
        assert_eq!(
            text,
            format!(
                "Welcome to the Wumpus World!\nYou see light above.\nEnter command: Enter command: Enter command: {state}"
            )
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), state);
    }

    #[test]
    fn the_end_of_the_game_stops_reading() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let text = run("climb\nmove forward\n", Some(&out), None);
        assert!(text.ends_with(&format!("You are out without the gold.\n{CLASSIC}")));
        assert_eq!(fs::read_to_string(&out).unwrap(), CLASSIC);
    }

    #[test]
    fn save_writes_into_the_save_directory() {
        let dir = tempfile::tempdir().unwrap();
        let saves = dir.path().join("wumpus");
        let text = run("turn left\nsave Here\nquit\n", None, Some(&saves));
        assert!(text.contains("Saved as here.\nEnter command: "), "{text}");
        let saved = fs::read_to_string(saves.join("here.txt")).unwrap();
        assert_eq!(saved, CLASSIC.replace("0 0 1 0 1", "0 0 0 0 1"));
        let text = run("save x\n", None, None);
        assert!(text.contains("Saving is not available here"), "{text}");
    }

    #[test]
    fn atomic_writes_replace_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = save_atomically(dir.path(), "one", "first\n").unwrap();
        assert_eq!(path, dir.path().join("one.txt"));
        save_atomically(dir.path(), "one", "second\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second\n");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["one.txt"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.txt");
        fs::write(&path, "old\n").unwrap();
        // Renaming a file over a non-empty directory fails.
        let blocker = dir.path().join("dir.txt");
        fs::create_dir(&blocker).unwrap();
        fs::write(blocker.join("inside"), "x").unwrap();
        assert!(write_atomically(&blocker, "new\n").is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        let leftovers = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(leftovers, 0);
        // A directory that cannot be created is an error, not a panic.
        assert!(save_atomically(&path.join("sub"), "x", "y").is_err());
    }
}
