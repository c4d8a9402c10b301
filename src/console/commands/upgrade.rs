//! `upgrade`: an admin has the server start the binary now on disk as a new process
//! that takes over its sockets and sessions (SPEC section 11). The admin moves with
//! everyone else, so the command does not wait: `The server was upgraded.` says it
//! worked, and `upgrade failed: ...` (as `arcade upgrade` prints it) comes as a line
//! when it did not.

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
            inbox: seat.own_inbox(),
        })),
        None => console.say(String::from(
            "upgrade failed: this server was not started by arcade serve\n",
        )),
    }
}
