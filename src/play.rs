//! `arcade play`: one game on standard input and output, like the seeds' console
//! programs, for people without a network. Lines end in `\n`; saves go to the data
//! directory as they do on the server.

use std::io::{self, BufRead, Write};
use std::path::Path;

use crate::games::wumpus::Wumpus;
use crate::games::{Game, Memory, Status};
use crate::lobby::GameKind;
use crate::saves;

/// Play `game` reading lines from `input` and writing replies to `output`, until the
/// game ends or the input does.
///
/// # Errors
/// Reading or writing failed.
pub fn run(
    kind: GameKind,
    game: &mut dyn Game,
    mut input: impl BufRead,
    mut output: impl Write,
    data_dir: &Path,
) -> io::Result<()> {
    let mut memory = Memory::default();
    let mut reply = game.start(&mut memory);
    let mut line = Vec::new();
    loop {
        let mut text = reply.text;
        match reply.status {
            Status::Playing => {}
            Status::Ended => {
                output.write_all(text.as_bytes())?;
                return output.flush();
            }
            Status::Save { name, state } => {
                text.push_str(&saves::save(data_dir, kind, &name, &state));
                text.push_str(crate::games::PROMPT);
            }
        }
        output.write_all(text.as_bytes())?;
        output.flush()?;
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.write_all(game.end_of_input().as_bytes())?;
            return output.flush();
        }
        let text = String::from_utf8_lossy(&line);
        reply = game.handle(text.trim(), &mut memory);
    }
}

/// `arcade play wumpus FILE [--save OUT]`: play `game` as [`run`] does, then write the
/// world's final state to `out` (atomically), whether the game ended or the input did.
/// The state is also printed at the end, as in every wumpus game.
///
/// # Errors
/// Reading or writing failed, or `out` cannot be written.
pub fn run_wumpus(
    game: &mut Wumpus,
    input: impl BufRead,
    output: impl Write,
    data_dir: &Path,
    out: Option<&Path>,
) -> io::Result<()> {
    run(GameKind::Wumpus, game, input, output, data_dir)?;
    if let Some(out) = out {
        saves::write_atomically(out, &game.cave().to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::wumpus::parse_cave;

    const CLASSIC: &str =
        "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

    /// Play the classic world on `input`; the output and the state written to OUT.
    fn wumpus(input: &str) -> (String, String) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let mut game = Wumpus::new(parse_cave(CLASSIC).unwrap());
        let mut output = Vec::new();
        run_wumpus(
            &mut game,
            input.as_bytes(),
            &mut output,
            dir.path(),
            Some(&out),
        )
        .unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        (String::from_utf8(output).unwrap(), written)
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
        let mut game = Wumpus::new(parse_cave(CLASSIC).unwrap());
        let mut output = Vec::new();
        let input: &[u8] = b"turn left\nsave Here\n";
        run_wumpus(&mut game, input, &mut output, dir.path(), None).unwrap();
        let output = String::from_utf8(output).unwrap();
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
        let mut game = Wumpus::new(parse_cave(CLASSIC).unwrap());
        let out = dir.path().join("missing-parent-is-a-file");
        std::fs::write(&out, "x").unwrap();
        let result = run_wumpus(
            &mut game,
            &b"quit\n"[..],
            Vec::new(),
            dir.path(),
            Some(&out.join("out.txt")),
        );
        assert!(result.is_err());
    }
}
