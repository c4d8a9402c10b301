//! Asking a telnet client for its terminal type before the banner, so that a screen
//! reader is known before the first line (SPEC section 10; `--detect-readers`).
//!
//! MUD clients answer `DO TTYPE` and then, asked again and again, name themselves,
//! their terminal and at last `MTTS N`, a bitvector whose bit 64 says a screen reader
//! is in use (the MUD Terminal Type Standard, as Mudlet and MUSHclient send it). The
//! probe asks, follows the cycle until MTTS, a repeat or [`PROBE_ANSWERS`] answers, and
//! gives up after [`PROBE_WAIT`]: a client that never answers (nc, a script) sees the
//! banner that much later, once. Lines typed meanwhile are kept, in order, for after
//! the banner.

use std::collections::VecDeque;
use std::time::Duration;

use crate::codec::telnet::{Input, Signal, TelnetCodec, TTYPE_OPTION};

use super::{read_some, Read, Session};

/// The longest a client's silence delays the banner.
pub const PROBE_WAIT: Duration = Duration::from_millis(250);

/// Terminal type answers read at most (a client that cycles for ever is cut short).
pub const PROBE_ANSWERS: usize = 4;

/// The screen-reader bit of the MTTS bitvector.
const MTTS_SCREEN_READER: u32 = 64;

/// Whether a terminal type answer is an MTTS bitvector with the screen-reader bit
/// (`MTTS 333`; the codec keeps printable characters only, so it reads `MTTS333`).
pub fn says_screen_reader(answer: &str) -> Option<bool> {
    let bits = answer.strip_prefix("MTTS")?.trim().parse::<u32>().ok()?;
    Some(bits & MTTS_SCREEN_READER != 0)
}

impl Session {
    /// Ask the client for its terminal type and follow its answers for up to
    /// [`PROBE_WAIT`]: whether it said a screen reader is in use.
    pub(super) async fn probe_terminal(&mut self) -> std::io::Result<bool> {
        let ask = self.codec.ask(TTYPE_OPTION);
        self.write(&ask).await?;
        let deadline = tokio::time::Instant::now() + PROBE_WAIT;
        let mut kept: VecDeque<Input> = VecDeque::new();
        let mut answers = 0;
        let mut last: Option<String> = None;
        let mut reader = false;
        'probe: loop {
            let read = tokio::time::timeout_at(
                deadline,
                read_some(&mut self.stream, &mut self.codec, &mut self.pending),
            )
            .await;
            let first = match read {
                Err(_elapsed) => break,
                Ok(read) => match read? {
                    Read::Input(input) => input,
                    Read::Nothing => continue,
                    Read::End(last_line) => {
                        kept.extend(last_line);
                        self.input_ended = true;
                        break;
                    }
                },
            };
            let mut items = VecDeque::from([first]);
            if let Some(more) = self.pending.take() {
                items.extend(*more);
            }
            while let Some(item) = items.pop_front() {
                match item {
                    Input::Signal(Signal::Agreed(TTYPE_OPTION)) => {
                        self.write(&TelnetCodec::ask_terminal_type()).await?;
                    }
                    Input::Signal(Signal::Declined(TTYPE_OPTION)) => {
                        kept.extend(items);
                        break 'probe;
                    }
                    Input::Signal(Signal::TerminalType(answer)) => {
                        answers += 1;
                        if let Some(says) = says_screen_reader(&answer) {
                            reader = says;
                            kept.extend(items);
                            break 'probe;
                        }
                        if last.as_deref() == Some(answer.as_str()) || answers >= PROBE_ANSWERS {
                            kept.extend(items);
                            break 'probe;
                        }
                        last = Some(answer);
                        self.write(&TelnetCodec::ask_terminal_type()).await?;
                    }
                    Input::Negotiation(bytes) => self.write(&bytes).await?,
                    other => kept.push_back(other),
                }
            }
        }
        if !kept.is_empty() {
            self.pending = Some(Box::new(kept));
        }
        Ok(reader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mtts_bitvector_says_a_screen_reader() {
        assert_eq!(says_screen_reader("MTTS 137"), Some(false));
        assert_eq!(says_screen_reader("MTTS 64"), Some(true));
        assert_eq!(says_screen_reader("MTTS 333"), Some(true));
        assert_eq!(says_screen_reader("MUDLET"), None);
        assert_eq!(says_screen_reader("MTTS lots"), None);
        assert_eq!(says_screen_reader("MTTS333"), Some(true));
    }
}
