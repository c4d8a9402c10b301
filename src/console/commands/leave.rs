//! `leave`: in the lobby, leave the race the player waits in (SPEC section 9); in a
//! game, `/leave` leaves it as the game's own exit would (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat::Seat;

/// `leave`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "leave",
    place: Place::Everywhere,
    admins_only: false,
    // In the lobby's help, `join`'s line tells of it.
    help: Help::InGame("  /leave             leave this game\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    if let Some(playing) = &console.game {
        let exit = playing.game.exit_command();
        // In a ladder, the seed ends as left and the ladder stops there.
        console.leaving_ladder();
        return console.play_line(exit);
    }
    let text = match console.seat.as_mut().and_then(Seat::leave_race) {
        Some(text) => text,
        None => String::from("You are in the lobby: quit leaves the arcade.\n"),
    };
    console.say(text)
}
