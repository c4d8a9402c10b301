//! Tests of the 2048 game loop: arguments, keys, messages, undo, win and game over.
//! The rules themselves are tested in `board.rs`.

use proptest::prelude::*;

use super::*;
use crate::games::Status;

fn game(seed: u64) -> Twenty48 {
    Twenty48::with_seed(Settings::default(), seed).unwrap()
}

fn with_board(rows: &[&[u128]], win: u128) -> Twenty48 {
    let board = Board::from_values(rows).unwrap();
    let settings = Settings {
        size: board.size(),
        win: Tile::from_value(win).unwrap(),
        style: Style::Ascii,
    };
    let mut game = Twenty48::with_seed(settings, 1).unwrap();
    game.board = board;
    game
}

fn count_tiles(board: &Board) -> usize {
    board.tiles().count()
}

#[test]
fn start_shows_welcome_board_status_and_prompt() {
    let mut game = game(42);
    let reply = game.start(&mut Memory::default());
    assert_eq!(reply.status, Status::Playing);
    let board = render::render(game.board(), Style::Box);
    assert_eq!(
        reply.text,
        format!(
            "Welcome to 2048! Join equal tiles to make 2048.\n{KEYS}{board}Score: 0  Best: 0  Step: 0\nEnter command: "
        )
    );
    assert_eq!(count_tiles(game.board()), 2);
    assert!(game
        .board()
        .tiles()
        .all(|tile| tile == Tile::TWO || tile == Tile::FOUR));
}

#[test]
fn keys_wasd_and_vim_in_either_case() {
    let cases = [
        ("w", Command::Move(Direction::Up)),
        ("K", Command::Move(Direction::Up)),
        ("a", Command::Move(Direction::Left)),
        ("h", Command::Move(Direction::Left)),
        ("S", Command::Move(Direction::Down)),
        ("j", Command::Move(Direction::Down)),
        ("d", Command::Move(Direction::Right)),
        ("l", Command::Move(Direction::Right)),
        ("b", Command::Back),
        ("R", Command::Restart),
        ("q", Command::Quit),
    ];
    for (line, command) in cases {
        assert_eq!(Command::parse(line), Some(command), "{line:?}");
    }
    for line in ["", "x", "ww", "up", "quit", "é", "1"] {
        assert_eq!(Command::parse(line), None, "{line:?}");
    }
}

#[test]
fn unknown_key_is_an_illegal_operation() {
    let mut game = game(1);
    let before = *game.board();
    let reply = game.handle("x", &mut Memory::default());
    assert_eq!(reply.text, "Illegal operation!\nEnter command: ");
    assert_eq!(reply.status, Status::Playing);
    assert_eq!(*game.board(), before);
}

#[test]
fn a_move_with_no_effect_is_refused_and_spawns_nothing() {
    let mut game = with_board(&[&[2, 4, 0], &[0, 0, 0], &[0, 0, 0]], 2048);
    let reply = game.handle("a", &mut Memory::default());
    assert_eq!(reply.text, "This move has no effect.\nEnter command: ");
    assert_eq!(game.board().values(), [[2, 4, 0], [0, 0, 0], [0, 0, 0]]);
    assert_eq!(game.step(), 0);
}

#[test]
fn a_move_slides_merges_scores_and_spawns_one_tile() {
    let mut game = with_board(&[&[2, 2, 4], &[0, 0, 0], &[0, 0, 0]], 2048);
    let mut memory = Memory::default();
    let reply = game.handle("h", &mut memory);
    let values = game.board().values();
    assert_eq!(values[0][..2], [4, 4]);
    assert_eq!(count_tiles(game.board()), 3);
    assert_eq!(game.score(), 4);
    assert_eq!(game.step(), 1);
    assert_eq!(memory.part::<Best>().0, 4);
    let board = render::render(game.board(), Style::Ascii);
    assert_eq!(
        reply.text,
        format!("{board}Score: 4  Best: 4  Step: 1\nEnter command: ")
    );
}

#[test]
fn back_undoes_moves_one_by_one_then_says_nothing_to_undo() {
    let mut game = game(3);
    let mut memory = Memory::default();
    let start = *game.board();
    let reply = game.handle("b", &mut memory);
    assert_eq!(reply.text, "Nothing to undo.\nEnter command: ");
    let mut boards = vec![start];
    for key in ["a", "w", "d", "s", "a", "w"] {
        let before = *game.board();
        game.handle(key, &mut memory);
        if *game.board() != before {
            boards.push(*game.board());
        }
    }
    assert_eq!(game.step() as usize, boards.len() - 1);
    while let Some(board) = boards.pop() {
        assert_eq!(*game.board(), board);
        let reply = game.handle("b", &mut memory);
        if boards.is_empty() {
            assert_eq!(reply.text, "Nothing to undo.\nEnter command: ");
        } else {
            assert!(reply
                .text
                .ends_with(&format!("Step: {}\nEnter command: ", boards.len() - 1)));
        }
    }
    assert_eq!((game.score(), game.step()), (0, 0));
}

#[test]
fn best_survives_undo_and_restart() {
    let mut game = with_board(&[&[8, 8, 0], &[0, 0, 0], &[0, 0, 0]], 2048);
    let mut memory = Memory::default();
    memory.part::<Best>().0 = 10;
    let reply = game.handle("a", &mut memory);
    assert!(
        reply.text.contains("Score: 16  Best: 16  Step: 1\n"),
        "{}",
        reply.text
    );
    let reply = game.handle("b", &mut memory);
    assert!(
        reply.text.contains("Score: 0  Best: 16  Step: 0\n"),
        "{}",
        reply.text
    );
    let reply = game.handle("r", &mut memory);
    assert!(
        reply.text.contains("Score: 0  Best: 16  Step: 0\n"),
        "{}",
        reply.text
    );
    assert_eq!(count_tiles(game.board()), 2);
    let reply = game.handle("b", &mut memory);
    assert_eq!(reply.text, "Nothing to undo.\nEnter command: ");
    assert_eq!(memory.part::<Best>().0, 16);
}

#[test]
fn you_win_once_then_play_goes_on() {
    let mut game = with_board(&[&[4, 4, 0], &[0, 0, 0], &[0, 0, 0]], 8);
    let mut memory = Memory::default();
    let reply = game.handle("a", &mut memory);
    assert!(
        reply
            .text
            .ends_with("Score: 8  Best: 8  Step: 1\nYou win!\nEnter command: "),
        "{}",
        reply.text
    );
    assert_eq!(reply.status, Status::Playing);
    assert!(game.has_won());
    let mut moved = false;
    for key in ["d", "s", "a", "w"] {
        let reply = game.handle(key, &mut memory);
        assert!(!reply.text.contains("You win!"), "{}", reply.text);
        moved |= reply.text.contains("Step: 2");
    }
    assert!(moved, "play goes on after the win");
}

#[test]
fn win_four_can_be_won_on_the_opening_board() {
    let settings = Settings {
        win: Tile::FOUR,
        ..Settings::default()
    };
    let seed = (0..1000)
        .find(|&seed| {
            let game = Twenty48::with_seed(settings, seed).unwrap();
            let has_four = game.board().tiles().any(|tile| tile == Tile::FOUR);
            has_four
        })
        .unwrap();
    let mut game = Twenty48::with_seed(settings, seed).unwrap();
    let reply = game.start(&mut Memory::default());
    assert!(reply.text.ends_with("Step: 0\nYou win!\nEnter command: "));
}

#[test]
fn game_over_then_only_back_restart_and_quit_work() {
    // After the right move the only empty cell is (2,0), between 16 and 8: whatever
    // spawns there, no neighbours are equal.
    let mut game = with_board(&[&[2, 4, 2], &[16, 2, 4], &[8, 32, 0]], 2048);
    let mut memory = Memory::default();
    let reply = game.handle("d", &mut memory);
    assert!(
        reply.text.ends_with("Step: 1\nGame over!\nEnter command: "),
        "{}",
        reply.text
    );
    assert!(game.is_over());
    let over = *game.board();
    for key in ["w", "a", "s", "d", "k", "h", "j", "l"] {
        let reply = game.handle(key, &mut memory);
        assert_eq!(
            reply.text,
            "No move is possible: b goes back, r restarts, q quits.\nEnter command: "
        );
        assert_eq!(*game.board(), over);
    }
    let reply = game.handle("x", &mut memory);
    assert_eq!(reply.text, "Illegal operation!\nEnter command: ");
    let reply = game.handle("b", &mut memory);
    assert!(!reply.text.contains("Game over!"));
    assert_eq!(game.board().values(), [[2, 4, 2], [16, 2, 4], [8, 32, 0]]);
    game.handle("d", &mut memory);
    assert!(game.is_over());
    let reply = game.handle("r", &mut memory);
    assert!(!reply.text.contains("Game over!"));
    assert_eq!(count_tiles(game.board()), 2);
    assert_eq!(game.handle("q", &mut memory), Reply::ended("Bye!\n".into()));
}

#[test]
fn win_and_game_over_in_one_move() {
    // Row 2 becomes [8, 32, _]; the spawn at (2,2) sits next to 32 and 8, so whatever
    // it is, no move is left.
    let mut game = with_board(&[&[2, 4, 2], &[16, 2, 8], &[4, 4, 32]], 8);
    let reply = game.handle("a", &mut Memory::default());
    assert!(
        reply
            .text
            .ends_with("Score: 8  Best: 8  Step: 1\nYou win!\nGame over!\nEnter command: "),
        "{}",
        reply.text
    );
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let play = |seed| {
        let mut game = game(seed);
        let mut memory = Memory::default();
        let mut text = game.start(&mut memory).text;
        for key in "wasdwasdrwasdbbq".chars() {
            text.push_str(&game.handle(&key.to_string(), &mut memory).text);
        }
        text
    };
    assert_eq!(play(9), play(9));
    assert_ne!(play(9), play(10));
}

#[test]
fn eight_by_eight_with_huge_tiles() {
    let settings = Settings {
        size: 8,
        ..Settings::default()
    };
    let mut game = Twenty48::with_seed(settings, 5).unwrap();
    let mut board = Board::empty(8).unwrap();
    board.set(0, 0, Tile::from_exponent(64));
    board.set(0, 1, Tile::from_exponent(64));
    game.board = board;
    game.score = u128::from(u64::MAX);
    let mut memory = Memory::default();
    let reply = game.handle("a", &mut memory);
    assert_eq!(game.score(), u128::from(u64::MAX) + (1u128 << 65));
    assert!(
        reply.text.contains("│36893488147419103232 │"),
        "{}",
        reply.text
    );
    assert_eq!(memory.part::<Best>().0, game.score());
}

#[test]
fn args_in_any_order_and_case() {
    let (settings, seed) = parse_args(&["STYLE=Ascii", "seed=12", "Win=64", "size=5"]).unwrap();
    assert_eq!(settings.size, 5);
    assert_eq!(settings.win.value(), 64);
    assert_eq!(settings.style, Style::Ascii);
    assert_eq!(seed, Some(12));
    assert_eq!(parse_args(&[]).unwrap(), (Settings::default(), None));
    assert_eq!(Settings::default().win.value(), 2048);
    let (settings, _) = parse_args(&["win=36893488147419103232", "size=8"]).unwrap();
    assert_eq!(settings.win.exponent(), 65);
}

#[test]
fn the_level_names_the_win_value_unless_it_is_the_default() {
    let level = |args: &[&str]| parse_args(args).unwrap().0.level();
    assert_eq!(level(&[]), "size=4");
    assert_eq!(level(&["win=2048", "style=ascii", "seed=3"]), "size=4");
    assert_eq!(level(&["size=5"]), "size=5");
    assert_eq!(level(&["WIN=064"]), "size=4 win=64");
    assert_eq!(level(&["win=4096", "size=6"]), "size=6 win=4096");
}

#[test]
fn bad_args_say_what_is_allowed() {
    let error = |args: &[&str]| parse_args(args).unwrap_err().to_string();
    assert_eq!(error(&["size=9"]), "size must be 3 to 8.");
    assert_eq!(error(&["size=x"]), "size must be 3 to 8.");
    assert_eq!(
        error(&["win=100"]),
        "win must be a power of two from 4 to 131072 on a 4x4 board."
    );
    assert_eq!(
        error(&["win=2", "size=3"]),
        "win must be a power of two from 4 to 1024 on a 3x3 board."
    );
    assert_eq!(
        error(&["win=2048", "size=3"]),
        "win must be a power of two from 4 to 1024 on a 3x3 board."
    );
    assert_eq!(
        error(&["seed=-1"]),
        "seed must be a whole number from 0 to 18446744073709551615."
    );
    assert_eq!(error(&["style=fancy"]), "style must be box or ascii.");
    assert_eq!(
        error(&["colour=red"]),
        "Unknown argument: colour=red. Use size=N, win=N, seed=N, style=box|ascii."
    );
    assert_eq!(
        error(&["5"]),
        "Unknown argument: 5. Use size=N, win=N, seed=N, style=box|ascii."
    );
    assert_eq!(
        error(&["size=4", "SIZE=5"]),
        "size is given twice: give it once."
    );
    assert!(from_args(&["size=3"]).is_ok(), "seeded from the OS");
    assert_eq!(
        from_args(&["seed=77"]).unwrap().board(),
        game(77).board(),
        "seed=N is Twenty48::with_seed"
    );
}

#[test]
fn undo_history_is_bounded() {
    let mut game = with_board(&[&[2, 0, 0], &[0, 0, 0], &[0, 0, 0]], 2048);
    let snapshot = Snapshot {
        board: *game.board(),
        score: 0,
    };
    game.history = std::iter::repeat_n(snapshot, MAX_UNDO).collect();
    game.step = MAX_UNDO as u64;
    let mut memory = Memory::default();
    for key in ["a", "d", "w", "s"] {
        game.handle(key, &mut memory);
    }
    assert_eq!(game.history.len(), MAX_UNDO);
    assert!(game.step() > MAX_UNDO as u64);
}

fn arb_keys() -> impl Strategy<Value = Vec<char>> {
    prop::collection::vec(prop::sample::select(vec!['w', 'a', 's', 'd', 'b']), 0..60)
}

proptest! {
    /// Whatever is played, each `b` brings back exactly the board and score from
    /// before the last move still standing.
    #[test]
    fn undo_restores_board_and_score_exactly(
        seed in any::<u64>(),
        size in MIN_SIZE..=5usize,
        keys in arb_keys(),
    ) {
        let settings = Settings { size, ..Settings::default() };
        let mut game = Twenty48::with_seed(settings, seed).unwrap();
        let mut memory = Memory::default();
        let mut stack = vec![];
        for key in keys {
            let before = (*game.board(), game.score());
            let reply = game.handle(&key.to_string(), &mut memory);
            if key == 'b' {
                match stack.pop() {
                    Some(expected) => prop_assert_eq!((*game.board(), game.score()), expected),
                    None => prop_assert_eq!(reply.text.as_str(), "Nothing to undo.\nEnter command: "),
                }
            } else if *game.board() != before.0 {
                stack.push(before);
            }
            prop_assert_eq!(game.step() as usize, stack.len());
            prop_assert!(memory.part::<Best>().0 >= game.score());
        }
        while let Some(expected) = stack.pop() {
            game.handle("b", &mut memory);
            prop_assert_eq!((*game.board(), game.score()), expected);
        }
    }
}

#[test]
fn an_undo_step_is_small() {
    // MAX_UNDO's documented memory bound rests on this.
    assert!(std::mem::size_of::<Snapshot>() <= 96);
}

#[test]
fn progress_counts_score_and_tiles_and_ends_at_the_win_or_when_stuck() {
    let mut game = with_board(&[&[4, 4, 0], &[0, 0, 0], &[0, 0, 0]], 16);
    let mut memory = Memory::default();
    let tiles = |game: &Twenty48| game.progress().tiles.unwrap();
    assert_eq!(tiles(&game).largest, 4);
    assert_eq!(tiles(&game).win, 16);
    assert_eq!(game.progress().ended, None);
    game.handle("a", &mut memory);
    assert_eq!(game.progress().moves, 1);
    assert_eq!(tiles(&game).score, 8);
    assert_eq!(tiles(&game).largest, 8);
    assert_eq!(game.progress().ended, None);
    let won = with_board(&[&[8, 8, 0], &[0, 0, 0], &[0, 0, 0]], 16);
    let mut won = won;
    won.handle("a", &mut memory);
    assert_eq!(won.progress().ended, Some(Outcome::Won));
    let stuck = with_board(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]], 16);
    assert_eq!(stuck.progress().ended, Some(Outcome::Stopped));
}

/// Seed 7's game in reader mode: the opening board, then a move with a merge.
#[test]
fn reader_mode_says_the_rows_what_merged_and_the_new_tile() {
    let mut game = game(7);
    game.set_reader(true);
    let mut memory = Memory::default();
    assert_eq!(
        game.start(&mut memory).text,
        "Welcome to 2048! Join equal tiles to make 2048.\n\
         Keys: w/k up, a/h left, s/j down, d/l right, b back, r restart, q quit.\n\
         row 1: 2, empty, empty, empty\n\
         row 2: empty, empty, empty, empty\n\
         row 3: empty, empty, empty, 2\n\
         row 4: empty, empty, empty, empty\n\
         Score: 0  Best: 0  Step: 0\n\
         Enter command: "
    );
    assert_eq!(
        game.handle("a", &mut memory).text,
        "New 2 at row 3, column 4.\n\
         row 1: 2, empty, empty, empty\n\
         row 2: empty, empty, empty, empty\n\
         row 3: 2, empty, empty, 2\n\
         row 4: empty, empty, empty, empty\n\
         Score: 0  Best: 0  Step: 1\n\
         Enter command: "
    );
    let after = "row 1: empty, empty, empty, 2\n\
                 row 2: empty, empty, empty, empty\n\
                 row 3: empty, empty, empty, 4\n\
                 row 4: empty, 2, empty, empty\n\
                 Score: 4  Best: 4  Step: 2\n\
                 Enter command: ";
    assert_eq!(
        game.handle("d", &mut memory).text,
        format!("Merged: two 2s into 4.\nNew 2 at row 4, column 2.\n{after}")
    );
    assert_eq!(game.describe(&memory), after);
    assert_eq!(game.where_is(), None);
    // Messages stay as they are; back says what it did.
    assert_eq!(
        game.handle("x", &mut memory).text,
        "Illegal operation!\nEnter command: "
    );
    game.handle("w", &mut memory);
    assert_eq!(
        game.handle("b", &mut memory).text,
        format!("You take back a move.\n{after}")
    );
    assert_eq!(
        game.handle("r", &mut memory).text,
        "row 1: 2, empty, empty, empty\n\
         row 2: empty, empty, 2, empty\n\
         row 3: empty, empty, empty, empty\n\
         row 4: empty, empty, empty, empty\n\
         Score: 0  Best: 4  Step: 0\n\
         Enter command: "
    );
}

#[test]
fn reader_mode_wins_and_ends_in_words_and_never_draws() {
    let mut game = with_board(&[&[2, 4, 2], &[16, 2, 8], &[4, 4, 32]], 8);
    game.set_reader(true);
    let mut memory = Memory::default();
    assert_eq!(
        game.handle("a", &mut memory).text,
        "Merged: two 4s into 8.\nNew 2 at row 3, column 3.\n\
         row 1: 2, 4, 2\nrow 2: 16, 2, 8\nrow 3: 8, 32, 2\n\
         Score: 8  Best: 8  Step: 1\nYou win!\nGame over!\nEnter command: "
    );
    // The view stays drawn for watchers, in the game's style.
    assert!(
        game.view(&memory).starts_with("+-----+"),
        "{}",
        game.view(&memory)
    );
    for style in [Style::Box, Style::Ascii] {
        let settings = Settings {
            style,
            ..Settings::default()
        };
        let mut game = Twenty48::with_seed(settings, 3).unwrap();
        game.set_reader(true);
        let mut text = game.start(&mut memory).text;
        for key in "wasdwasdbr".chars() {
            text.push_str(&game.handle(&key.to_string(), &mut memory).text);
        }
        text.push_str(&game.describe(&memory));
        assert_eq!(crate::games::reader::problem(&text), None, "{text}");
        game.set_reader(false);
        assert!(game
            .handle("b", &mut memory)
            .text
            .contains("Nothing to undo."));
        assert!(!game.handle("w", &mut memory).text.contains("row 1:"));
    }
}
