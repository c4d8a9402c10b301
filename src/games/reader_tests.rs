//! The property of reader mode over all four games (SPEC section 10): whatever lines a
//! player types, every reply and every description in reader mode reads as words
//! ([`reader::problem`]: no box drawing, no ESC or other control, no line of symbols),
//! descriptions keep within [`reader::WIDTH`] columns, and the same lines with reader
//! mode off play the same game: the same statuses, progress and results. Reader mode
//! changes words only.

use std::sync::Arc;

use proptest::prelude::*;

use super::starpusher::{xsb, StarPusher};
use super::twenty48::render::Style;
use super::twenty48::{Settings, Twenty48};
use super::wumpus::{parse_cave, Wumpus};
use super::{reader, sokoban, Game, Memory, Status};

/// Lines a player might type, in the style of `records::recording`'s: every game's
/// commands, some of the others', and nonsense.
const WORDS: &[&str] = &[
    "w1",
    "a2",
    "s1",
    "d3",
    "d40",
    "d200",
    "w0",
    "w",
    "a",
    "s",
    "d",
    "W",
    "k",
    "h",
    "j",
    "l",
    "b",
    "r",
    "u",
    "z",
    "move forward",
    "move forward",
    "turn left",
    "turn right",
    "grab",
    "shoot",
    "climb",
    "undo",
    "redo",
    "next",
    "prev",
    "level 2",
    "level 9",
    "reset",
    "help",
    "lurd rl",
    "lurd rrUUl",
    "lurd RR",
    "save x",
    "",
    "nonsense",
    "x3",
    "d-1",
    "e",
    "q",
    "quit",
];

/// The classic Sokoban level, and a wide one whose rows need more than one line.
const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

/// Three Star Pusher levels: a corridor, a titled room, a wide room.
const COLLECTION: &str = "; 1\n#######\n#@ $ .#\n#######\n\n; 2\nTitle: Corner\nAuthor: Test\n\
                          ######\n#.   #\n#  $ #\n#@   #\n######\n\n; 3\n\
                          ##################################################\n\
                          #@ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ $ .   . #\n\
                          #  # # # # # # # # # # # # # # # # # # # # . . . #\n\
                          #      . . . . . . . . . . . . . . .             #\n\
                          ##################################################\n";

/// Wumpus worlds: the classic one, and one with blocked rooms and the gold in hand.
const CLASSIC_WORLD: &str =
    "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";
const BLOCKED_WORLD: &str =
    "dim 5 3\nplayer 1 1 0 1 1\nwumpus 4 2\npit 3 0\nexit 0 0\nblocked 2 1\nblocked 1 0\n";

/// A wide Sokoban level, 160 columns: a box on a goal far to the player's right, so
/// that `d200` walks and pushes it off to column 158 (a sentence wider than a line),
/// and a row of boxes and goals below.
fn wide_level() -> String {
    let below: String = (0..158)
        .map(|column| match column % 6 {
            0 => '+',
            3 => '-',
            _ => '.',
        })
        .collect();
    format!(
        "{wall}\n#P{}O{}#\n#{below}#\n{wall}\n",
        ".".repeat(98),
        ".".repeat(58),
        wall = "#".repeat(160)
    )
}

/// Game number `which` as it starts, with the 2048 board's `size`, `style` and
/// `seed`.
fn make(which: usize, size: usize, style: Style, seed: u64) -> Box<dyn Game> {
    let collection = || {
        let reading = xsb::parse_collection(COLLECTION);
        assert!(reading.skipped.is_empty(), "{:?}", reading.skipped);
        Arc::new(reading.collection)
    };
    match which {
        0 => Box::new(sokoban::Sokoban::new(Arc::new(
            sokoban::parse_level(CLASSIC).unwrap(),
        ))),
        1 => Box::new(sokoban::Sokoban::new(Arc::new(
            sokoban::parse_level(&wide_level()).unwrap(),
        ))),
        2 => Box::new(StarPusher::new("test", collection(), 1).unwrap()),
        3 => Box::new(
            StarPusher::new("test", collection(), 3)
                .unwrap()
                .one_level(),
        ),
        4 => {
            let settings = Settings {
                size,
                style,
                ..Settings::default()
            };
            Box::new(Twenty48::with_seed(settings, seed).unwrap())
        }
        5 => Box::new(Wumpus::new(parse_cave(CLASSIC_WORLD).unwrap())),
        _ => Box::new(Wumpus::new(parse_cave(BLOCKED_WORLD).unwrap())),
    }
}

/// Why `text` is not fit for a reader, if it is not: what [`reader::problem`] finds,
/// and for a description (`whole`) a line wider than [`reader::WIDTH`].
fn unfit(text: &str, whole: bool) -> Option<String> {
    if let Some(problem) = reader::problem(text) {
        return Some(problem.to_string());
    }
    let wide = text
        .lines()
        .find(|line| line.chars().count() > reader::WIDTH);
    match wide {
        Some(line) if whole => Some(format!("wider than {}: {line:?}", reader::WIDTH)),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn reader_mode_reads_as_words_and_plays_the_same_game(
        which in 0usize..7,
        size in 3usize..=8,
        ascii in any::<bool>(),
        seed in any::<u64>(),
        picks in proptest::collection::vec(0usize..WORDS.len(), 0..50),
    ) {
        let style = if ascii { Style::Ascii } else { Style::Box };
        let mut words = make(which, size, style, seed);
        let mut drawn = make(which, size, style, seed);
        words.set_reader(true);
        let (mut memory, mut drawn_memory) = (Memory::default(), Memory::default());
        let said = words.start(&mut memory);
        let shown = drawn.start(&mut drawn_memory);
        let mut replies = vec![said.clone()];
        let mut shown_replies = vec![shown.clone()];
        prop_assert_eq!(&said.status, &shown.status);
        for pick in picks {
            if replies.last().is_some_and(|reply| reply.status == Status::Ended) {
                break;
            }
            let line = WORDS[pick];
            let said = words.handle(line, &mut memory);
            let shown = drawn.handle(line, &mut drawn_memory);
            prop_assert_eq!(&said.status, &shown.status, "{}", line);
            prop_assert_eq!(words.progress(), drawn.progress(), "{}", line);
            prop_assert_eq!(words.take_finish(), drawn.take_finish(), "{}", line);
            prop_assert_eq!(words.state(), drawn.state(), "{}", line);
            if said.status == Status::Playing {
                let look = words.describe(&memory);
                prop_assert_eq!(unfit(&look, true), None, "{}", look);
                prop_assert!(look.ends_with(super::PROMPT), "{}", look);
                if let Some(place) = words.where_is() {
                    prop_assert_eq!(unfit(&place, true), None, "{}", place);
                    prop_assert!(!place.contains('\n'), "{}", place);
                }
            }
            replies.push(said);
            shown_replies.push(shown);
        }
        for (said, shown) in replies.iter().zip(&shown_replies) {
            prop_assert_eq!(unfit(&said.text, false), None, "{}", said.text);
            // Reader mode's own words keep within the width; a game's message that
            // is wider says the same with a reader or without.
            for line in said.text.lines() {
                let own = !shown.text.lines().any(|shown| shown == line);
                prop_assert!(
                    !own || line.chars().count() <= reader::WIDTH,
                    "wider than {}: {:?}", reader::WIDTH, line
                );
            }
        }
        prop_assert_eq!(words.end_of_input(), drawn.end_of_input());
    }
}

/// The property's games start in words, and with reader mode off exactly as before:
/// a check that the property above looks at reader mode at all.
#[test]
fn every_game_of_the_property_starts_in_words() {
    for which in 0..7 {
        let mut words = make(which, 4, Style::Box, 1);
        let mut drawn = make(which, 4, Style::Box, 1);
        words.set_reader(true);
        let said = words.start(&mut Memory::default()).text;
        let shown = drawn.start(&mut Memory::default()).text;
        assert_eq!(unfit(&said, false), None, "{said}");
        assert_ne!(
            said, shown,
            "{which}: reader mode said what the board shows"
        );
        // The drawn games (all but the wumpus) fail the check without a reader.
        if which < 5 {
            assert!(unfit(&shown, false).is_some(), "{shown}");
        }
        assert!(said.contains("You ") || said.contains("row 1: "), "{said}");
    }
}
