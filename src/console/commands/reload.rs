//! `reload`: an admin has the levels read again from disk.

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::{FileWork, Job, Work};
use crate::console::{Console, Outcome};

/// `reload`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "reload",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("reload"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    let contexts = seat.services().contexts.clone();
    Outcome::Wait(Job::new(Work::Files(FileWork::Reload(contexts))))
}
