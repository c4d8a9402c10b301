use proptest::prelude::*;

use super::*;
use crate::games::twenty48::board::{Tile, MAX_SIZE, MIN_SIZE};
use crate::games::twenty48::{Settings, Twenty48};
use crate::games::{Game, Memory};

fn board(rows: &[&[u128]]) -> Board {
    Board::from_values(rows).expect("a board of the test")
}

#[test]
fn the_only_move_is_chosen() {
    // Tiles only in the first column, or only in the last row, none equal: one move
    // each changes the board.
    let right_only = board(&[&[2, 0, 0, 0], &[4, 0, 0, 0], &[2, 0, 0, 0], &[4, 0, 0, 0]]);
    let up_only = board(&[&[0; 4], &[0; 4], &[0; 4], &[2, 4, 2, 4]]);
    for (position, only) in [(right_only, Direction::Right), (up_only, Direction::Up)] {
        let effective: Vec<Direction> = Direction::ALL
            .into_iter()
            .filter(|&d| position.slide(d).is_ok())
            .collect();
        assert_eq!(effective, [only], "the board must have one move only");
        for depth in 1..=3 {
            let mut agent = Expectimax::new(depth);
            assert_eq!(agent.choose(&position), Some(only), "depth {depth}");
        }
    }
}

#[test]
fn a_lost_board_has_no_move() {
    let stuck = board(&[&[2, 4, 2, 4], &[4, 2, 4, 2], &[2, 4, 2, 4], &[4, 2, 4, 2]]);
    let mut agent = Expectimax::new(3);
    assert_eq!(agent.choose(&stuck), None);
    assert_eq!(agent.last(), Choice::Stuck);
    let small = board(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]]);
    assert_eq!(agent.choose(&small), None);
    assert_eq!(greedy(&small), None);
}

#[test]
fn other_boards_fall_back_to_greedy() {
    let mut agent = Expectimax::new(3);
    // 3x3: the move that merges (left or right, the first of them in ALL) wins on
    // empty cells.
    let small = board(&[&[2, 2, 4], &[8, 16, 32], &[64, 128, 256]]);
    assert_eq!(agent.choose(&small), Some(Direction::Left));
    assert_eq!(agent.last(), Choice::Greedy);
    // 65536 does not fit a nibble: greedy too, still a move with an effect.
    let mut big = Board::empty(4).expect("4x4");
    big.set(0, 0, Tile::from_exponent(16));
    big.set(1, 0, Tile::from_exponent(1));
    assert_eq!(agent.choose(&big), Some(Direction::Right));
    assert_eq!(agent.last(), Choice::Greedy);
}

#[test]
fn adaptive_depth_follows_the_tiles() {
    let depth = Depth::Adaptive { max: 4 };
    let few = bitboard::from_board(&board(&[&[2, 4, 0, 0], &[0; 4], &[0; 4], &[0; 4]]));
    let many = bitboard::from_board(&board(&[
        &[2, 4, 8, 16],
        &[32, 64, 128, 256],
        &[0; 4],
        &[0; 4],
    ]));
    assert_eq!(few.map(|x| depth.for_board(x)), Some(2));
    assert_eq!(many.map(|x| depth.for_board(x)), Some(4));
    assert_eq!(many.map(|x| Depth::Fixed(0).for_board(x)), Some(1));
    assert_eq!(many.map(|x| Depth::Fixed(99).for_board(x)), Some(MAX_DEPTH));
}

#[test]
fn a_deeper_search_visits_more_and_the_cache_answers() {
    let position = board(&[&[2, 4, 8, 0], &[0, 2, 0, 4], &[0, 0, 2, 0], &[16, 0, 0, 2]]);
    let mut nodes = Vec::new();
    for depth in 1..=3 {
        let mut agent = Expectimax::new(depth);
        assert!(agent.choose(&position).is_some());
        match agent.last() {
            Choice::Searched { depth: d, counts } => {
                assert_eq!(d, depth);
                nodes.push(counts.nodes);
                if depth == 3 {
                    assert!(counts.cache_hits > 0, "{counts:?}");
                }
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(nodes.windows(2).all(|w| w[0] < w[1]), "{nodes:?}");
}

/// The node budget: an open board searched 4 moves deep with a small budget stops at
/// a shallower whole depth (still a move with an effect, the same one a search of that
/// depth chooses), and within a large budget it reaches the depth asked.
#[test]
fn the_budget_stops_a_search_at_its_last_whole_depth() {
    let open = board(&[&[2, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 4, 0], &[0, 0, 0, 0]]);
    let searched = |agent: &Expectimax| match agent.last() {
        Choice::Searched { counts, .. } => counts,
        other => panic!("{other:?}"),
    };
    let mut roomy = Expectimax::new(4).with_budget(u64::MAX);
    assert!(roomy.choose(&open).is_some());
    let full = searched(&roomy);
    assert_eq!((full.depth, full.cut_short), (4, false), "{full:?}");

    let mut tight = Expectimax::new(4).with_budget(full.nodes / 20);
    let chosen = tight.choose(&open).expect("a move");
    let cut = searched(&tight);
    assert!(cut.cut_short, "{cut:?}");
    assert!((1..4).contains(&cut.depth), "{cut:?}");
    assert!(open.slide(chosen).is_ok());
    // The whole depth it kept decides as a search of that depth alone would.
    let mut shallow = Expectimax::new(cut.depth).with_budget(u64::MAX);
    assert_eq!(shallow.choose(&open), Some(chosen));

    // However small the budget, depth 1 finishes.
    let mut starved = Expectimax::new(4).with_budget(0);
    assert!(starved.choose(&open).is_some());
    assert_eq!(searched(&starved).depth, 1);
}

/// A seeded game, played through the game's own commands as a session would, with a
/// shallow search: any sane expectimax reaches 256 (a random player rarely passes 128,
/// and a heuristic that prefers the wrong boards does not get there).
#[test]
fn a_seeded_game_reaches_256() {
    let mut game = Twenty48::with_seed(Settings::default(), 34).expect("4x4");
    let mut memory = Memory::default();
    let _ = game.start(&mut memory);
    let mut agent = Expectimax::new(2);
    let target = Tile::from_value(256).expect("a tile");
    let mut moves = 0;
    while game.board().max_tile().is_none_or(|tile| tile < target) {
        let Some(direction) = agent.choose(game.board()) else {
            break;
        };
        let key = match direction {
            Direction::Up => "w",
            Direction::Left => "a",
            Direction::Down => "s",
            Direction::Right => "d",
        };
        let before = *game.board();
        let _ = game.handle(key, &mut memory);
        assert_ne!(*game.board(), before, "{direction:?} had no effect");
        moves += 1;
        assert!(moves < 5_000, "no 256 after 5000 moves");
    }
    assert!(
        game.board().max_tile().is_some_and(|tile| tile >= target),
        "stuck at {:?} after {moves} moves, score {}",
        game.board().max_tile().map(Tile::value),
        game.score()
    );
}

fn arb_board() -> impl Strategy<Value = Board> {
    prop_oneof![3 => Just(4usize), 1 => MIN_SIZE..=MAX_SIZE].prop_flat_map(|size| {
        prop::collection::vec(prop_oneof![1 => Just(0u8), 3 => 1u8..=11], size * size).prop_map(
            move |exponents| {
                let mut board = Board::empty(size).expect("a size within 3 to 8");
                for (index, exponent) in exponents.into_iter().enumerate() {
                    board.set(index / size, index % size, Tile::from_exponent(exponent));
                }
                board
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The agent's move always changes the board, and it answers `None` only when no
    /// move does; a board with a single move gets that move.
    #[test]
    fn the_move_always_has_an_effect(position in arb_board(), depth in 1u8..=2) {
        let mut agent = Expectimax::new(depth);
        let effective: Vec<Direction> = Direction::ALL
            .into_iter()
            .filter(|&d| position.slide(d).is_ok())
            .collect();
        match agent.choose(&position) {
            Some(direction) => prop_assert!(effective.contains(&direction)),
            None => prop_assert!(effective.is_empty()),
        }
        if let [only] = effective[..] {
            prop_assert_eq!(agent.choose(&position), Some(only));
        }
    }
}
