//! `bot-play GAME AGENT [seeds=A-B]` (SPEC section 12): a built-in agent plays in the
//! server as a session of its own, a bot named after it (`kb-17 [bot]` in `who`), so
//! that anyone can `watch` it. Its console is a player's like any other; this task
//! types for it: each seed's `play`, then the agent's choice after every state, at a
//! pace a watcher can follow, and hands it the messages a session would (a watcher
//! arriving, a kick, the server stopping).

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;

use crate::agents::driver;
use crate::catalog::table::{Context, GameKind};
use crate::ladders::seeds;
use crate::players::inbox::{Bell, Inbox, Next};
use crate::players::moves::{Ask, Packed, Verdict};
use crate::seat::{Seat, Services};

use super::{Console, Outcome};

/// The most agents playing as sessions at once on this server: each may hold a
/// search's tables (the 2048 agent's cache is up to 40 MB).
pub const MAX_AGENTS: usize = 4;

/// The most agents one address may have playing at once.
pub const AGENTS_PER_ADDRESS: usize = 1;

/// The most seeds one `bot-play` plays.
pub const MAX_SEEDS: u64 = 100;

/// The time between an agent's moves: slow enough to watch.
pub const PACE: Duration = Duration::from_millis(250);

/// The most moves of one seed's game (a random agent in a level of boxes never ends
/// it by itself).
const MAX_MOVES: u64 = 2_000;

/// An agent's run, as `bot-play` asked for it.
#[derive(Debug, Clone)]
pub struct AgentRun {
    /// The game.
    pub kind: &'static GameKind,
    /// The agent's name (`random`, `kb`, `expectimax`).
    pub agent: &'static str,
    /// The first and the last seed.
    pub seeds: (u64, u64),
    /// Where the player who asked connects from: the session counts there.
    pub address: IpAddr,
}

/// Start the agent's session; its name, or why not.
///
/// # Errors
/// The whole sentence to say: too many agents, or the address has too many sessions.
pub fn start(services: &Services, run: AgentRun, context: Arc<Context>) -> Result<String, String> {
    let place = Place::take(&services.agents, run.address)?;
    let peer = SocketAddr::new(run.address, 0);
    let registered = services.registry.register(peer, usize::MAX);
    let Ok((registration, inbox)) = registered else {
        return Err(String::from(
            "The server has no room for another session now.",
        ));
    };
    let Some(seat) = Seat::new(services.clone(), registration.id(), run.address) else {
        return Err(String::from(
            "The server has no room for another session now.",
        ));
    };
    let name = format!("{}-{}", run.agent, registration.id().number());
    let task_name = name.clone();
    tokio::spawn(async move {
        let mut console = Console::lobby(seat);
        play(&mut console, inbox, &task_name, &run, &context).await;
        drop(console);
        drop(registration);
        drop(place);
    });
    Ok(name)
}

/// An agent's place among those playing, given back when dropped.
struct Place {
    agents: Arc<Mutex<Vec<IpAddr>>>,
    address: IpAddr,
}

impl Place {
    /// A place for an agent of `address`, or why not.
    fn take(agents: &Arc<Mutex<Vec<IpAddr>>>, address: IpAddr) -> Result<Place, String> {
        let mut playing = agents.lock().unwrap_or_else(PoisonError::into_inner);
        if playing.len() >= MAX_AGENTS {
            return Err(format!(
                "{MAX_AGENTS} agents are playing already: watch one of them (who lists them), or try later."
            ));
        }
        if playing.iter().filter(|&&a| a == address).count() >= AGENTS_PER_ADDRESS {
            return Err(String::from(
                "An agent started from your address is playing already: watch it, or wait until it is done.",
            ));
        }
        playing.push(address);
        Ok(Place {
            agents: Arc::clone(agents),
            address,
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut playing = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = playing.iter().position(|&a| a == self.address) {
            playing.swap_remove(at);
        }
    }
}

/// Run `outcome`'s jobs; false when the session is to end.
async fn settle(console: &mut Console, mut outcome: Outcome, context: &Arc<Context>) -> bool {
    loop {
        match outcome {
            Outcome::Send(_) => return true,
            Outcome::Close(_) => return false,
            Outcome::Wait(job) => outcome = console.finish(job.run(Arc::clone(context)).await),
        }
    }
}

/// Hand the session's messages to the console for `pause`; false when it is to end
/// (kicked, or the server stops).
async fn wait(
    console: &mut Console,
    inbox: &mut Inbox,
    pause: Duration,
    context: &Arc<Context>,
) -> bool {
    let until = tokio::time::Instant::now() + pause;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(until) => return true,
            next = inbox.next() => match next {
                Next::Bell(Bell::Shutdown) => return false,
                Next::Bell(Bell::Alarm) => {}
                // An agent's task cannot move to another process: it stops once the
                // new server serves (docs/operating.md, "Upgrades").
                Next::Bell(Bell::Move) => {
                    let waiting = console.seat().and_then(|seat| {
                        seat.services().roll_call.answer(seat.id(), Packed::Closes)
                    });
                    if let Some(mut asks) = waiting {
                        while let Some(ask) = asks.recv().await {
                            match ask {
                                Ask::Verdict(Verdict::Moved) => return false,
                                Ask::Verdict(Verdict::Stay) => break,
                                // Never asked of an agent, which does not move.
                                Ask::Socket(_) => {}
                            }
                        }
                    }
                }
                Next::Delivery(delivery) => {
                    let outcome = console.on_message(delivery.message, delivery.skipped);
                    if !settle(console, outcome, context).await {
                        return false;
                    }
                }
            },
        }
    }
}

async fn play(
    console: &mut Console,
    mut inbox: Inbox,
    name: &str,
    run: &AgentRun,
    context: &Arc<Context>,
) {
    let outcome = console.handle_line(&format!("bot {name}"));
    if !settle(console, outcome, context).await || !console.is_bot() {
        return;
    }
    for seed in run.seeds.0..=run.seeds.1 {
        let Ok(args) = seeds::play_args(run.kind.name, seed, &[]) else {
            return;
        };
        let play = json!({ "command": format!("play {} {}", run.kind.name, args.join(" ")) });
        let outcome = console.handle_line(&play.to_string());
        if !settle(console, outcome, context).await {
            return;
        }
        let Some(mut policy) = driver::agent(run.agent, run.kind.name, seed) else {
            return;
        };
        let mut moves = 0;
        while let Some(observed) = console.agent_view() {
            if !wait(console, &mut inbox, PACE, context).await {
                return;
            }
            let line = match policy.choose(&observed) {
                Some(action) if moves < MAX_MOVES => json!({ "action": action }),
                _ => json!({ "command": "leave" }),
            };
            moves += 1;
            let outcome = console.handle_line(&line.to_string());
            if !settle(console, outcome, context).await {
                return;
            }
        }
        // A moment on the last position before the next seed.
        if !wait(console, &mut inbox, PACE * 4, context).await {
            return;
        }
    }
}

impl Console {
    /// What an agent playing this session sees of its game, if one runs.
    pub(super) fn agent_view(&self) -> Option<crate::games::bot::Observation> {
        let playing = self.game.as_ref()?;
        Some(playing.game.observe(&self.memory))
    }
}
