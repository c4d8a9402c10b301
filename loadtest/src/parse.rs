//! Reading what the server sends a session that does not wait for one reply at a time:
//! chat lines among lobby prompts (SPEC 7: a message arrives "on a line of its own,
//! then the prompt again"), the frames of a watched game, and a racer's stream, where
//! the race's lines come between the replies to its moves (SPEC 9).
//!
//! A timed chat line carries its send time in its text (`t=MICROS`, microseconds since
//! the run's start: every session of a run shares one clock, in one process), so the
//! receiver needs nothing but the line to time its delivery.
//!
//! Nothing here reads a socket: the functions take bytes, so the unit tests below pin
//! down every shape the server's output can take.

use super::connection::{GAME_PROMPT, LOBBY_PROMPT};
use arcade::races::rules::RaceId;

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
    let sent_us = number(&line[at + marker.len()..])?;
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

/// One piece of a racer's stream: everything up to and including the next prompt.
///
/// The server writes each reply and each message whole, and each ends with a prompt,
/// so cutting the stream after every prompt gives them one by one. A reply to a typed
/// line never begins with a line end (a 2048 reply begins with its board or its
/// one-line message), while a message always does: it comes "on a line of its own,
/// then the prompt again". So does what the race itself does to the racer's game:
/// `\r\nRace N: go!` and the first board when it starts, the game's last words when the
/// race's time is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit<'a> {
    /// A line of the race: `\r\n[race N] ...` and the prompt.
    Race(RaceLine<'a>),
    /// Anything else that begins with a line end: another message, or the race
    /// starting or stopping the racer's game.
    Aside(&'a [u8]),
    /// The answer to a line the session typed, prompt included.
    Reply(&'a [u8]),
}

/// What a line `[race N] ...` says, as far as a racer's load test cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RaceLine<'a> {
    /// A racer's progress: a new tile, or the end of its game.
    Progress {
        /// Who made it.
        name: &'a [u8],
        /// What it was.
        news: News,
    },
    /// Anything else: someone joined or left, the start, time up, the places.
    Other,
}

/// The progress a line tells of (src/race.rs, `news`, for a 2048 race).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum News {
    /// `NAME reached T.`: the racer's largest tile is now T.
    Reached(u64),
    /// `NAME reached W in TIME: ...` or `NAME has no move left: ...`: the racer is done.
    Finished,
}

/// The end of the first whole [`Unit`] in `buffer`: just past the first prompt, of
/// either kind.
pub(crate) fn unit_end(buffer: &[u8]) -> Option<usize> {
    let game = find(buffer, GAME_PROMPT).map(|at| at + GAME_PROMPT.len());
    let lobby = find(buffer, LOBBY_PROMPT).map(|at| at + LOBBY_PROMPT.len());
    match (game, lobby) {
        (Some(game), Some(lobby)) => Some(game.min(lobby)),
        (game, lobby) => game.or(lobby),
    }
}

/// What the whole unit `unit` (as [`unit_end`] cut it) is.
pub(crate) fn unit(unit: &[u8]) -> Unit<'_> {
    let Some(message) = unit.strip_prefix(b"\r\n") else {
        return Unit::Reply(unit);
    };
    if message.starts_with(b"[race ") {
        let line = message
            .split(|&byte| byte == b'\r')
            .next()
            .unwrap_or(message);
        Unit::Race(race_line(line))
    } else {
        Unit::Aside(unit)
    }
}

/// What one line `[race N] ...` (without its line end) says.
pub(crate) fn race_line(line: &[u8]) -> RaceLine<'_> {
    let Some(after) = line
        .strip_prefix(b"[race ")
        .and_then(|rest| find(rest, b"] ").map(|at| &rest[at + 2..]))
    else {
        return RaceLine::Other;
    };
    // Player names have no spaces (SPEC 7): the name is the first word.
    let Some(space) = after.iter().position(|&byte| byte == b' ') else {
        return RaceLine::Other;
    };
    let (name, what) = (&after[..space], &after[space + 1..]);
    let news = if what.starts_with(b"has no move left: ") {
        News::Finished
    } else if let Some(reached) = what.strip_prefix(b"reached ") {
        let digits = reached
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        match (number(&reached[..digits]), &reached[digits..]) {
            (Some(tile), b".") => News::Reached(tile),
            (Some(_), rest) if rest.starts_with(b" in ") => News::Finished,
            _ => return RaceLine::Other,
        }
    } else {
        return RaceLine::Other;
    };
    RaceLine::Progress { name, news }
}

/// The race number in the host's reply to `race GAME ...`: `Race N is open: ...`.
pub(crate) fn race_opened(reply: &[u8]) -> Option<RaceId> {
    let rest = reply.strip_prefix(b"Race ")?;
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    if !rest[digits..].starts_with(b" is open: ") {
        return None;
    }
    number(&rest[..digits]).and_then(|id| RaceId::try_from(id).ok())
}

/// Whether a racer's reply says that the racer is done: its game ended by its rules
/// (2048's win tile, or no move left), and the server took it back to the lobby.
pub(crate) fn done_in_race(reply: &[u8]) -> bool {
    find(reply, b"\r\nYou are done in race ").is_some()
}

/// The largest tile on the 2048 board in `text`, if it holds a board: the largest
/// number on a row of cells (rows begin with `│`, or `|` in the ascii style).
pub(crate) fn largest_tile(text: &[u8]) -> Option<u64> {
    text.split(|&byte| byte == b'\n')
        .filter(|line| line.starts_with("│".as_bytes()) || line.starts_with(b"|"))
        .flat_map(|row| row.split(|byte| !byte.is_ascii_digit()))
        .filter_map(number)
        .max()
}

/// A run of ASCII digits as a number (none when empty, not all digits, or too long).
fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // At most 19 ASCII digits: always a u64.
    Some(
        digits
            .iter()
            .fold(0u64, |sum, digit| sum * 10 + u64::from(digit - b'0')),
    )
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

    /// `text` with the server's line ends.
    fn crlf(text: &str) -> Vec<u8> {
        text.replace('\n', "\r\n").into_bytes()
    }

    #[test]
    fn a_racers_stream_is_cut_at_every_prompt() {
        // A line of the race before the reply to a move, the reply, a line in the
        // lobby after it, and a prompt still arriving.
        let stream = crlf(
            "\n[race 3] ltab-1 reached 16.\nEnter command: This move has no effect.\nEnter command: \n[race 3] ltab-2 joined (3 racers).\n> \n[race 3] Race over. Places:\n    1. ltab-1 ...\nEnter com",
        );
        let mut units = Vec::new();
        let mut rest = &stream[..];
        while let Some(end) = unit_end(rest) {
            units.push(unit(&rest[..end]));
            rest = &rest[end..];
        }
        assert_eq!(
            rest,
            b"\r\n[race 3] Race over. Places:\r\n    1. ltab-1 ...\r\nEnter com"
        );
        assert_eq!(
            units,
            vec![
                Unit::Race(RaceLine::Progress {
                    name: b"ltab-1",
                    news: News::Reached(16)
                }),
                Unit::Reply(b"This move has no effect.\r\nEnter command: "),
                Unit::Race(RaceLine::Other),
            ]
        );
        assert!(matches!(unit(rest), Unit::Race(RaceLine::Other)));
    }

    #[test]
    fn the_race_starting_and_stopping_a_game_are_asides() {
        let go =
            crlf("\nRace 4: go!\nWelcome to 2048! Join equal tiles to make 256.\nEnter command: ");
        assert_eq!(unit_end(&go), Some(go.len()));
        assert_eq!(unit(&go), Unit::Aside(&go));
        let stopped = crlf("\nBye!\n> ");
        assert_eq!(unit(&stopped), Unit::Aside(&stopped));
        let reply =
            crlf("You joined race 4: 2048 seed=1 (2 racers). lt-0 starts it; leave leaves it.\n> ");
        assert_eq!(unit_end(&reply), Some(reply.len()));
        assert_eq!(unit(&reply), Unit::Reply(&reply));
    }

    #[test]
    fn progress_lines_are_told_from_the_other_lines_of_a_race() {
        let progress = |line: &'static [u8]| match race_line(line) {
            RaceLine::Progress { name, news } => Some((name, news)),
            RaceLine::Other => None,
        };
        assert_eq!(
            progress(b"[race 1] lt-3 reached 128."),
            Some((&b"lt-3"[..], News::Reached(128)))
        );
        assert_eq!(
            progress(b"[race 12] lt-3 reached 256 in 1m05s: score 2012, 150 moves."),
            Some((&b"lt-3"[..], News::Finished))
        );
        assert_eq!(
            progress(b"[race 1] lt-7 has no move left: score 700, tile 64."),
            Some((&b"lt-7"[..], News::Finished))
        );
        for other in [
            &b"[race 1] lt-3 joined (4 racers)."[..],
            b"[race 1] lt-3 left the race.",
            b"[race 1] lt-3 left (3 racers).",
            b"[race 1] Time is up.",
            b"[race 1] Race over. Places:",
            b"[race 1] lt-3 is the host now: start starts the race.",
            b"[race 1] lt-3 reached .",
            b"[race 1] lt-3 reached 12x.",
            b"[race 1] lt-3 placed a box (1/3).",
            b"[race 1 lt-3 reached 8.",
            b"[lt-3] reached 8.",
        ] {
            assert_eq!(
                race_line(other),
                RaceLine::Other,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }

    #[test]
    fn the_hosts_reply_names_the_race() {
        assert_eq!(
            race_opened(b"Race 17 is open: 2048 seed=1. Others join with: join 17. Type start when everyone is in.\r\n> "),
            Some(17)
        );
        assert_eq!(race_opened(b"Race is open: "), None);
        assert_eq!(
            race_opened(b"You are in race 2 already: leave it first.\r\n> "),
            None
        );
        assert_eq!(race_opened(b"Race 99999999999 is open: "), None);
    }

    #[test]
    fn largest_tiles_are_read_from_the_real_boards() {
        use arcade::games::{twenty48, Game, Memory};
        for style in ["box", "ascii"] {
            let style = format!("style={style}");
            let mut game = twenty48::from_args(&["seed=7", "size=3", &style]).unwrap();
            let mut memory = Memory::default();
            let start = game.start(&mut memory);
            let largest =
                |game: &twenty48::Twenty48| game.progress().tiles.map(|tiles| tiles.largest);
            assert_eq!(largest_tile(&crlf(&start.text)), largest(&game));
            let mut boards = 0;
            for key in ["a", "s", "d", "s"].iter().cycle().take(60) {
                let reply = game.handle(key, &mut memory);
                if let Some(tile) = largest_tile(&crlf(&reply.text)) {
                    assert_eq!(Some(tile), largest(&game), "{}", reply.text);
                    boards += 1;
                }
            }
            assert!(boards > 10, "{style}");
        }
        assert_eq!(
            largest_tile(b"This move has no effect.\r\nEnter command: "),
            None
        );
        assert_eq!(largest_tile(b"Score: 2048  Best: 4096  Step: 3\r\n"), None);
    }

    #[test]
    fn a_racer_learns_it_is_done_from_its_reply() {
        assert!(done_in_race(&crlf("Game over!\nBye!\nYou are done in race 2: no move left, score 9, tile 8, 12 moves, in 4s.\n> ")));
        assert!(!done_in_race(
            b"[race 2] lt-1 reached 8.\r\nEnter command: "
        ));
    }
}
