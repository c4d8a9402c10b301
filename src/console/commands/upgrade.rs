//! `upgrade`: an admin has the server start the binary now on disk as a new process
//! that takes over its sockets (SPEC section 11); the answer is `upgraded: ...` or
//! `upgrade failed: ...`, as `arcade upgrade` prints it.

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::{Job, Work};
use crate::console::{Console, Outcome};

/// `upgrade`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "upgrade",
    place: Place::LOBBY,
    admins_only: true,
    help: Help::Admin("upgrade"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    match seat.services().upgrades.clone() {
        Some(requests) => Outcome::Wait(Job::new(Work::Upgrade {
            requests,
            by: seat.player().name.to_string(),
        })),
        None => console.say(String::from(
            "upgrade failed: this server was not started by arcade serve\n",
        )),
    }
}
