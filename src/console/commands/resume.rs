//! `resume`: go on with a registered player's unfinished game (SPEC section 8).

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::StoreWork;
use crate::console::{Console, Outcome};

/// `resume`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "resume",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby("  resume             go on with your unfinished game (registered names)\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    if !seat.is_registered() {
        return console.say(String::from(
            "Only a registered name's games are kept (register): nothing to resume.\n",
        ));
    }
    if let Some(text) = console.waiting_for_race() {
        return console.say(text);
    }
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    let player = seat.player();
    console.store_job(StoreWork::Resume { player })
}
