//! What the recorder's writes cost the database over minutes (issue 29, run BN in
//! docs/BENCHMARKS.md): `RECORDINGS` games each typing a line a second, written as the
//! writer writes them (one `Store::write` transaction a second, one row of lines per
//! game) and moved out of the inputs' log when the writer would move them, on a fresh
//! SQLite file, the seconds simulated back to back. For each minute it prints the
//! milliseconds a second's write took and the moves' share of a second, the
//! process's CPU a second (SQLite's threads are the process's) and the bytes it wrote
//! a second; at the end, what reading one game's lines takes, page by page with the
//! log full (as `replay` and the verifier read) and in one query.
//!
//! `cargo run --release --example store_seconds -- [RECORDINGS] [SECONDS]`
//! (10,000 and 300 by default). `MOVE=0` never moves the log (what reading a log that
//! is never moved costs; not the server's behaviour); `MOVE_ROWS=N` moves it every N
//! rows rather than the writer's [`COMPACT_ROWS`] (to weigh that constant).

use std::time::{Duration, Instant};

#[path = "shared/proc.rs"]
mod proc;

use arcade::records::reader::Inputs;
use arcade::records::recording::encode_input;
use arcade::records::writer::{COMPACT_EVERY, COMPACT_ROWS};
use arcade::store::{Change, DbUrl, NewRecording, Start, Store};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let recordings: i64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let moves = std::env::var("MOVE").map_or(true, |value| value != "0");
    let move_rows: u64 = std::env::var("MOVE_ROWS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(COMPACT_ROWS);
    let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("a directory: {error}"));
    let store = Store::open(&DbUrl::Sqlite(dir.path().join("arcade.db")))
        .await
        .unwrap_or_else(|error| panic!("the store: {error}"));
    let first = store
        .recording_ids()
        .await
        .unwrap_or_else(|error| panic!("ids: {error}"))
        .start;
    let opens: Vec<Change> = (first..first + recordings)
        .map(|id| {
            Change::Open(Box::new(NewRecording {
                id,
                player: format!("guest-{id}"),
                player_key: format!("guest-{id}"),
                registered: false,
                start: Start {
                    game: String::from("sokoban"),
                    args: vec![String::from("classic")],
                    memory: String::new(),
                    world: None,
                },
                level: String::from("1"),
                race: None,
                started_at: 0,
            }))
        })
        .collect();
    store
        .write(&opens)
        .await
        .unwrap_or_else(|error| panic!("opening: {error}"));
    println!(
        "{recordings} games, a line each a second, {seconds} s; moves {}",
        if moves {
            format!("every {move_rows} rows or {} s", COMPACT_EVERY.as_secs())
        } else {
            String::from("off")
        }
    );
    println!("minute  write ms/s  move ms/s  cpu ms/s  written KiB/s");
    let mut minute = Minute::start();
    let (mut logged, mut last_move) = (0_u64, 0_u64);
    for second in 0..seconds {
        let changes = second_of_lines(first, recordings, second);
        let started = Instant::now();
        store
            .write(&changes)
            .await
            .unwrap_or_else(|error| panic!("second {second}: {error}"));
        minute.write += started.elapsed();
        logged += recordings as u64;
        let waited = Duration::from_secs(second + 1 - last_move);
        if moves && (logged >= move_rows || waited >= COMPACT_EVERY) {
            let started = Instant::now();
            store
                .compact_inputs()
                .await
                .unwrap_or_else(|error| panic!("moving: {error}"));
            minute.moving += started.elapsed();
            (logged, last_move) = (0, second + 1);
        }
        if (second + 1) % 60 == 0 || second + 1 == seconds {
            minute.print((second + 1).div_ceil(60), (second % 60) + 1);
            minute = Minute::start();
        }
    }
    // A long recording read as `replay` and the verifier read it, page by page,
    // with the log as full as the writer lets it grow: seconds written, none moved,
    // until one more would make a move due, by rows or by time (none if it is due).
    let rows_room = move_rows.saturating_sub(logged) / recordings.max(1) as u64;
    let time_room = COMPACT_EVERY.as_secs().saturating_sub(seconds - last_move);
    let full_log = rows_room.min(time_room).saturating_sub(1);
    for second in seconds..seconds + full_log {
        store
            .write(&second_of_lines(first, recordings, second))
            .await
            .unwrap_or_else(|error| panic!("second {second}: {error}"));
    }
    let started = Instant::now();
    let mut pages = Inputs::new(store.clone(), first + recordings / 2);
    let (mut page_count, mut lines) = (0, 0);
    while let Some(page) = pages
        .next_page()
        .await
        .unwrap_or_else(|error| panic!("paging: {error}"))
    {
        page_count += 1;
        lines += page.len();
    }
    println!(
        "one game's {lines} lines read page by page in {:.1} ms ({page_count} pages, {} rows in the log)",
        started.elapsed().as_secs_f64() * 1000.0,
        store.logged_inputs().await.unwrap_or(0)
    );
    let started = Instant::now();
    let read = store
        .recording_inputs(first + recordings / 2, None, 100_000)
        .await
        .unwrap_or_else(|error| panic!("reading: {error}"));
    println!(
        "one game's {} rows read in {:.1} ms ({} rows still in the log)",
        read.len(),
        started.elapsed().as_secs_f64() * 1000.0,
        store.logged_inputs().await.unwrap_or(0)
    );
    store.close().await;
}

/// What the writer writes in `second`: a line for each game.
fn second_of_lines(first: i64, recordings: i64, second: u64) -> Vec<Change> {
    (0..recordings)
        .map(|n| {
            let mut lines = String::new();
            encode_input(second * 1000 + n as u64 % 1000, "d", &mut lines);
            Change::Inputs {
                id: first + n,
                first: second,
                lines,
            }
        })
        .collect()
}

/// A minute's sums.
struct Minute {
    write: Duration,
    moving: Duration,
    cpu_ms: f64,
    written: u64,
}

impl Minute {
    fn start() -> Minute {
        Minute {
            write: Duration::ZERO,
            moving: Duration::ZERO,
            cpu_ms: cpu_ms(),
            written: written_bytes(),
        }
    }

    fn print(&self, number: u64, seconds: u64) {
        let per = |total: f64| total / seconds as f64;
        println!(
            "{number:>6}  {:>10.1}  {:>9.1}  {:>8.1}  {:>13.0}",
            per(self.write.as_secs_f64() * 1000.0),
            per(self.moving.as_secs_f64() * 1000.0),
            per(cpu_ms() - self.cpu_ms),
            per((written_bytes() - self.written) as f64 / 1024.0),
        );
    }
}

/// The process's CPU time so far, in milliseconds (every thread's, SQLite's too).
fn cpu_ms() -> f64 {
    proc::cpu_seconds("self").unwrap_or(0.0) * 1000.0
}

/// The bytes the process has written by system calls so far.
fn written_bytes() -> u64 {
    proc::written_bytes("self").unwrap_or(0)
}
