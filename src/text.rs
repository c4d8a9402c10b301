//! Small text helpers every layer shares: durations, dates, and text cleaned of
//! control characters before another player's terminal shows it.
//!
//! One helper for each small thing, not one per module: the standings, the records,
//! `who`, the chat, the bus and the key reader all word a duration or clean a text,
//! and each used to do it its own way. The rules that really differ (a race's clock
//! and `who`'s idle time; a chat line and a bus line) are named variants here, so the
//! differences are on one screen.
//!
//! This module imports nothing of the crate: it sits just above `games/`.

use std::borrow::Cow;
use std::time::{Duration, UNIX_EPOCH};

/// `n` and the noun for it: `1 player`, `2 players`, `0 players` (`one` and `many` are
/// the noun's singular and plural). A class reads `1 players online:` as a mistake.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The width every line the server writes fits in (boards wider than it aside): an
/// 80-column terminal, the width a telnet window opens with.
pub const COLUMNS: usize = 80;

/// `text` with each line longer than `width` characters broken at spaces into lines
/// that fit, the continuations starting with `indent`; a word longer than a whole line
/// is broken where the line ends. Line endings are kept as they are.
pub fn wrap<'a>(text: &'a str, width: usize, indent: &str) -> Cow<'a, str> {
    // Most text fits (a chat line, a race's news): it is then not copied.
    if text.len() <= width
        || text
            .lines()
            .all(|line| line.chars().map(columns_of).sum::<usize>() <= width)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if body.chars().map(columns_of).sum::<usize>() <= width {
            out.push_str(line);
            continue;
        }
        // The line's own indent stays; the words after it wrap.
        let words = body.trim_start_matches(' ');
        let lead = &body[..body.len() - words.len()];
        out.push_str(lead);
        let mut column = lead.len();
        let mut first = true;
        for word in words.split(' ') {
            let length = word.chars().map(columns_of).sum::<usize>();
            if !first && column + 1 + length > width {
                out.push('\n');
                out.push_str(indent);
                column = indent.chars().count();
            } else if !first {
                out.push(' ');
                column += 1;
            }
            first = false;
            for c in word.chars() {
                if column + columns_of(c) > width {
                    out.push('\n');
                    out.push_str(indent);
                    column = indent.chars().count();
                }
                out.push(c);
                column += columns_of(c);
            }
        }
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// The columns a character takes on a terminal, as `wrap` counts them: one for ASCII,
/// two for anything else. Wide CJK and emoji take two; counting every other
/// character as two only wraps some lines early, and a line that runs past the edge
/// would be wrapped by the terminal at column 0, where its tail could pass for a line
/// of the server's own (`[teacher to everyone] ...`).
fn columns_of(c: char) -> usize {
    if c.is_ascii() {
        1
    } else {
        2
    }
}

/// `head` then `items` joined by `, `, as lines of at most `width` characters that
/// break only between items (an item is never split), continuations after `indent`;
/// ends with a line ending.
pub fn wrap_list(head: &str, items: &[String], width: usize, indent: &str) -> String {
    let mut out = String::from(head);
    let mut column = head.chars().count();
    for (index, item) in items.iter().enumerate() {
        let last = index + 1 == items.len();
        let piece = if last {
            item.clone()
        } else {
            format!("{item},")
        };
        let length = piece.chars().count();
        // The first item too goes to a line of its own when it does not fit after
        // `head` (a long name in a class's folder).
        let room = if index > 0 { column + 1 } else { column };
        if room + length > width && column > indent.chars().count() {
            // `head`'s own space does not end a line.
            out.truncate(out.trim_end_matches(' ').len());
            out.push('\n');
            out.push_str(indent);
            column = indent.chars().count();
        } else if index > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(&piece);
        column += length;
    }
    out.push('\n');
    out
}

/// `text` (one line) cut to at most `width` characters, a cut shown by `...` at its end.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(3)).collect();
    format!("{kept}...")
}

/// How finely a duration between a minute and an hour is worded: under a minute it is
/// always seconds (`42s`), from an hour on hours and minutes (`1h02m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    /// Minutes and seconds (`1m05s`): a race's clock, a game's length.
    Seconds,
    /// Whole minutes (`17m`): how long a player has been idle, for `who`.
    Minutes,
}

/// `duration` in words, whole seconds rounded down: `42s`, then `1m05s` or `17m` as
/// `grain` says, then `1h02m`.
pub fn duration(duration: Duration, grain: Grain) -> String {
    let seconds = duration.as_secs();
    match (seconds, grain) {
        (0..60, _) => format!("{seconds}s"),
        (60..3600, Grain::Seconds) => format!("{}m{:02}s", seconds / 60, seconds % 60),
        (60..3600, Grain::Minutes) => format!("{}m", seconds / 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

/// A race's clock or a game's length: `42s`, `1m05s`, `1h02m`.
pub fn clock(time: Duration) -> String {
    duration(time, Grain::Seconds)
}

/// An idle time, for `who`: `42s`, `17m`, `3h05m`.
pub fn idle(time: Duration) -> String {
    duration(time, Grain::Minutes)
}

/// The last millisecond `humantime` writes (the end of the year 9999): it panics past
/// it, and before 1970.
const LAST_MS: i64 = 253_402_300_799_999;

/// Unix milliseconds as RFC 3339 in whole seconds, UTC: `2026-11-23T14:05:09Z`. A time
/// before 1970 or after 9999 (a damaged row) is written as the nearest of the two.
pub fn rfc3339(unix_ms: i64) -> String {
    let ms = u64::try_from(unix_ms.clamp(0, LAST_MS)).unwrap_or(0);
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM` UTC, as the lists of results show them
/// ([`rfc3339`] to the minute, with a space for the `T`).
pub fn date(unix_ms: i64) -> String {
    let full = rfc3339(unix_ms);
    // `YYYY-MM-DDTHH:MM:SSZ`: the date, then the hours and minutes.
    match (full.get(..10), full.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time}"),
        _ => full,
    }
}

/// Which control characters a text keeps; every other one is removed, so that no
/// escape sequence can be formed on the terminal that shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// None: one line of words (a chat line, a name, a typed key).
    Nothing,
    /// Line breaks and tabs (`\n`, `\r`, `\t`): a text of several lines (a line or a
    /// closing text from another instance).
    Layout,
    /// Line breaks (`\n`) alone: a board from another instance. A board travels as the
    /// game's plain text (the session that shows it adds the colours), so nothing
    /// else of the control characters belongs in it.
    Board,
}

/// Whether `c` stays in a text cleaned with `keep`. C0 and C1 controls go (U+009B is a
/// CSI of its own on many terminals), and so do the bidirectional overrides, embeddings,
/// isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which
/// make a line read backwards or hide where one player's words end.
pub fn is_kept(c: char, keep: Keep) -> bool {
    if is_bidi_control(c) {
        return false;
    }
    !c.is_control()
        || match keep {
            Keep::Nothing => false,
            Keep::Layout => matches!(c, '\n' | '\r' | '\t'),
            Keep::Board => c == '\n',
        }
}

/// Whether `text` holds a character that cleaning with `keep` removes. A line of
/// printable ASCII (nearly every line typed) is answered from its bytes alone: this
/// runs on every line of every session.
pub fn has_removed(text: &str, keep: Keep) -> bool {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return false;
    }
    text.chars().any(|c| !is_kept(c, keep))
}

/// A character that changes the direction text is shown in.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// `text` as one line without control characters, each run of white space (of any
/// kind: a no-break space, an ideographic space) one plain space, trimmed: a chat line
/// cannot be padded to push words onto a line of their own and pass them off as the
/// server's (`[teacher to everyone]` at the start of an 80-column line).
pub fn collapsed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if is_kept(c, Keep::Nothing) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// The characters of `text` that stay when it is cleaned with `keep`, in order.
pub fn kept(text: &str, keep: Keep) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(move |&c| is_kept(c, keep))
}

/// `text` as one line without any control character.
pub fn one_line(text: &str) -> String {
    kept(text, Keep::Nothing).collect()
}

/// `text` without control characters other than line breaks and tabs.
pub fn lines(text: &str) -> String {
    kept(text, Keep::Layout).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "player", "players"), "1 player");
        assert_eq!(count(0, "player", "players"), "0 players");
        assert_eq!(count(2, "move", "moves"), "2 moves");
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_short_ones_stay() {
        assert_eq!(wrap("short\n", 10, "  "), "short\n");
        assert_eq!(
            wrap("one two three four\nfive\n", 9, "  "),
            "one two\n  three\n  four\nfive\n"
        );
        assert_eq!(wrap("abcdefghijk", 4, ""), "abcd\nefgh\nijk");
        assert_eq!(wrap("  ab cd ef\n", 8, "    "), "  ab cd\n    ef\n");
        // Wide characters count two columns: ten of them do not fit in 16.
        let wide = "[bo] 漢字漢字漢字漢字漢字";
        assert_eq!(wrap(wide, 16, "  "), "[bo]\n  漢字漢字漢字漢\n  字漢字");
        let long = "Race 1 is open: 2048 seed=3566317091387551262. Others join with: join 1. Type start when everyone is in.\n";
        let wrapped = wrap(long, COLUMNS, "  ");
        assert!(
            wrapped.lines().all(|line| line.len() <= COLUMNS),
            "{wrapped}"
        );
        assert_eq!(wrapped.replace("\n  ", " "), long);
    }

    #[test]
    fn lists_break_between_items() {
        let items: Vec<String> = [
            "arcade (25 levels)",
            "microban (155 levels)",
            "star (201 levels)",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            wrap_list("starpusher: ", &items, 44, "  "),
            "starpusher: arcade (25 levels),\n  microban (155 levels), star (201 levels)\n"
        );
        assert_eq!(
            wrap_list("a: ", &items[..1], 80, ""),
            "a: arcade (25 levels)\n"
        );
        assert_eq!(
            wrap_list("starpusher: ", &items[1..2], 20, "  "),
            "starpusher:\n  microban (155 levels)\n"
        );
    }

    #[test]
    fn fit_cuts_with_dots() {
        assert_eq!(fit("sokoban classic", 20), "sokoban classic");
        assert_eq!(
            fit("2048 seed=12345678901234567890", 16),
            "2048 seed=123..."
        );
        assert_eq!(fit("2048 seed=12345678901234567890", 16).len(), 16);
    }

    #[test]
    fn durations_in_both_grains() {
        let secs = Duration::from_secs;
        assert_eq!(clock(Duration::from_millis(59_999)), "59s");
        assert_eq!(clock(Duration::from_millis(185_000)), "3m05s");
        assert_eq!(clock(Duration::from_millis(3_720_000)), "1h02m");
        assert_eq!(clock(secs(300)), "5m00s");
        assert_eq!(idle(secs(0)), "0s");
        assert_eq!(idle(secs(59)), "59s");
        assert_eq!(idle(secs(61)), "1m");
        assert_eq!(idle(secs(3 * 3600 + 5 * 60 + 9)), "3h05m");
        assert_eq!(clock(Duration::MAX), idle(Duration::MAX));
    }

    #[test]
    fn dates_are_utc_to_the_minute() {
        assert_eq!(date(0), "1970-01-01 00:00");
        assert_eq!(date(1_795_000_000_000), "2026-11-18 11:06");
        assert_eq!(rfc3339(1_795_000_000_000), "2026-11-18T11:06:40Z");
        // Out of humantime's range: the nearest end, never a panic.
        assert_eq!(date(-1), "1970-01-01 00:00");
        assert_eq!(date(i64::MAX), "9999-12-31 23:59");
        assert_eq!(rfc3339(i64::MIN), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn removed_characters_are_found_in_ascii_and_beyond() {
        assert!(!has_removed("d3 w", Keep::Nothing));
        assert!(!has_removed("caf\u{e9}", Keep::Nothing));
        assert!(has_removed("a\tb", Keep::Nothing));
        assert!(!has_removed("a\tb", Keep::Layout));
        assert!(has_removed("x\u{9b}2J", Keep::Nothing));
        assert!(has_removed("x\u{202e}y", Keep::Layout));
    }

    #[test]
    fn bidi_controls_go_and_chat_white_space_collapses() {
        assert_eq!(one_line("a\u{202E}b\u{2066}c\u{2069}d\u{200F}"), "abcd");
        assert_eq!(lines("x\u{202D}y\n"), "xy\n");
        assert_eq!(
            collapsed("  hi \u{a0}\u{3000}  there\t\u{85}you  "),
            "hi there you"
        );
        assert_eq!(collapsed(" \u{202E} "), "");
    }

    #[test]
    fn control_characters_go_but_layout_may_stay() {
        assert_eq!(one_line("bob\u{1b}[2J"), "bob[2J");
        assert_eq!(one_line("a\tb\r\n\u{9b}c\u{7f}"), "abc");
        assert_eq!(lines("hi\u{1b}[2J there\n\u{7}"), "hi[2J there\n");
        assert_eq!(lines("a\tb\r\n\u{9b}c"), "a\tb\r\nc");
        assert!(is_kept('é', Keep::Nothing));
        assert!(!is_kept('\u{85}', Keep::Layout));
        assert_eq!(
            kept("#\u{1b}[2J@\r\t\u{9b}31m$\n", Keep::Board).collect::<String>(),
            "#[2J@31m$\n"
        );
        assert_eq!(
            kept("x\u{0}yz", Keep::Nothing).take(2).collect::<String>(),
            "xy"
        );
    }
}
