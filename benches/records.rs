//! Micro-benchmarks of the recorder's path (issue 29): what a recorded command costs
//! its session (a line encoded and appended to the writer's batch) and what the
//! writer's take of a batch costs, beside what a line cost before (its own `String`
//! and a channel send to the writer) as a reference in the same run.
//!
//! Run with `cargo bench --bench records`. Not part of `cargo test`; the numbers go
//! into docs/BENCHMARKS.md.

use std::hint::black_box;
use std::sync::Mutex;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use arcade::records::recording::encode_input;
use arcade::records::writer::{Batch, Row};
use arcade::store::Change;

/// Recordings open at once in the batch benchmarks: row 2's sessions.
const RECORDINGS: usize = 10_000;

fn encode(c: &mut Criterion) {
    let mut out = String::with_capacity(64);
    c.bench_function("recorder/encode a line", |b| {
        b.iter(|| {
            out.clear();
            encode_input(black_box(123_456), black_box("d3"), &mut out);
            black_box(out.len())
        })
    });
}

fn batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("recorder");
    group.throughput(Throughput::Elements(RECORDINGS as u64));
    // Row 2: each of 10,000 games types one line in the writer's second, then the
    // writer takes the batch (and drops it here, as after its write).
    let batch = Mutex::new(Batch::default());
    let mut rows = vec![Row::default(); RECORDINGS];
    group.bench_function(
        "10,000 games x 1 line each, into the batch (locked), taken",
        |b| {
            b.iter(|| {
                for (id, row) in rows.iter_mut().enumerate() {
                    let mut batch = batch.lock().unwrap_or_else(|e| e.into_inner());
                    batch.input(row, id as i64, 7, 123_456, black_box("d3"));
                }
                batch.lock().unwrap_or_else(|e| e.into_inner()).clear();
            })
        },
    );
    // One busy game: a line appended to its row, as a client typing fast does.
    let mut one = Batch::default();
    let mut row = Row::default();
    group.bench_function("1 game x 10,000 lines, into the batch, taken", |b| {
        b.iter(|| {
            for first in 0..RECORDINGS as u64 {
                one.input(&mut row, 1, first, 123_456, black_box("d3"));
            }
            one.clear();
        })
    });
    // The reference: what each line cost before (its own String, a message on an
    // unbounded channel, the writer's receive).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|error| panic!("a runtime: {error}"));
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Change>();
    group.bench_function(
        "10,000 games x 1 line each, as before: a String and a channel send each",
        |b| {
            b.iter(|| {
                runtime.block_on(async {
                    for id in 0..RECORDINGS as i64 {
                        let mut lines = String::with_capacity(2 + 8);
                        encode_input(123_456, black_box("d3"), &mut lines);
                        let _ = sender.send(Change::Inputs {
                            id,
                            first: 7,
                            lines,
                        });
                    }
                    let mut received = Vec::with_capacity(1024);
                    while receiver.recv_many(&mut received, 1024).await > 0 {
                        received.clear();
                        if receiver.is_empty() {
                            break;
                        }
                    }
                });
            })
        },
    );
    group.finish();
}

criterion_group!(benches, encode, batch);
criterion_main!(benches);
