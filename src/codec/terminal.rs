//! The player's terminal (SPEC section 10): keys read one at a time (`set keys on`;
//! the line the server edits from them is the session's, `net::tty`), arrow
//! keys, and colour with boards drawn in place (`set color on`). No I/O: bytes and
//! keys in, bytes to send out.
//!
//! Nothing here is used unless the player asks: `nc`, scripts and line-mode telnet see
//! the protocol of sections 1 to 6 byte for byte. Rules (docs/playing.md, "Terminals"):
//! - With keys on, the client sends each key as typed and the server echoes and edits:
//!   backspace and delete erase a character, Ctrl-U the line, Ctrl-W a word, Enter (CR
//!   LF, CR NUL or LF) sends the line, Ctrl-C (or telnet's `IP`) abandons it. Other
//!   control keys (Ctrl-D...) do nothing.
//! - On an empty line, a game's own keys act at once (its row in the table of games
//!   says which): every 2048 key; `w a s d` in Sokoban and Star Pusher, one step. Any
//!   other first key starts a line, so every command stays reachable: `d3` is typed
//!   `D3` (the games read either case) or with a space first.
//! - Arrow keys (`ESC [ A`..`D`, `ESC O A`..`D`) move wherever a direction is meant, in
//!   either mode; a lone ESC or an unknown sequence is ignored.

use std::fmt::Write as _;

use crate::games::world::Glyphs;

/// An arrow key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrow {
    /// Up.
    Up,
    /// Down.
    Down,
    /// Right.
    Right,
    /// Left.
    Left,
}

impl Arrow {
    fn from_final(byte: u8) -> Option<Arrow> {
        match byte {
            b'A' => Some(Arrow::Up),
            b'B' => Some(Arrow::Down),
            b'C' => Some(Arrow::Right),
            b'D' => Some(Arrow::Left),
            _ => None,
        }
    }
}

/// One key as the player pressed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character.
    Char(char),
    /// Enter.
    Enter,
    /// Backspace or delete.
    Erase,
    /// Ctrl-U.
    KillLine,
    /// Ctrl-W.
    KillWord,
    /// Ctrl-C.
    Interrupt,
    /// An arrow key.
    Arrow(Arrow),
}

/// Where the reader is in an escape sequence.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Escape {
    #[default]
    None,
    /// After ESC.
    Esc,
    /// After `ESC [`, with this many parameter bytes so far.
    Csi(u8),
    /// After `ESC O`.
    Ss3,
}

/// The longest control sequence read before it is given up on (a garbled or hostile
/// one must not hold the keys that follow).
const MAX_SEQUENCE: u8 = 16;

/// Reads keys from the bytes of a character-mode client, across reads: an escape
/// sequence or a UTF-8 character split anywhere is still one key.
#[derive(Debug, Default)]
pub struct KeyReader {
    escape: Escape,
    /// The bytes of a UTF-8 character so far.
    utf8: [u8; 4],
    utf8_len: u8,
    /// The last byte was a CR: an LF or NUL after it is part of the same Enter.
    after_cr: bool,
}

impl KeyReader {
    /// The keys in `bytes`, appended to `keys`.
    pub fn feed(&mut self, bytes: &[u8], keys: &mut Vec<Key>) {
        for &byte in bytes {
            if let Some(key) = self.byte(byte) {
                keys.push(key);
            }
        }
    }

    fn byte(&mut self, byte: u8) -> Option<Key> {
        let after_cr = std::mem::take(&mut self.after_cr);
        match self.escape {
            Escape::Esc => {
                self.escape = match byte {
                    b'[' => Escape::Csi(0),
                    b'O' => Escape::Ss3,
                    0x1b => Escape::Esc,
                    // A lone ESC: ignored, and the byte after it read as itself.
                    _ => {
                        self.escape = Escape::None;
                        return self.byte(byte);
                    }
                };
                return None;
            }
            Escape::Csi(count) => {
                return match byte {
                    0x40..=0x7e => {
                        self.escape = Escape::None;
                        if count == 0 {
                            Arrow::from_final(byte).map(Key::Arrow)
                        } else {
                            None
                        }
                    }
                    0x20..=0x3f if count < MAX_SEQUENCE => {
                        self.escape = Escape::Csi(count + 1);
                        None
                    }
                    _ => {
                        self.escape = Escape::None;
                        None
                    }
                };
            }
            Escape::Ss3 => {
                self.escape = Escape::None;
                return Arrow::from_final(byte).map(Key::Arrow);
            }
            Escape::None => {}
        }
        if self.utf8_len > 0 || byte >= 0x80 {
            return self.utf8_byte(byte);
        }
        match byte {
            0x1b => {
                self.escape = Escape::Esc;
                None
            }
            b'\r' => {
                self.after_cr = true;
                Some(Key::Enter)
            }
            b'\n' | 0 if after_cr => None,
            b'\n' => Some(Key::Enter),
            0x08 | 0x7f => Some(Key::Erase),
            0x15 => Some(Key::KillLine),
            0x17 => Some(Key::KillWord),
            0x03 => Some(Key::Interrupt),
            b'\t' => Some(Key::Char(' ')),
            0x20..=0x7e => Some(Key::Char(char::from(byte))),
            // Every other control key (Ctrl-D...): nothing.
            _ => None,
        }
    }

    fn utf8_byte(&mut self, byte: u8) -> Option<Key> {
        let len = usize::from(self.utf8_len);
        self.utf8[len] = byte;
        self.utf8_len += 1;
        let bytes = &self.utf8[..=len];
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                self.utf8_len = 0;
                text.chars()
                    .next()
                    .filter(|&c| crate::text::is_kept(c, crate::text::Keep::Nothing))
                    .map(Key::Char)
            }
            Err(error) if error.error_len().is_none() && bytes.len() < 4 => None,
            // Not UTF-8: dropped.
            Err(_) => {
                self.utf8_len = 0;
                None
            }
        }
    }
}

/// A line typed in line mode, as a game or a command should get it: escape sequences
/// and control characters removed (what the player typed, not what the keys sent), a
/// tab as a space. `None` when Ctrl-C was typed in it: the line is abandoned.
pub fn clean_line(line: &str) -> Option<String> {
    if !line.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Some(line.to_string());
    }
    let mut reader = KeyReader::default();
    let mut keys = Vec::new();
    reader.feed(line.as_bytes(), &mut keys);
    let mut clean = String::with_capacity(line.len());
    for key in keys {
        match key {
            Key::Char(c) => clean.push(c),
            Key::Interrupt => return None,
            Key::Erase => {
                clean.pop();
            }
            _ => {}
        }
    }
    Some(clean)
}

/// The arrow keys of a line that holds nothing else (a line-mode telnet client sends
/// `ESC [ A` and Enter); empty if it holds anything else.
pub fn arrows_only(line: &str) -> Vec<Arrow> {
    if !line.starts_with('\u{1b}') {
        return Vec::new();
    }
    let mut reader = KeyReader::default();
    let mut keys = Vec::new();
    reader.feed(line.as_bytes(), &mut keys);
    let arrows: Vec<Arrow> = keys
        .iter()
        .filter_map(|key| match key {
            Key::Arrow(arrow) => Some(*arrow),
            _ => None,
        })
        .collect();
    if arrows.len() == keys.len() {
        arrows
    } else {
        Vec::new()
    }
}

/// An ANSI colour, as a select-graphic-rendition parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Colour(pub &'static str);

/// How a game's boards are coloured: by the kind of square each glyph draws (Sokoban,
/// Star Pusher), or each tile by its value (2048). A game's row in the table of games
/// names its palette; the colours themselves are all here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Palette {
    /// A board of squares drawn with these glyphs: a row holds a wall and nothing but
    /// the glyphs.
    Squares(&'static Glyphs),
    /// A board of numbered tiles, whose rows start with one of these characters.
    Tiles(&'static [char]),
}

impl Palette {
    /// Whether `line` of the game's text is a row of its board.
    fn board_row(&self, line: &str) -> bool {
        match self {
            Palette::Squares(glyphs) => {
                line.contains(char::from(glyphs.wall)) && line.bytes().all(|b| glyphs.contains(b))
            }
            Palette::Tiles(starts) => line.starts_with(*starts),
        }
    }
}

/// Walls blue, boxes yellow, goals red, boxes on goals green, the player cyan.
const WALL: Colour = Colour("34");
const BOX: Colour = Colour("1;33");
const GOAL: Colour = Colour("31");
const BOX_ON_GOAL: Colour = Colour("1;32");
const PLAYER: Colour = Colour("1;36");

/// The colour of a board glyph of `glyphs`, if it has one (floor has none).
fn glyph_colour(glyphs: &Glyphs, c: char) -> Option<Colour> {
    let glyph = u8::try_from(c).ok()?;
    if glyph == glyphs.wall {
        Some(WALL)
    } else if glyph == glyphs.box_on_floor {
        Some(BOX)
    } else if glyph == glyphs.goal {
        Some(GOAL)
    } else if glyph == glyphs.box_on_goal {
        Some(BOX_ON_GOAL)
    } else if glyph == glyphs.player || glyph == glyphs.player_on_goal {
        Some(PLAYER)
    } else {
        None
    }
}

/// 2048 tiles by value, after the original game's colours (light for small tiles,
/// orange and red in the middle, gold from 128), in the 256-colour palette.
fn tile_colour(value: u64) -> Colour {
    Colour(match value {
        0..=2 => "38;5;255",
        4 => "38;5;230",
        8 => "38;5;215",
        16 => "38;5;209",
        32 => "38;5;203",
        64 => "38;5;196",
        128 => "1;38;5;221",
        256 => "1;38;5;220",
        512 => "1;38;5;214",
        1024 => "1;38;5;178",
        2048 => "1;38;5;226",
        _ => "1;38;5;201",
    })
}

/// Clear the screen and put the cursor at its top left: a board drawn in place.
pub const REDRAW: &str = "\u{1b}[H\u{1b}[2J";

/// A game's reply in colour, its board drawn in place: when the text holds a board,
/// the screen is cleared, the board drawn first and coloured, and the text's other
/// lines (welcome, messages, status) follow below it, then the prompt. Text without a
/// board is left as it is. Also returns the board's width in columns, if it had one.
pub fn paint(text: &str, palette: &Palette) -> (String, Option<usize>) {
    let (body, prompt) = match text.rfind('\n') {
        Some(at) => (&text[..=at], &text[at + 1..]),
        None => ("", text),
    };
    let lines: Vec<&str> = body.lines().collect();
    if !lines.iter().any(|line| palette.board_row(line)) {
        return (text.to_string(), None);
    }
    let mut out = String::with_capacity(text.len() * 2);
    out.push_str(REDRAW);
    let mut width = 0;
    for line in lines.iter().filter(|line| palette.board_row(line)) {
        width = width.max(line.chars().count());
        paint_row(line, palette, &mut out);
        out.push('\n');
    }
    for line in lines.iter().filter(|line| !palette.board_row(line)) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(prompt);
    (out, Some(width))
}

fn paint_row(line: &str, palette: &Palette, out: &mut String) {
    let glyphs = match palette {
        Palette::Squares(glyphs) => glyphs,
        Palette::Tiles(_) => return paint_tiles(line, out),
    };
    let mut current: Option<Colour> = None;
    for c in line.chars() {
        let colour = glyph_colour(glyphs, c);
        if colour != current {
            match colour {
                Some(colour) => {
                    let _ = write!(out, "\u{1b}[{}m", colour.0);
                }
                None => out.push_str("\u{1b}[0m"),
            }
            current = colour;
        }
        out.push(c);
    }
    if current.is_some() {
        out.push_str("\u{1b}[0m");
    }
}

/// A row of 2048 tiles, each number in its value's colour.
fn paint_tiles(line: &str, out: &mut String) {
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(start);
        let end = from
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(from.len());
        let (number, after) = from.split_at(end);
        out.push_str(before);
        let colour = tile_colour(number.parse().unwrap_or(u64::MAX));
        let _ = write!(out, "\u{1b}[{}m{number}\u{1b}[0m", colour.0);
        rest = after;
    }
    out.push_str(rest);
}

/// What a board wider than the player's window adds below it.
pub fn too_wide(board: usize, window: u16) -> Option<String> {
    (board > usize::from(window)).then(|| {
        format!("(This board is {board} columns wide and your window {window}: widen it to see it whole.)\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(chunks: &[&[u8]]) -> Vec<Key> {
        let mut reader = KeyReader::default();
        let mut keys = Vec::new();
        for chunk in chunks {
            reader.feed(chunk, &mut keys);
        }
        keys
    }

    #[test]
    fn each_key() {
        assert_eq!(
            keys_of(&[b"a\x7f\x08\x15\x17\x03\x04\tZ"]),
            [
                Key::Char('a'),
                Key::Erase,
                Key::Erase,
                Key::KillLine,
                Key::KillWord,
                Key::Interrupt,
                Key::Char(' '),
                Key::Char('Z')
            ]
        );
    }

    #[test]
    fn enter_is_cr_lf_cr_nul_or_lf_once_each() {
        assert_eq!(
            keys_of(&[b"a\r\nb\r\0c\nd\r", b"\n"]),
            [
                Key::Char('a'),
                Key::Enter,
                Key::Char('b'),
                Key::Enter,
                Key::Char('c'),
                Key::Enter,
                Key::Char('d'),
                Key::Enter
            ]
        );
        assert_eq!(keys_of(&[b"\r\r"]), [Key::Enter, Key::Enter]);
    }

    #[test]
    fn arrows_in_both_forms_split_anywhere() {
        let all = b"\x1b[A\x1bOB\x1b[C\x1bOD";
        let expected = [
            Key::Arrow(Arrow::Up),
            Key::Arrow(Arrow::Down),
            Key::Arrow(Arrow::Right),
            Key::Arrow(Arrow::Left),
        ];
        for split in 0..=all.len() {
            let (first, second) = all.split_at(split);
            assert_eq!(keys_of(&[first, second]), expected, "split at {split}");
        }
        // Byte by byte.
        let bytes: Vec<&[u8]> = all.chunks(1).collect();
        assert_eq!(keys_of(&bytes), expected);
    }

    #[test]
    fn a_lone_escape_or_an_unknown_sequence_is_ignored() {
        assert_eq!(keys_of(&[b"\x1bx"]), [Key::Char('x')]);
        assert_eq!(keys_of(&[b"\x1b\x1b[A"]), [Key::Arrow(Arrow::Up)]);
        assert_eq!(keys_of(&[b"\x1b[1;5Cy"]), [Key::Char('y')]);
        assert_eq!(keys_of(&[b"\x1b[2~z"]), [Key::Char('z')]);
        assert_eq!(keys_of(&[b"\x1bOQq"]), [Key::Char('q')]);
        // A sequence that never ends is given up on, and what follows is read.
        let mut endless = b"\x1b[".to_vec();
        endless.extend(std::iter::repeat_n(b'1', 40));
        endless.push(b'k');
        let keys = keys_of(&[&endless]);
        assert!(keys.ends_with(&[Key::Char('k')]), "{keys:?}");
    }

    #[test]
    fn utf8_split_across_reads_is_one_key() {
        let text = "é€".as_bytes();
        for split in 0..=text.len() {
            let (first, second) = text.split_at(split);
            assert_eq!(keys_of(&[first, second]), [Key::Char('é'), Key::Char('€')]);
        }
        assert_eq!(keys_of(&[b"\xffa"]), [Key::Char('a')]);
    }

    #[test]
    fn lines_lose_control_characters_and_ctrl_c_abandons_them() {
        assert_eq!(clean_line("help").as_deref(), Some("help"));
        assert_eq!(clean_line("\u{4}help").as_deref(), Some("help"));
        assert_eq!(clean_line("he\u{1b}[2Jlp").as_deref(), Some("help"));
        assert_eq!(clean_line("say\thi").as_deref(), Some("say hi"));
        assert_eq!(clean_line("hex\u{7f}lp").as_deref(), Some("help"));
        assert_eq!(clean_line("oops\u{3}"), None);
        assert_eq!(arrows_only("\u{1b}[A\u{1b}OD"), [Arrow::Up, Arrow::Left]);
        assert!(arrows_only("\u{1b}[Ax").is_empty());
        assert!(arrows_only("d3").is_empty());
    }

    /// Sokoban's glyphs: only `#` and `P` are on the boards below.
    const SOKOBAN: Glyphs = Glyphs {
        wall: b'#',
        floor: b'.',
        goal: b'-',
        box_on_floor: b'+',
        box_on_goal: b'O',
        player: b'P',
        player_on_goal: b'P',
    };

    fn sokoban_palette() -> Palette {
        Palette::Squares(&SOKOBAN)
    }

    #[test]
    fn a_board_is_drawn_in_place_in_colour_with_the_rest_below() {
        let text = "You cannot move left.\n###\n#P#\n###\nStatus\nEnter command: ";
        let (painted, width) = paint(text, &sokoban_palette());
        assert_eq!(width, Some(3));
        assert_eq!(
            painted,
            "\u{1b}[H\u{1b}[2J\u{1b}[34m###\u{1b}[0m\n\u{1b}[34m#\u{1b}[1;36mP\u{1b}[34m#\u{1b}[0m\n\u{1b}[34m###\u{1b}[0m\nYou cannot move left.\nStatus\nEnter command: "
        );
        // Text without a board is left alone.
        let (plain, width) = paint("Invalid command\nEnter command: ", &sokoban_palette());
        assert_eq!(plain, "Invalid command\nEnter command: ");
        assert_eq!(width, None);
        assert_eq!(too_wide(3, 80), None);
        assert!(too_wide(100, 80).unwrap().contains("100 columns"));
    }

    #[test]
    fn tiles_are_coloured_by_value() {
        let palette = Palette::Tiles(&['|']);
        let (painted, _) = paint("|  2|2048|\n> ", &palette);
        assert_eq!(
            painted,
            "\u{1b}[H\u{1b}[2J|  \u{1b}[38;5;255m2\u{1b}[0m|\u{1b}[1;38;5;226m2048\u{1b}[0m|\n> "
        );
    }
}
