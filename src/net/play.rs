//! `arcade play`: one game on standard input and output, like the seeds' console
//! programs, for people without a network. Lines end in `\n`; saves go to the data
//! directory as they do on the server. The rules of what a line does are the
//! console's ([`crate::console`]), the same as on the server.

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::Arc;

use crate::catalog::saves;
use crate::catalog::table::Context;
use crate::console::{Console, Outcome};

/// Play the console's one game, starting from `first` (what the game said when it
/// started), reading lines from `input` and writing replies to `output`, until the
/// game ends or the input does. With `save_to`, the game's final state
/// ([`crate::games::Game::state`]) is then written there, atomically, whichever ended.
///
/// # Errors
/// Reading or writing failed, or `save_to` cannot be written.
pub fn run(
    mut console: Console,
    first: Outcome,
    context: &Arc<Context>,
    mut input: impl BufRead,
    mut output: impl Write,
    save_to: Option<&Path>,
) -> io::Result<()> {
    // Jobs (a save) are async; this console is the only thing running, so a small
    // runtime on this thread waits for each.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut outcome = first;
    let mut line = Vec::new();
    loop {
        match outcome {
            Outcome::Send(text) => {
                output.write_all(text.as_bytes())?;
                output.flush()?;
            }
            Outcome::Close(text) => {
                output.write_all(text.as_bytes())?;
                break;
            }
            Outcome::Wait(job) => {
                outcome = console.finish(runtime.block_on(job.run(Arc::clone(context))));
                continue;
            }
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.write_all(console.end_of_input().as_bytes())?;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        outcome = console.handle_line(text.trim());
    }
    output.flush()?;
    if let Some(path) = save_to {
        let state = console.game_state().ok_or_else(|| {
            io::Error::new(io::ErrorKind::Unsupported, "this game has no state to save")
        })?;
        saves::write_atomically(path, &state)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use crate::catalog::table::GameKind;

    const CLASSIC: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    /// Play the built-in `classic` world on `input`, with the data directory `dir`.
    fn play_wumpus(input: &[u8], dir: &Path, save_to: Option<&Path>) -> io::Result<String> {
        let context = Arc::new(Context {
            levels: Levels::built_in().0,
            data_dir: dir.to_path_buf(),
        });
        let kind = GameKind::from_name("wumpus").unwrap();
        let game = (kind.start)(&[], &context).unwrap();
        let (console, first) = Console::single(kind, game);
        let mut output = Vec::new();
        run(console, first, &context, input, &mut output, save_to)?;
        Ok(String::from_utf8(output).unwrap())
    }

    /// Play the classic world on `input`; the output and the state written to OUT.
    fn wumpus(input: &str) -> (String, String) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let output = play_wumpus(input.as_bytes(), dir.path(), Some(&out)).unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        (output, written)
    }

    #[test]
    fn wumpus_end_of_input_prints_and_writes_the_state() {
        let (output, written) = wumpus("move forward\r\n  TURN left \n");
        let state = "dim 4 4\nplayer 0 1 0 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";
        assert_eq!(
            output,
            format!("Welcome to the Wumpus World!\nYou see light above.\nEnter command: Enter command: Enter command: {state}")
        );
        assert_eq!(written, state);
    }

    #[test]
    fn wumpus_end_of_game_stops_reading_and_writes_the_state() {
        let (output, written) = wumpus("climb\nmove forward\n");
        assert!(output.ends_with(&format!("You are out without the gold.\n{CLASSIC}")));
        assert_eq!(written, CLASSIC);
        let (output, written) = wumpus("turn right\nquit\nclimb\n");
        let state = CLASSIC.replace("0 0 1 0 1", "0 0 2 0 1");
        assert!(
            output.ends_with(&format!("Enter command: {state}")),
            "{output}"
        );
        assert_eq!(written, state);
    }

    #[test]
    fn wumpus_save_goes_to_the_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        let output = play_wumpus(b"turn left\nsave Here\n", dir.path(), None).unwrap();
        assert!(
            output.contains("Saved as here.\nEnter command: "),
            "{output}"
        );
        let saved = std::fs::read_to_string(dir.path().join("wumpus/here.txt")).unwrap();
        assert_eq!(saved, CLASSIC.replace("0 0 1 0 1", "0 0 0 0 1"));
    }

    #[test]
    fn wumpus_an_unwritable_out_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("missing-parent-is-a-file");
        std::fs::write(&out, "x").unwrap();
        let result = play_wumpus(b"quit\n", dir.path(), Some(&out.join("out.txt")));
        assert!(result.is_err());
    }
}
