//! `arcade play`: one game on standard input and output, like the seeds' console
//! programs, for people without a network. Lines end in `\n`; saves go to the data
//! directory as they do on the server.

use std::io::{self, BufRead, Write};
use std::path::Path;

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
