//! Micro-benchmark of what warnings (SPEC 13, `set warnings on`) add to a push's reply:
//! bench/run.sh row 13's push script on its level (bench/levels/starpusher/pushes.txt),
//! through a whole player's console, with warnings on and off.
//!
//! Run with `cargo bench --bench coach`. One iteration is one cycle of the script:
//! eight commands, two of them pushes, so the difference between the two benchmarks
//! divided by two is what a push costs with warnings (the solver's cheap checks, and
//! handing a corral search to the solver's thread, which runs it beside the
//! benchmark). Not part of `cargo test`; the numbers go into docs/BENCHMARKS.md.

use std::hint::black_box;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};

use arcade::catalog::levels::Levels;
use arcade::catalog::table::{Context, Contexts};
use arcade::console::{Console, Outcome};
use arcade::games::PROMPT;
use arcade::players::inbox::Inbox;
use arcade::players::registry::{Registration, Registry};
use arcade::players::throttle::LoginThrottle;
use arcade::records::recorder::Retention;
use arcade::seat::{Seat, Services};
use arcade::store::{DbUrl, Store};

/// Row 13's game and script (bench/run.sh's PUSH_LOBBY and PUSH_COMMANDS).
const LOBBY_LINE: &str = "play starpusher pushes";
const COMMANDS: [&str; 8] = ["d", "s", "d2", "w", "a", "s", "a2", "w"];

/// A console in the game of row 13, with warnings on or off, and what keeps it
/// registered.
struct Player {
    console: Console,
    _registration: Registration,
    _inbox: Inbox,
}

impl Player {
    async fn new(services: &Services, context: &Arc<Context>, warnings: bool) -> Player {
        let peer = SocketAddr::from(([127, 0, 0, 1], 4000));
        let (registration, inbox) = services
            .registry
            .register(peer, usize::MAX)
            .expect("no limit per address");
        let seat = Seat::new(services.clone(), registration.id(), peer.ip())
            .expect("a registered session has a seat");
        let mut console = Console::lobby(seat);
        let setting = if warnings { "on" } else { "off" };
        let mut outcome = console.handle_line(&format!("set warnings {setting}"));
        assert!(
            matches!(outcome, Outcome::Send(_)),
            "a guest's setting is said"
        );
        outcome = console.handle_line(LOBBY_LINE);
        // Starting a game is a job (it may read the disk): run it, as `arcade play` does.
        for _ in 0..4 {
            match outcome {
                Outcome::Wait(job) => {
                    outcome = console.finish(job.run(Arc::clone(context)).await);
                }
                Outcome::Send(ref text) => {
                    assert!(text.ends_with(PROMPT), "the game starts: {text}");
                    break;
                }
                Outcome::Close(_) => panic!("the console closed"),
            }
        }
        Player {
            console,
            _registration: registration,
            _inbox: inbox,
        }
    }

    /// One cycle of the script; every reply must be the game's.
    fn cycle(&mut self) {
        for command in COMMANDS {
            match self.console.handle_line(black_box(command)) {
                Outcome::Send(text) => {
                    debug_assert!(text.ends_with(PROMPT), "{command}: {text}");
                    black_box(text);
                }
                _ => panic!("{command}: not a game's reply"),
            }
        }
    }
}

fn warnings(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let levels_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/levels");
    let (levels, problems) = Levels::load(Some(&levels_dir));
    assert!(problems.is_empty(), "{problems:?}");
    let data = tempfile::tempdir().expect("a data directory");
    let context = Arc::new(Context {
        levels,
        data_dir: data.path().to_path_buf(),
    });
    let services = runtime.block_on(async {
        let store = Store::open(&DbUrl::Memory).await.expect("the store opens");
        Services::start(
            Registry::new(),
            store,
            Contexts::new(Arc::clone(&context), Some(levels_dir.clone())),
            Retention::default(),
            LoginThrottle::with_limits(u32::MAX, u32::MAX),
        )
        .await
        .expect("the services start")
    });
    // The recorder and the solver's thread run beside the benchmark, as in a server.
    let _inside = runtime.enter();
    for (name, on) in [
        (
            "coach/push cycle, warnings off (8 commands, 2 pushes)",
            false,
        ),
        ("coach/push cycle, warnings on (8 commands, 2 pushes)", true),
    ] {
        let mut player = runtime.block_on(Player::new(&services, &context, on));
        // The level's analysis is made once, on the solver's thread, when the first
        // push asks for it: made before timing.
        for _ in 0..10 {
            player.cycle();
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        c.bench_function(name, |b| b.iter(|| player.cycle()));
    }
}

criterion_group!(benches, warnings);
criterion_main!(benches);
