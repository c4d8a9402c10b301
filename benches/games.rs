//! Micro-benchmarks of the games' hot paths: what the server does for each command.
//!
//! Run with `cargo bench --bench games`. These are not part of `cargo test`; the
//! numbers go into BENCHMARKS.md.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};

use arcade::games::sokoban::{self, Sokoban};
use arcade::games::world::{Direction, World};
use arcade::games::{Game, Memory};

/// The classic level, as in SPEC section 3.
const CLASSIC: &str = "#######\n#.....#\n#...+.#\n##..+.#\n#--.#P#\n#######\n";

fn sokoban(c: &mut Criterion) {
    let level = Arc::new(sokoban::parse_level(CLASSIC).expect("the classic level parses"));

    // A whole command as the session runs it: parse, walk, render board and prompt.
    // Up one and back down keeps the level unsolved however often it runs.
    let mut game = Sokoban::new(Arc::clone(&level));
    let mut memory = Memory::default();
    let mut up = true;
    c.bench_function("sokoban/command (parse + move + render)", |b| {
        b.iter(|| {
            let line = if up { "w1" } else { "s1" };
            up = !up;
            black_box(game.handle(black_box(line), &mut memory))
        })
    });

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

criterion_group!(benches, sokoban);
criterion_main!(benches);
