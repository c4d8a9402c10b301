//! A recording read back from the store a page at a time: its head first (what the
//! lists show, how it began), then its inputs, decoded, [`PAGE_ROWS`] batches at a
//! time. Replays and downloads hold one page, never the whole recording: a recording
//! at its size limit is 4 MiB of input, and what it replays into is hundreds of times
//! that.

use crate::store::{Store, StoreError};

use super::cast::CastError;
use super::recording::{decode_batch, Input, ReplayError};

/// Batches of input lines read in one query at most. A batch is what the store gives
/// back as one row: what the writer wrote of a recording at once (a few lines from a
/// person, up to 256 KiB from a script), or on SQLite the batches of a move joined
/// (those that begin in one block of 1,024 lines: at most 1,024 lines, and the rest
/// of the last batch).
pub const PAGE_ROWS: u32 = 64;

/// Encoded bytes a page aims at: the next page asks for as many batches as the last
/// ones' size says fit. What a page holds decoded goes by its inputs (an [`Input`]
/// each, a string and its time), and a recording of one-letter lines is some 4,000
/// inputs in 32 KiB: a download of 200,000 of them, in rows joined by the store's
/// moves, grew the server by 3 MB at 32 KiB a page and 9 MB at 256 KiB
/// (`tests/abuse_web.rs`). A script's batch of 256 KiB is still a page of its own; a
/// person's batches are small, and a page of them still takes one query.
pub const PAGE_BYTES: usize = 32 * 1024;

/// The inputs of one recording, page by page.
#[derive(Debug, Clone)]
pub struct Inputs {
    store: Store,
    id: i64,
    /// The last batch read, if any.
    after: Option<i64>,
    /// Lines decoded so far, for the number of a damaged one.
    lines: usize,
    /// Batches the next query asks for.
    rows: u32,
    done: bool,
}

impl Inputs {
    /// The inputs of recording `id`, from its first.
    pub fn new(store: Store, id: i64) -> Inputs {
        Inputs {
            store,
            id,
            after: None,
            lines: 0,
            // Until a page says how big batches are: one.
            rows: 1,
            done: false,
        }
    }

    /// The next page of inputs, decoded, or `None` after the last.
    ///
    /// # Errors
    /// [`StoreError::Query`]; [`StoreError::Damaged`] when a line cannot be decoded.
    pub async fn next_page(&mut self) -> Result<Option<Vec<Input>>, StoreError> {
        if self.done {
            return Ok(None);
        }
        let asked = self.rows;
        let rows = self
            .store
            .recording_inputs(self.id, self.after, asked)
            .await?;
        if rows.len() < asked as usize {
            self.done = true;
        }
        if rows.is_empty() {
            return Ok(None);
        }
        let bytes: usize = rows.iter().map(|(_, lines)| lines.len()).sum();
        self.rows = next_rows(bytes, rows.len());
        let mut inputs = Vec::new();
        for (batch, lines) in &rows {
            decode_batch(*batch, lines, self.lines, &mut inputs).map_err(|error| {
                // Numbered in the whole recording, as `recording::load` numbers them.
                let error = match error {
                    ReplayError::Damaged(line) => ReplayError::Damaged(self.lines + line),
                    other => other,
                };
                StoreError::Damaged(format!("recording {}: {error}", self.id))
            })?;
            self.after = Some(*batch);
        }
        self.lines += inputs.len();
        Ok(Some(inputs))
    }
}

/// How many batches of `bytes / rows` each fit in [`PAGE_BYTES`]: from 1 to
/// [`PAGE_ROWS`].
fn next_rows(bytes: usize, rows: usize) -> u32 {
    let each = (bytes / rows.max(1)).max(1);
    u32::try_from(PAGE_BYTES / each)
        .unwrap_or(PAGE_ROWS)
        .clamp(1, PAGE_ROWS)
}

/// [`Inputs`] one at a time, for a thread that may block (a blocking task, or a
/// command's main thread): each page is awaited on `runtime`, whose workers drive the
/// store. Never on one of the runtime's own worker threads: blocking there would stop
/// it.
#[derive(Debug)]
pub struct BlockingInputs {
    runtime: tokio::runtime::Handle,
    inputs: Inputs,
    page: std::vec::IntoIter<Input>,
}

impl BlockingInputs {
    /// The inputs of recording `id`, from its first, read through `runtime`.
    pub fn new(runtime: tokio::runtime::Handle, store: Store, id: i64) -> BlockingInputs {
        BlockingInputs {
            runtime,
            inputs: Inputs::new(store, id),
            page: Vec::new().into_iter(),
        }
    }
}

impl Iterator for BlockingInputs {
    type Item = Result<Input, CastError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(input) = self.page.next() {
                return Some(Ok(input));
            }
            match self.runtime.block_on(self.inputs.next_page()) {
                Ok(Some(page)) => self.page = page.into_iter(),
                Ok(None) => return None,
                Err(error) => {
                    // One error, then the end: a page that failed is not asked again.
                    self.inputs.done = true;
                    return Some(Err(CastError::Store(error)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_asks_for_as_many_batches_as_fit() {
        // A script's batches of 256 KiB: one at a time.
        assert_eq!(next_rows(4 * 256 * 1024, 4), 1);
        // A person's batches of a few lines: as many as a query may.
        assert_eq!(next_rows(4 * 40, 4), PAGE_ROWS);
        // In between: what fits (joined rows of 1,024 one-letter lines, some 9 KiB).
        assert_eq!(next_rows(2 * 4 * 1024, 2), 8);
        assert_eq!(next_rows(3 * 9 * 1024, 3), 3);
        assert_eq!(next_rows(0, 0), PAGE_ROWS);
    }
}
