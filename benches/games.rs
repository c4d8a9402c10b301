//! Micro-benchmarks of the hot paths: what the server does for each command (the
//! telnet codec on the way in and out, and each game's rules and rendering).
//!
//! Run with `cargo bench --bench games`. These are not part of `cargo test`; the
//! numbers go into docs/BENCHMARKS.md.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

use arcade::codec::telnet::{Output, TelnetCodec};
use arcade::games::sokoban::{self, Sokoban};
use arcade::games::starpusher::{xsb, StarPusher};
use arcade::games::twenty48::board::Board;
use arcade::games::twenty48::{self, Settings};
use arcade::games::world::{Direction, World};
use arcade::games::wumpus::{self, Wumpus};
use arcade::games::{Game, Memory};

/// The classic level, as in SPEC section 3.
const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

/// The classic wumpus world, as in levels/wumpus/classic.txt.
const WUMPUS_CLASSIC: &str =
    "dim 4 4\nplayer 0 0 1 0 1\nwumpus 3 2\ngold 3 3\npit 2 0\npit 1 2\nexit 0 0\n";

/// Benchmarks `game` answering the two `lines` in turn: a pair that undo each other,
/// so the game's state stays the same however often it runs.
fn alternate(c: &mut Criterion, name: &str, game: &mut dyn Game, lines: [&str; 2]) {
    let mut memory = Memory::default();
    let mut next = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let line = lines[next];
            next ^= 1;
            black_box(game.handle(black_box(line), &mut memory))
        })
    });
}

fn sokoban(c: &mut Criterion) {
    let level = Arc::new(sokoban::parse_level(CLASSIC).expect("the classic level parses"));

    // A whole command as the session runs it: parse, walk, render board and prompt.
    // Up one and back down keeps the level unsolved however often it runs.
    let mut game = Sokoban::new(Arc::clone(&level));
    alternate(
        c,
        "sokoban/command (parse + move + render)",
        &mut game,
        ["w1", "s1"],
    );

    // A push and its undo: the rules alone. One step up puts the player right of a
    // box that can go left.
    let mut world = World::new(Arc::clone(&level));
    world.walk(Direction::Up, 1);
    c.bench_function("sokoban/push and undo", |b| {
        b.iter(|| {
            let step = world
                .step(black_box(Direction::Left))
                .expect("the box on the left can be pushed");
            world.undo(step);
        })
    });

    // Rendering alone, into a reused buffer.
    let world = World::new(level);
    let mut text = String::with_capacity(128);
    c.bench_function("sokoban/render", |b| {
        b.iter(|| {
            text.clear();
            world.render_into(&sokoban::GLYPHS, &mut text);
            black_box(&text);
        })
    });
}

fn starpusher(c: &mut Criterion) {
    // A room with space to walk up and down without touching the box.
    let level = "#######\n#     #\n# @$ .#\n#     #\n#######\n";
    let collection = Arc::new(xsb::parse_collection(level).collection);
    let mut game = StarPusher::new("bench", collection, 1).expect("the level is playable");
    let mut memory = Memory::default();
    // A long history, as after replaying a long solution: 99,998 moves.
    let moves = "ud".repeat(49_999);
    let reply = game.handle(&format!("lurd {moves}"), &mut memory);
    assert!(reply.text.contains("Moves: 99998"), "{}", reply.text);
    // A whole command on top of it: undo, then redo, so the history stays as long.
    alternate(
        c,
        "starpusher/command after 100k moves (undo/redo)",
        &mut game,
        ["u", "redo"],
    );
}

fn twenty48(c: &mut Criterion) {
    // A mid-game board where a left move slides and merges in every row.
    let board = Board::from_values(&[
        &[2, 2, 4, 4],
        &[0, 8, 8, 16],
        &[32, 0, 32, 2],
        &[4, 4, 4, 0],
    ])
    .expect("a valid 4x4 board");
    c.bench_function("2048/slide (rules only)", |b| {
        b.iter(|| black_box(black_box(&board).slide(Direction::Left)))
    });

    // A whole command: parse, slide, spawn a tile, render the box board and status.
    let game = twenty48::Twenty48::with_seed(Settings::default(), 7).expect("a 4x4 game");
    let mut memory = Memory::default();
    c.bench_function("2048/command (parse + move + spawn + render)", |b| {
        b.iter_batched(
            || game.clone(),
            |mut game| {
                // From the opening board one of these two always slides.
                let reply = game.handle(black_box("a"), &mut memory);
                let reply = if reply.text.contains("no effect") {
                    game.handle("d", &mut memory)
                } else {
                    reply
                };
                black_box(reply)
            },
            BatchSize::SmallInput,
        )
    });
}

fn wumpus(c: &mut Criterion) {
    let cave = wumpus::parse_cave(WUMPUS_CLASSIC).expect("the classic world parses");
    let game = Wumpus::new(cave);
    let mut memory = Memory::default();
    // A step: parse, move into the next room, and list its percepts.
    c.bench_function("wumpus/command (parse + step + percepts)", |b| {
        b.iter_batched(
            || game.clone(),
            |mut game| black_box(game.handle(black_box("move forward"), &mut memory)),
            BatchSize::SmallInput,
        )
    });
}

fn telnet(c: &mut Criterion) {
    let mut codec = TelnetCodec::new();
    // A command as the session decodes it: straight from the bytes of one read.
    c.bench_function("telnet/decode a command line", |b| {
        b.iter(|| {
            let mut pos = 0;
            black_box(codec.decode_slice(black_box(b"w1\r\n"), &mut pos))
        })
    });

    // A Sokoban reply (board and prompt) as the session encodes it: CR LF line ends,
    // into a fresh `Vec` of exactly its size.
    let reply = format!("{CLASSIC}Enter command: ");
    c.bench_function("telnet/encode a board reply", |b| {
        b.iter(|| {
            let output = Output::Text(black_box(&reply));
            let mut bytes = Vec::with_capacity(output.encoded_len());
            output.encode_into(&mut bytes);
            bytes
        })
    });
}

criterion_group!(benches, sokoban, starpusher, twenty48, wumpus, telnet);
criterion_main!(benches);
