//! Reading what the server sends a session that does not wait for one reply at a time:
//! chat lines among lobby prompts (SPEC 7: a message arrives "on a line of its own,
//! then the prompt again"), and the frames of a watched game.
//!
//! A timed chat line carries its send time in its text (`t=MICROS`, microseconds since
//! the run's start: every session of a run shares one clock, in one process), so the
//! receiver needs nothing but the line to time its delivery.
//!
//! Nothing here reads a socket: the functions take bytes, so the unit tests below pin
//! down every shape the server's output can take.

use super::connection::{GAME_PROMPT, LOBBY_PROMPT};

/// The text a session says: its send time, for every receiver to time the delivery.
pub(crate) fn chat_text(sent_us: u64) -> String {
    format!("t={sent_us}")
}

/// A chat line as every session sees it, the sender's own echo included:
/// `[NAME] t=MICROS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChatLine<'a> {
    /// Who said it.
    pub(crate) name: &'a [u8],
    /// When it was said, in microseconds since the run's start.
    pub(crate) sent_us: u64,
}

/// What one line received in the lobby is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LobbyLine<'a> {
    /// Nothing but prompts and the line end (a message starts with one).
    Blank,
    /// A timed chat line.
    Chat(ChatLine<'a>),
    /// The server refused a line of chat as over the rate limit.
    TooFast,
    /// Anything else, without prompts and line end.
    Other(&'a [u8]),
}

/// The refusal of a line of chat over the rate limit (SPEC 7).
const TOO_FAST: &[u8] = b"You are sending too fast.";

/// How much of `buffer` is whole lines: up to and including its last line feed (0 when
/// there is none). The rest is a line still arriving, or a prompt.
pub(crate) fn whole_lines(buffer: &[u8]) -> usize {
    buffer
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |last| last + 1)
}

/// The lines of `whole` (the part [`whole_lines`] measured), each read by
/// [`lobby_line`].
pub(crate) fn lobby_lines(whole: &[u8]) -> impl Iterator<Item = LobbyLine<'_>> {
    // The split leaves an empty piece after the last line feed: not a line.
    let count = whole.iter().filter(|&&byte| byte == b'\n').count();
    whole
        .split(|&byte| byte == b'\n')
        .take(count)
        .map(lobby_line)
}

/// What one line (without its line feed) says. A lobby prompt has no line end, so the
/// prompts that came before the line start it: they are dropped.
pub(crate) fn lobby_line(line: &[u8]) -> LobbyLine<'_> {
    let mut line = line.strip_suffix(b"\r").unwrap_or(line);
    while let Some(rest) = line.strip_prefix(LOBBY_PROMPT) {
        line = rest;
    }
    if line.is_empty() {
        LobbyLine::Blank
    } else if line == TOO_FAST {
        LobbyLine::TooFast
    } else if let Some(chat) = chat_line(line) {
        LobbyLine::Chat(chat)
    } else {
        LobbyLine::Other(line)
    }
}

/// `[NAME] t=MICROS`, if that is what `line` is.
fn chat_line(line: &[u8]) -> Option<ChatLine<'_>> {
    let line = line.strip_prefix(b"[")?;
    let marker = b"] t=";
    let at = find(line, marker)?;
    let digits = &line[at + marker.len()..];
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // At most 19 ASCII digits: always a u64.
    let sent_us = digits
        .iter()
        .fold(0u64, |sum, digit| sum * 10 + u64::from(digit - b'0'));
    Some(ChatLine {
        name: &line[..at],
        sent_us,
    })
}

/// The end of the first whole frame of a watched game in `buffer`: just past the game
/// prompt every frame ends with.
pub(crate) fn frame_end(buffer: &[u8]) -> Option<usize> {
    find(buffer, GAME_PROMPT).map(|at| at + GAME_PROMPT.len())
}

/// How many screens the server says it dropped before `frame` (a watcher that fell
/// behind is told `(N screens skipped: you fell behind.)` before the next frame); 0
/// when it says nothing.
pub(crate) fn skipped_before(frame: &[u8]) -> u64 {
    let notice = b" screens skipped: you fell behind.)";
    let Some(at) = find(frame, notice) else {
        return 0;
    };
    let before = &frame[..at];
    let start = before
        .iter()
        .rposition(|byte| !byte.is_ascii_digit())
        .map_or(0, |open| open + 1);
    std::str::from_utf8(&before[start..])
        .ok()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// Whether `tail` (what follows the last frame) is the lobby prompt: the watched game
/// is over, or its player gone, and the server sent the watcher back to the lobby.
pub(crate) fn back_in_lobby(tail: &[u8]) -> bool {
    tail.ends_with(LOBBY_PROMPT)
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_text_reads_back() {
        let line = format!("[lt-7] {}", chat_text(1_234_567));
        assert_eq!(
            lobby_line(line.as_bytes()),
            LobbyLine::Chat(ChatLine {
                name: b"lt-7",
                sent_us: 1_234_567
            })
        );
    }

    #[test]
    fn lines_between_prompts_are_read() {
        // What a lobby session sees: its own echo, a message from someone else on a
        // line of its own with the prompt again, a refusal, and a prompt still waiting
        // for more.
        let stream =
            b"[me] t=5\r\n> \r\n[other] t=7\r\n> You are sending too fast.\r\n> [me] t=9\r\n> ";
        let whole = whole_lines(stream);
        assert_eq!(&stream[whole..], b"> ");
        let lines: Vec<_> = lobby_lines(&stream[..whole]).collect();
        assert_eq!(
            lines,
            vec![
                LobbyLine::Chat(ChatLine {
                    name: b"me",
                    sent_us: 5
                }),
                LobbyLine::Blank,
                LobbyLine::Chat(ChatLine {
                    name: b"other",
                    sent_us: 7
                }),
                LobbyLine::TooFast,
                LobbyLine::Chat(ChatLine {
                    name: b"me",
                    sent_us: 9
                }),
            ]
        );
    }

    #[test]
    fn a_line_split_over_reads_waits_for_its_end() {
        assert_eq!(whole_lines(b"[x] t=1"), 0);
        assert_eq!(whole_lines(b"[x] t=1\r\n[y] t="), 9);
        assert_eq!(lobby_lines(b"").count(), 0);
    }

    #[test]
    fn lines_that_are_not_timed_chat_are_other() {
        for line in [
            &b"You are now lt-1."[..],
            b"[x] hello",
            b"[x] t=",
            b"[x] t=12a",
            b"[x] t=99999999999999999999",
            b"x] t=1",
            b"[x tells you] hi",
        ] {
            assert!(
                matches!(lobby_line(line), LobbyLine::Other(_)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            lobby_line(b"> You are now lt-1.\r"),
            LobbyLine::Other(b"You are now lt-1.")
        );
        assert_eq!(lobby_line(b"> > \r"), LobbyLine::Blank);
    }

    #[test]
    fn frames_end_at_the_game_prompt() {
        let board = b"#######\r\n#..P..#\r\nEnter command: ";
        let mut stream = board.to_vec();
        stream.extend_from_slice(b"#######\r\nEnter");
        assert_eq!(frame_end(&stream), Some(board.len()));
        assert_eq!(frame_end(&stream[board.len()..]), None);
        assert_eq!(skipped_before(board), 0);
    }

    #[test]
    fn skipped_screens_are_counted() {
        let frame = b"\r\n(17 screens skipped: you fell behind.)\r\n#######\r\nEnter command: ";
        assert_eq!(frame_end(frame), Some(frame.len()));
        assert_eq!(skipped_before(frame), 17);
        assert_eq!(
            skipped_before(b"(1 screens skipped: you fell behind.)\r\nEnter command: "),
            1
        );
    }

    #[test]
    fn the_end_of_watching_is_the_lobby_prompt() {
        assert!(back_in_lobby(b"\r\nlt-0 left the game.\r\n> "));
        assert!(!back_in_lobby(b"#######\r\n"));
    }
}
