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
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
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

/// A square's or a tile's colours: a foreground on a background of its own, from the
/// 256-colour palette's cube and grey ramp (16 to 255), which every 256-colour terminal
/// shows alike; the 16 system colours (0 to 15) are the terminal's theme, so the same
/// index can be light on one screen and dark on the next. With a background of its
/// own, a square reads on a light terminal and on a dark one alike (a test checks each
/// pair's contrast).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Colour {
    /// The glyph's colour, a 256-colour index.
    pub fg: u8,
    /// The square's colour, a 256-colour index.
    pub bg: u8,
    /// Drawn in bold.
    pub bold: bool,
}

impl Colour {
    const fn new(fg: u8, bg: u8) -> Colour {
        Colour {
            fg,
            bg,
            bold: false,
        }
    }

    const fn bold(fg: u8, bg: u8) -> Colour {
        Colour { fg, bg, bold: true }
    }

    /// Append the escape sequence that starts drawing in this colour.
    fn start(self, out: &mut String) {
        let bold = if self.bold { "1;" } else { "" };
        let _ = write!(out, "\u{1b}[{bold}38;5;{};48;5;{}m", self.fg, self.bg);
    }
}

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

/// Black and white, from the cube (16 and 231 are the same on every terminal).
const BLACK: u8 = 16;
const WHITE: u8 = 231;

/// Walls blue, boxes dark gold (a crate), goals red, boxes on goals green, the player
/// teal: each a block with its glyph in black or white on it, mid-tones that stand
/// apart from a white terminal and from a black one.
const WALL: Colour = Colour::new(WHITE, 25);
const BOX: Colour = Colour::bold(BLACK, 136);
const GOAL: Colour = Colour::new(WHITE, 160);
const BOX_ON_GOAL: Colour = Colour::bold(WHITE, 28);
const PLAYER: Colour = Colour::bold(BLACK, 31);

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

/// 2048's dark grey numbers, on the light tiles.
const TILE_INK: u8 = 241;

/// 2048 tiles by value, after the original game's colours: a coloured tile with its
/// number on it, light for 2 and 4 (grey numbers), orange and red to 64, gold from 128
/// (black numbers, bold), dark grey past 2048 (white numbers).
fn tile_colour(value: u64) -> Colour {
    match value {
        0..=2 => Colour::new(TILE_INK, 255),
        4 => Colour::new(TILE_INK, 230),
        8 => Colour::new(BLACK, 215),
        16 => Colour::new(BLACK, 209),
        32 => Colour::new(BLACK, 203),
        64 => Colour::new(BLACK, 196),
        128 => Colour::bold(BLACK, 221),
        256 => Colour::bold(BLACK, 220),
        512 => Colour::bold(BLACK, 214),
        1024 => Colour::bold(BLACK, 178),
        2048 => Colour::bold(BLACK, 226),
        _ => Colour::bold(WHITE, 237),
    }
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
                // From a bold colour to a plain one, bold is turned off first.
                Some(colour) => {
                    if current.is_some_and(|current| current.bold && !colour.bold) {
                        out.push_str("\u{1b}[0m");
                    }
                    colour.start(out);
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

/// A row of 2048 tiles, each tile in its value's colours: the whole cell (its number
/// and the spaces around it, up to the grid's lines), so a tile is a block of colour.
/// Empty cells and the grid's lines keep the terminal's colours.
fn paint_tiles(line: &str, out: &mut String) {
    let mut rest = line;
    while let Some(digit) = rest.find(|c: char| c.is_ascii_digit()) {
        // The cell: the spaces before the number, the number, the spaces after it.
        let start = rest[..digit].trim_end_matches(' ').len();
        let after_number = rest[digit..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |at| digit + at);
        let end = rest[after_number..]
            .find(|c: char| c != ' ')
            .map_or(rest.len(), |at| after_number + at);
        out.push_str(&rest[..start]);
        let number = &rest[digit..after_number];
        tile_colour(number.parse().unwrap_or(u64::MAX)).start(out);
        let _ = write!(out, "{}\u{1b}[0m", &rest[start..end]);
        rest = &rest[end..];
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

    /// Glyphs as Sokoban's: only `#` and `P` are on the boards below.
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
        let wall = "\u{1b}[38;5;231;48;5;25m";
        let player = "\u{1b}[1;38;5;16;48;5;31m";
        assert_eq!(
            painted,
            format!(
                "\u{1b}[H\u{1b}[2J{wall}###\u{1b}[0m\n{wall}#{player}P\u{1b}[0m{wall}#\u{1b}[0m\n{wall}###\u{1b}[0m\nYou cannot move left.\nStatus\nEnter command: "
            )
        );
        // Text without a board is left alone.
        let (plain, width) = paint("Invalid command\nEnter command: ", &sokoban_palette());
        assert_eq!(plain, "Invalid command\nEnter command: ");
        assert_eq!(width, None);
        assert_eq!(too_wide(3, 80), None);
        assert!(too_wide(100, 80).unwrap().contains("100 columns"));
    }

    #[test]
    fn tiles_are_coloured_by_value_the_whole_cell() {
        let palette = Palette::Tiles(&['|', '│']);
        let (painted, _) = paint("|  2|2048|\n> ", &palette);
        assert_eq!(
            painted,
            "\u{1b}[H\u{1b}[2J|\u{1b}[38;5;241;48;5;255m  2\u{1b}[0m|\u{1b}[1;38;5;16;48;5;226m2048\u{1b}[0m|\n> "
        );
        // A row as 2048 draws it: each number with its spaces, empty cells left alone.
        let (painted, _) = paint("│   4 │     │  16 │\n> ", &palette);
        assert_eq!(
            painted,
            "\u{1b}[H\u{1b}[2J│\u{1b}[38;5;241;48;5;230m   4 \u{1b}[0m│     │\u{1b}[38;5;16;48;5;209m  16 \u{1b}[0m│\n> "
        );
    }

    /// The red, green and blue of a colour of the 256-colour palette, as xterm draws
    /// it: the 16 system colours, a 6x6x6 cube (levels 0, 95, 135, 175, 215, 255) and
    /// a ramp of 24 greys (8, 18, ... 238).
    fn rgb(index: u8) -> [u8; 3] {
        const SYSTEM: [[u8; 3]; 16] = [
            [0, 0, 0],
            [205, 0, 0],
            [0, 205, 0],
            [205, 205, 0],
            [0, 0, 238],
            [205, 0, 205],
            [0, 205, 205],
            [229, 229, 229],
            [127, 127, 127],
            [255, 0, 0],
            [0, 255, 0],
            [255, 255, 0],
            [92, 92, 255],
            [255, 0, 255],
            [0, 255, 255],
            [255, 255, 255],
        ];
        const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
        match index {
            0..=15 => SYSTEM[usize::from(index)],
            16..=231 => {
                let cube = usize::from(index - 16);
                [LEVELS[cube / 36], LEVELS[cube / 6 % 6], LEVELS[cube % 6]]
            }
            232..=255 => {
                let grey = 8 + 10 * (index - 232);
                [grey, grey, grey]
            }
        }
    }

    /// WCAG 2's relative luminance of an sRGB colour.
    fn luminance([r, g, b]: [u8; 3]) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    /// WCAG 2's contrast ratio of two colours, 1 (the same) to 21 (black on white).
    fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    #[test]
    fn the_palette_and_contrast_are_computed_right() {
        assert_eq!(rgb(16), [0, 0, 0]);
        assert_eq!(rgb(231), [255, 255, 255]);
        assert_eq!(rgb(196), [255, 0, 0]);
        assert_eq!(rgb(25), [0, 95, 175]);
        assert_eq!(rgb(232), [8, 8, 8]);
        assert_eq!(rgb(255), [238, 238, 238]);
        assert!((contrast(rgb(16), rgb(231)) - 21.0).abs() < 1e-9);
        assert!((contrast(rgb(100), rgb(100)) - 1.0).abs() < 1e-9);
        // The colours this replaced: the 2 on a white terminal, the wall on black.
        assert!(contrast(rgb(255), [255, 255, 255]) < 1.2);
        assert!(contrast(rgb(4), [0, 0, 0]) < 3.0);
    }

    /// WCAG's AA level for text: a number or a glyph must read on its square.
    const TEXT: f64 = 4.5;
    /// WCAG's level for shapes (1.4.11, non-text contrast): a square, a block of its
    /// own colour, must stand apart from the terminal's background, white or black.
    const SHAPE: f64 = 3.0;

    /// Every colour is a pair from the cube and greys (never the terminal's themed 16),
    /// with its glyph readable on its square.
    fn check_pair(what: &str, colour: Colour) {
        assert!(
            colour.fg >= 16 && colour.bg >= 16,
            "{what}: {colour:?} uses a system colour, which the terminal's theme changes"
        );
        let ratio = contrast(rgb(colour.fg), rgb(colour.bg));
        assert!(
            ratio >= TEXT,
            "{what}: {colour:?} has contrast {ratio:.2}, under {TEXT}"
        );
    }

    #[test]
    fn every_tile_number_reads_on_its_tile() {
        let mut value = 2;
        while value <= 1 << 17 {
            check_pair(&format!("tile {value}"), tile_colour(value));
            value *= 2;
        }
    }

    #[test]
    fn every_square_reads_on_a_light_and_a_dark_terminal() {
        let white = [255, 255, 255];
        let black = [0, 0, 0];
        for (game, glyphs) in [
            ("sokoban", &crate::games::sokoban::GLYPHS),
            ("starpusher", &crate::games::starpusher::GLYPHS),
        ] {
            for (what, glyph) in [
                ("wall", glyphs.wall),
                ("box", glyphs.box_on_floor),
                ("goal", glyphs.goal),
                ("box on goal", glyphs.box_on_goal),
                ("player", glyphs.player),
                ("player on goal", glyphs.player_on_goal),
            ] {
                let what = format!("{game} {what}");
                let colour = glyph_colour(glyphs, char::from(glyph)).expect("a colour");
                check_pair(&what, colour);
                for (terminal, background) in [("white", white), ("black", black)] {
                    let ratio = contrast(rgb(colour.bg), background);
                    assert!(
                        ratio >= SHAPE,
                        "{what}: square {} has contrast {ratio:.2} on a {terminal} terminal",
                        colour.bg
                    );
                }
            }
        }
    }
}
