//! A recording as an asciicast v2 file (asciinema's format), written frame by frame:
//! a JSON header line, then one `[seconds, "o", text]` line per output, with `\r\n`
//! line endings. The lines the player typed are shown as a terminal echoes them.
//!
//! The header names the terminal's size, which only the whole replay knows (the
//! widest line, the tallest screen), so the recording is replayed twice: once to
//! measure, once to write. Its inputs are read twice and its frames never kept: the
//! memory is one frame and whatever the inputs' source holds (a page of them, for a
//! recording read from the store: `reader.rs`), however long the recording. A
//! recording at its input limit writes close to a gigabyte.

use std::io::Write;

use crate::catalog::table::Context;
use crate::store::{Start, StoreError};

#[cfg(test)]
use super::recording::Recording;
use super::recording::{Input, Replay, ReplayError};

/// Why an asciicast could not be written.
#[derive(Debug, thiserror::Error)]
pub enum CastError {
    /// The game cannot be played again.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// The inputs could not be read.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The file could not be written (the reader went away).
    #[error("{0}")]
    Write(#[from] std::io::Error),
}

/// What the header says of the recording.
#[derive(Debug, Clone, Copy)]
pub struct CastHeader<'a> {
    /// The title (`PLAYER playing GAME ARGS`).
    pub title: &'a str,
    /// When it started, Unix seconds.
    pub timestamp: i64,
}

/// `PLAYER playing GAME ARGS`: a recording's title, on its page and in its file.
pub fn title(listed: &crate::store::Listed) -> String {
    let title = format!("{} playing {} {}", listed.player, listed.game, listed.args);
    title.trim_end().to_string()
}

/// The terminal size an asciicast is shown in, at least 80x24.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Size {
    width: usize,
    height: usize,
}

impl Default for Size {
    fn default() -> Size {
        Size {
            width: 80,
            height: 24,
        }
    }
}

impl Size {
    /// Make room for `text`.
    fn fit(&mut self, text: &str) {
        for line in text.lines() {
            self.width = self.width.max(line.chars().count());
        }
        self.height = self.height.max(text.lines().count() + 1);
    }
}

/// Replay from `start` through `inputs`, giving `frame` each output in order with its
/// time in milliseconds: what the game said first, then for each input the line as
/// the terminal echoed it and the game's answer, until the game ends.
fn frames<I>(
    start: &Start,
    context: &Context,
    inputs: I,
    mut frame: impl FnMut(u64, &str) -> Result<(), CastError>,
) -> Result<(), CastError>
where
    I: IntoIterator<Item = Result<Input, CastError>>,
{
    let (mut replay, first) = Replay::begin(start, context)?;
    frame(0, &first.text)?;
    for input in inputs {
        if replay.is_over() {
            break;
        }
        let input = input?;
        // The echo of what was typed: a recording made before every typed line was
        // cleaned may hold control characters, never written to the file.
        frame(
            input.at_ms,
            &format!("{}\n", crate::text::one_line(&input.line)),
        )?;
        let step = replay.step(&input.line);
        frame(input.at_ms, &step.text)?;
    }
    Ok(())
}

/// Write the recording that began with `start` as an asciicast to `out`, frame by
/// frame. `inputs` gives its inputs from the first, and is called twice (see the
/// module's comment). Nothing is written before the first pass has succeeded, so a
/// recording that cannot be replayed writes nothing at all.
///
/// # Errors
/// [`CastError`]: the game cannot start again, an input cannot be read, or `out`
/// refuses what is written.
pub fn write_asciicast<I>(
    start: &Start,
    header: CastHeader<'_>,
    context: &Context,
    mut inputs: impl FnMut() -> I,
    out: &mut impl Write,
) -> Result<(), CastError>
where
    I: IntoIterator<Item = Result<Input, CastError>>,
{
    let mut size = Size::default();
    frames(start, context, inputs(), |_, text| {
        size.fit(text);
        Ok(())
    })?;
    let json = serde_json::json!({
        "version": 2,
        "width": size.width,
        "height": size.height,
        "timestamp": header.timestamp,
        "title": header.title,
        "env": {"TERM": "xterm-256color"},
    });
    writeln!(out, "{json}")?;
    frames(start, context, inputs(), |at_ms, text| {
        let seconds = at_ms as f64 / 1000.0;
        let event = serde_json::json!([seconds, "o", text.replace('\n', "\r\n")]);
        writeln!(out, "{event}")?;
        Ok(())
    })
}

/// The whole recording as an asciicast, in memory: [`write_asciicast`] into a string,
/// for the tests that compare it with the file as it was written before streaming.
///
/// # Errors
/// [`ReplayError`] when the game cannot start again.
#[cfg(test)]
pub fn asciicast(
    recording: &Recording,
    title: &str,
    timestamp: i64,
    context: &Context,
) -> Result<String, ReplayError> {
    let mut out = Vec::new();
    let written = write_asciicast(
        &recording.start,
        CastHeader { title, timestamp },
        context,
        || recording.inputs.iter().cloned().map(Ok),
        &mut out,
    );
    match written {
        Ok(()) => Ok(String::from_utf8_lossy(&out).into_owned()),
        Err(CastError::Replay(error)) => Err(error),
        // Neither reading a Vec nor writing to one fails.
        Err(CastError::Store(_) | CastError::Write(_)) => Ok(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;
    use crate::catalog::table::GameKind;

    /// The terminal size an asciicast is shown in, at least 80x24.
    fn cast_size(frames: &[(u64, String)]) -> (usize, usize) {
        let mut width = 80;
        let mut height = 24;
        for (_, text) in frames {
            for line in text.lines() {
                width = width.max(line.chars().count());
            }
            height = height.max(text.lines().count() + 1);
        }
        (width, height)
    }

    /// The recording as an asciicast v2 file (asciinema's format): a JSON header line,
    /// then one `[seconds, "o", text]` line per output, with `\r\n` line endings. The
    /// lines the player typed are shown as a terminal echoes them.
    ///
    /// # Errors
    /// [`ReplayError`] when the game cannot start again.
    fn old_asciicast(
        recording: &Recording,
        title: &str,
        timestamp: i64,
        context: &Context,
    ) -> Result<String, ReplayError> {
        let (mut replay, first) = Replay::begin(&recording.start, context)?;
        let mut frames = vec![(0, first.text)];
        for input in &recording.inputs {
            if replay.is_over() {
                break;
            }
            frames.push((input.at_ms, format!("{}\n", input.line)));
            let step = replay.step(&input.line);
            frames.push((input.at_ms, step.text));
        }
        let (width, height) = cast_size(&frames);
        let header = serde_json::json!({
            "version": 2,
            "width": width,
            "height": height,
            "timestamp": timestamp,
            "title": title,
            "env": {"TERM": "xterm-256color"},
        });
        let mut out = header.to_string();
        out.push('\n');
        for (at_ms, text) in frames {
            let seconds = at_ms as f64 / 1000.0;
            let event = serde_json::json!([seconds, "o", text.replace('\n', "\r\n")]);
            out.push_str(&event.to_string());
            out.push('\n');
        }
        Ok(out)
    }

    /// The asciicast written frame by frame is byte for byte the one built whole.
    #[test]
    fn the_streamed_cast_is_the_whole_one() {
        let context = Context {
            levels: Levels::built_in().0,
            data_dir: std::env::temp_dir().join("arcade-cast-tests-unused"),
        };
        let words = [
            "w", "d", "s", "a", "undo", "nonsense", "", "a \\ b", "w1", "d2",
        ];
        for (game, typed) in [("sokoban", vec![]), ("2048", vec![]), ("wumpus", vec![])] {
            let kind = GameKind::from_name(game).unwrap();
            let args: Vec<String> = (kind.recorded_args)(typed);
            let start = Start {
                game: game.to_string(),
                args,
                memory: String::new(),
                world: None,
            };
            let inputs = (0..200)
                .map(|at| Input {
                    at_ms: at * 37,
                    line: words[(at as usize * 7) % words.len()].to_string(),
                })
                .collect();
            let recording = Recording { start, inputs };
            let whole = old_asciicast(&recording, "ann playing", 12, &context).unwrap();
            let streamed = asciicast(&recording, "ann playing", 12, &context).unwrap();
            assert_eq!(streamed, whole);
        }
    }
}
