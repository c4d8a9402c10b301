//! The properties behind the fuzz targets under `fuzz/` (docs/developing.md, "Fuzzing").
//!
//! Each function takes the fuzzer's bytes, drives one part of the server with them and
//! panics when a property breaks; the targets in `fuzz/fuzz_targets/` only call them.
//! They live in the library rather than in `fuzz/` so that `cargo test` replays every
//! input kept under `fuzz/regressions/` on the stable toolchain, without libFuzzer
//! (`tests/fuzz_regressions.rs`): a bug the fuzzer found once stays found.
//!
//! This is not part of the server's API (it is hidden from the docs) and nothing else
//! in the crate uses it. Unlike the rest of the crate it panics on purpose: a panic is
//! how a fuzz target reports a broken property.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use bytes::BytesMut;
use tokio_util::codec::Decoder;

use std::net::SocketAddr;

use crate::catalog::levels::Levels;
use crate::catalog::table::Context;
use crate::codec::telnet::{Input, TelnetCodec, MAX_LINE};
use crate::console::commands::{self, play::Play};
use crate::console::lobby;
use crate::console::{Console, Outcome};
use crate::games::sokoban::{self, Sokoban};
use crate::games::starpusher::{self, xsb, StarPusher};
use crate::games::world::{Level, World};
use crate::games::wumpus::{self, Cave, Wumpus};
use crate::games::{twenty48, Game, Memory, Reply, Status, PROMPT};
use crate::players::inbox::Inbox;
use crate::players::registry::{Registration, Registry};
use crate::players::throttle::LoginThrottle;
use crate::seat::{Seat, Services};
use crate::store::{DbUrl, Store};

/// The most lines one input plays, so that one input stays one quick run whatever
/// libFuzzer's length limit is.
const MAX_LINES: usize = 1000;

/// How many levels of a collection the round trip of [`levels`] checks: each costs a
/// render and a parse, and a few are enough to cover the code.
const ROUND_TRIP_LEVELS: usize = 8;

/// `telnet_decode`: the telnet codec gives the same items however the input is split
/// into reads.
///
/// The input: its first byte `n`, then `n % 16` read sizes of one byte each, then the
/// stream. The stream is decoded once whole and once in reads of those sizes in turn
/// (a size 0 is an empty read), the way the session does it
/// ([`TelnetCodec::decode_slice`] on each read, [`TelnetCodec::finish`] at the end).
/// Checked:
///
/// - both give the same items, once adjacent [`Input::Negotiation`]s are joined (how
///   refusals group into items may depend on where a read ends; their bytes and order
///   may not);
/// - the [`Decoder`] impl gives exactly the items of `decode_slice` on the same reads;
/// - `decode_slice` consumes every read whole and a second `finish` gives nothing;
/// - a line holds at most [`MAX_LINE`] characters and no CR, LF or NUL;
/// - every negotiation is a run of `IAC WONT x` / `IAC DONT x`, each at most once;
/// - in character mode (`set keys on`), the same: the same keys and signals however
///   the stream is split, adjacent keys joined.
pub fn telnet_decode(data: &[u8]) {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let (sizes, stream) = rest.split_at(usize::from(count % 16).min(rest.len()));
    let reads = split_reads(stream, sizes);

    let whole = decode_reads(&[stream]);
    let split = decode_reads(&reads);
    assert_eq!(
        join_negotiations(&split),
        join_negotiations(&whole),
        "reads of {sizes:?} decode otherwise than the whole stream"
    );
    assert_eq!(
        decode_with_decoder(&reads),
        split,
        "the Decoder impl differs from decode_slice on reads of {sizes:?}"
    );
    check_items(&whole);
    check_items(&split);

    let whole = decode_reads_in(&[stream], true);
    let split = decode_reads_in(&reads, true);
    assert_eq!(
        join_negotiations(&split),
        join_negotiations(&whole),
        "in character mode, reads of {sizes:?} decode otherwise than the whole stream"
    );
}

/// Cuts `stream` into reads of `sizes` in turn, from the first again after the last;
/// the rest is one read when the sizes are all zero.
fn split_reads<'a>(mut stream: &'a [u8], sizes: &[u8]) -> Vec<&'a [u8]> {
    let mut reads = Vec::new();
    if sizes.iter().all(|&size| size == 0) {
        reads.extend(sizes.iter().map(|_| &stream[..0]));
        reads.push(stream);
        return reads;
    }
    for &size in sizes.iter().cycle() {
        if stream.is_empty() {
            break;
        }
        let (read, rest) = stream.split_at(usize::from(size).min(stream.len()));
        reads.push(read);
        stream = rest;
    }
    reads
}

/// Decodes `reads` as the session does: every item of a read through `decode_slice`,
/// nothing kept between reads but the codec, then `finish`.
fn decode_reads(reads: &[&[u8]]) -> Vec<Input> {
    decode_reads_in(reads, false)
}

/// [`decode_reads`], the codec in character mode or not.
fn decode_reads_in(reads: &[&[u8]], character: bool) -> Vec<Input> {
    let mut codec = TelnetCodec::new();
    codec.set_character_mode(character);
    let mut items = Vec::new();
    for read in reads {
        let mut pos = 0;
        while let Some(item) = codec.decode_slice(read, &mut pos) {
            items.push(item);
        }
        assert_eq!(pos, read.len(), "decode_slice left bytes of a read unread");
    }
    items.extend(codec.finish());
    assert_eq!(codec.finish(), None, "a second finish gave an item");
    items
}

/// Decodes `reads` through the [`Decoder`] impl, as the codec's own tests do.
fn decode_with_decoder(reads: &[&[u8]]) -> Vec<Input> {
    let mut codec = TelnetCodec::new();
    let mut buffer = BytesMut::new();
    let mut items = Vec::new();
    for read in reads {
        buffer.extend_from_slice(read);
        while let Ok(Some(item)) = codec.decode(&mut buffer) {
            items.push(item);
        }
        assert!(buffer.is_empty(), "decode left bytes in its buffer");
    }
    while let Ok(Some(item)) = codec.decode_eof(&mut buffer) {
        items.push(item);
    }
    items
}

/// The items with every run of adjacent negotiations, and of adjacent keys, joined
/// into one (how they group depends on where a read ends).
fn join_negotiations(items: &[Input]) -> Vec<Input> {
    let mut joined: Vec<Input> = Vec::new();
    for item in items {
        match (joined.last_mut(), item) {
            (Some(Input::Negotiation(last)), Input::Negotiation(bytes))
            | (Some(Input::Keys(last)), Input::Keys(bytes)) => {
                let mut both = last.to_vec();
                both.extend_from_slice(bytes);
                *last = both.into();
            }
            _ => joined.push(item.clone()),
        }
    }
    joined
}

/// The properties of each item on its own, and of the refusals over a whole input.
fn check_items(items: &[Input]) {
    let mut refused = std::collections::HashSet::new();
    for item in items {
        match item {
            Input::Line(text) => {
                assert!(
                    text.chars().count() <= MAX_LINE,
                    "a line of {} characters",
                    text.chars().count()
                );
                assert!(
                    !text.contains(['\r', '\n', '\0']),
                    "a line ending inside a line: {text:?}"
                );
            }
            // The codec is in line mode here: no keys; signals carry no data.
            Input::LineTooLong | Input::Signal(_) => {}
            Input::Keys(bytes) => panic!("keys in line mode: {bytes:?}"),
            Input::Negotiation(bytes) => {
                assert!(
                    !bytes.is_empty() && bytes.len() % 3 == 0,
                    "negotiation {bytes:?}"
                );
                for answer in bytes.chunks(3) {
                    assert!(
                        answer[0] == 255 && matches!(answer[1], 252 | 254),
                        "not a refusal: {answer:?}"
                    );
                    assert!(
                        refused.insert((answer[1], answer[2])),
                        "refused twice: {answer:?}"
                    );
                }
            }
        }
    }
}

/// `levels`: every level and world parser, then a game on what it read.
///
/// The input: its first byte modulo 3 picks the parser (so `0`, `1` and `2` in a
/// hand-written file): a classic Sokoban level ([`sokoban::parse_level`]), a Star
/// Pusher collection ([`xsb::parse_collection`]) or a wumpus world
/// ([`wumpus::parse_cave`]). The file is the bytes after it up to the first NUL byte;
/// the bytes after the NUL are the commands, one a line. When the parser accepts the
/// file, a game starts on it and plays the commands ([`play`]). Checked besides:
///
/// - a Star Pusher level drawn as the game draws it reads back as one level that draws
///   alike, and the game refuses level numbers outside the collection;
/// - a wumpus world prints as a file that loads as the same world, before the game,
///   after it, and in every `save`; a game that ends prints the world last.
pub fn levels(data: &[u8]) {
    let Some((&parser, rest)) = data.split_first() else {
        return;
    };
    let (file, commands) = match rest.iter().position(|&byte| byte == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let file = String::from_utf8_lossy(file);
    let commands = String::from_utf8_lossy(commands);
    let lines: Vec<&str> = commands
        .split('\n')
        .map(str::trim)
        .take(MAX_LINES)
        .collect();
    match parser % 3 {
        0 => sokoban_level(&file, &lines),
        1 => star_pusher_collection(&file, &lines),
        _ => wumpus_world(&file, &lines),
    }
}

/// A classic Sokoban level, played.
fn sokoban_level(file: &str, lines: &[&str]) {
    if let Ok(level) = sokoban::parse_level(file) {
        play(&mut Sokoban::new(Arc::new(level)), lines, |_, _| {});
    }
}

/// A Star Pusher collection: its boards drawn and read back, then level 1 played.
fn star_pusher_collection(file: &str, lines: &[&str]) {
    let collection = Arc::new(xsb::parse_collection(file).collection);
    for level in collection.levels.iter().take(ROUND_TRIP_LEVELS) {
        let board = drawn(&level.level);
        let again = xsb::parse_collection(&board).collection;
        let boards: Vec<String> = again
            .levels
            .iter()
            .map(|level| drawn(&level.level))
            .collect();
        assert_eq!(boards, [board.as_str()], "the board drawn as\n{board}");
    }
    let count = collection.levels.len();
    for outside in [0, count + 1] {
        assert!(
            StarPusher::new("fuzz", Arc::clone(&collection), outside).is_err(),
            "level {outside} of {count} started"
        );
    }
    if let Ok(mut game) = StarPusher::new("fuzz", collection, 1) {
        play(&mut game, lines, |_, _| {});
    }
}

/// `level` at its start, drawn as the game draws it. A drawing read back is compared
/// as a drawing, not as a level: the drawing trims trailing floor, so a level whose
/// rows all end in floor (an open board, `-` at the end of a row) reads back narrower,
/// and the game promises only that a drawn board is a level again that draws alike.
fn drawn(level: &Arc<Level>) -> String {
    let mut board = String::new();
    starpusher::render(&World::new(Arc::clone(level)), &mut board);
    board
}

/// A wumpus world: printed and read back before, during and after a game on it.
fn wumpus_world(file: &str, lines: &[&str]) {
    let Ok(cave) = wumpus::parse_cave(file) else {
        return;
    };
    assert_loads_again(&cave);
    // `classic` is reserved as the server reserves its built-in worlds.
    let mut game = Wumpus::new(cave).with_reserved_names(vec![String::from("classic")]);
    play(&mut game, lines, |game, reply| match &reply.status {
        Status::Save { state, .. } => {
            assert_eq!(state, &game.cave().to_string(), "a save of another state");
            assert_loads_again(game.cave());
        }
        Status::Ended => {
            let state = game.cave().to_string();
            assert!(
                reply.text.ends_with(&state),
                "an end without the state: {:?}",
                reply.text
            );
        }
        Status::Playing => {}
    });
    assert_loads_again(game.cave());
    let state = game.state();
    assert_eq!(
        state,
        Some(game.cave().to_string()),
        "state() of another cave"
    );
    let last_words = game.end_of_input();
    if !last_words.is_empty() {
        assert_eq!(last_words, game.cave().to_string(), "end of input");
    }
}

/// A printed world loads again as the same world, and prints the same again.
fn assert_loads_again(cave: &Cave) {
    let printed = cave.to_string();
    assert_eq!(
        wumpus::parse_cave(&printed).as_ref(),
        Ok(cave),
        "the printed world\n{printed}"
    );
}

/// Starts `game` and hands it `lines` until one ends it. Every reply that keeps the
/// game going ends with [`PROMPT`]; `each` checks more of every reply, the game's
/// first included.
fn play<G: Game>(game: &mut G, lines: &[&str], mut each: impl FnMut(&G, &Reply)) {
    let mut memory = Memory::default();
    let mut reply = game.start(&mut memory);
    for line in lines {
        each(game, &reply);
        match reply.status {
            Status::Ended => return,
            Status::Playing => assert!(
                reply.text.ends_with(PROMPT),
                "no prompt after {line:?}: {:?}",
                reply.text
            ),
            // The session writes the save and adds the prompt itself.
            Status::Save { .. } => {}
        }
        reply = game.handle(line, &mut memory);
    }
    each(game, &reply);
}

/// `console`: lines through a whole player's console, from the lobby into games and
/// back, with every job run at once (as `arcade play` does) on the built-in levels and
/// a data directory of the input's own.
///
/// The input is text, one line a line, trimmed as the session trims it. `quit` closes
/// the console; the next line goes to a new one, as a new connection to the same
/// server. Checked, besides that nothing panics:
///
/// - every text sent ends with a prompt, and with the prompt of where the player is
///   then (`> ` in the lobby, `Enter command: ` in a game);
/// - a job leads to an outcome, not to job after job;
/// - the state of a game that has one (the wumpus world) loads again as printed,
///   after every line and at the end of the input.
///
/// A `2048` line without a seed gets `seed=1`: a seed from the system's entropy would
/// make a crash impossible to replay.
pub fn console(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    with_context(|context, table| {
        table.runtime.block_on(async {
            // An empty store for every input, so that what one input registers never
            // changes how another plays: a kept input replays alike.
            let services = &table.services;
            services.store.clear().await.expect("the store empties");
            let mut player = seat(services);
            for line in text.split('\n').map(str::trim).take(MAX_LINES) {
                let line = seeded(&player.0, line);
                let outcome = player.0.handle_line(&line);
                if !settle(&mut player.0, &context, outcome, &line).await {
                    player = seat(services);
                }
                check_state(&player.0);
            }
            check_state(&player.0);
            let _ = player.0.end_of_input();
        });
    });
}

/// What a console on a server needs from the process: a runtime for its jobs, and
/// the services of a server with a store in memory.
struct FuzzTable {
    runtime: tokio::runtime::Runtime,
    services: Services,
}

impl FuzzTable {
    fn new() -> FuzzTable {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let store = runtime
            .block_on(Store::open(&DbUrl::Memory))
            .expect("the store opens");
        // Results are checked against the built-in levels, which every input plays.
        let context = Arc::new(Context {
            levels: Levels::built_in().0,
            data_dir: std::env::temp_dir(),
        });
        let services = runtime
            .block_on(Services::start(
                Registry::new(),
                store,
                crate::catalog::table::Contexts::new(context, None),
                crate::records::recorder::Retention::default(),
                // Logins are never slowed down: a fuzzer would wait for the throttle.
                LoginThrottle::with_limits(u32::MAX, u32::MAX),
            ))
            .expect("the services start");
        FuzzTable { runtime, services }
    }
}

/// A new connection's console, and what keeps it registered.
fn seat(services: &Services) -> (Console, Registration, Inbox) {
    let peer = SocketAddr::from(([127, 0, 0, 1], 4000));
    let (registration, inbox) = services
        .registry
        .register(peer, usize::MAX)
        .expect("no limit per address");
    let seat = Seat::new(services.clone(), registration.id(), peer.ip())
        .expect("a registered session has a seat");
    (Console::lobby(seat), registration, inbox)
}

/// `line`, with `seed=1` added when it starts a 2048 game without a seed.
fn seeded(console: &Console, line: &str) -> String {
    if console.game().is_none() {
        if let Some(Play { kind, args }) = commands::starts_game(line) {
            if kind.name == "2048" && matches!(twenty48::parse_args(&args), Ok((_, None))) {
                return format!("{line} seed=1");
            }
        }
    }
    String::from(line)
}

/// Carries out `outcome`, running its jobs; false when the console closed.
async fn settle(
    console: &mut Console,
    context: &Arc<Context>,
    mut outcome: Outcome,
    line: &str,
) -> bool {
    // A game's first reply may be a save (a job), and its outcome a text: never more.
    for _ in 0..4 {
        match outcome {
            Outcome::Send(text) => {
                assert!(
                    text.ends_with(lobby::PROMPT)
                        || text.ends_with(PROMPT)
                        || text.ends_with(": ")
                        || console.seat().is_some_and(|seat| seat.is_watching()),
                    "no prompt after {line:?}: {text:?}"
                );
                assert!(
                    text.ends_with(console.prompt()),
                    "the prompt of elsewhere after {line:?}: {text:?}"
                );
                return true;
            }
            Outcome::Close(_) => return false,
            Outcome::Wait(job) => outcome = console.finish(job.run(Arc::clone(context)).await),
        }
    }
    panic!("job after job after {line:?}");
}

/// The running game's state, if it has one, loads again as printed.
fn check_state(console: &Console) {
    if let Some(state) = console.game_state() {
        let loaded = wumpus::parse_cave(&state);
        assert_eq!(
            loaded.map(|cave| cave.to_string()).as_ref(),
            Ok(&state),
            "the state does not load again:\n{state}"
        );
    }
}

/// Runs `f` with the built-in levels and an empty data directory of its own, so that
/// no input sees what an earlier one saved and a crash replays alike.
///
/// The levels are read once per process (reading them for every input would cost
/// more than the input); the data directory is made for every input, on `/dev/shm`
/// where there is one, since saves sync to disk and a disk would slow every `save`.
fn with_context(f: impl FnOnce(Arc<Context>, &FuzzTable)) {
    static TABLE: OnceLock<FuzzTable> = OnceLock::new();
    static LEVELS: OnceLock<Levels> = OnceLock::new();
    let table = TABLE.get_or_init(FuzzTable::new);
    let levels = LEVELS.get_or_init(|| {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "built-in levels: {problems:?}");
        levels
    });
    let shm = Path::new("/dev/shm");
    let data_dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("a temporary data directory");
    // Cloning the levels copies a few reference counts, not the levels.
    let context = Arc::new(Context {
        levels: levels.clone(),
        data_dir: data_dir.path().to_path_buf(),
    });
    f(context, table);
}
