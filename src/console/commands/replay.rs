//! `replay ID [SPEED]`: watch a recorded game again (SPEC section 8).

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::StoreWork;
use crate::console::{Console, Outcome, MAX_SPEED};

/// `replay`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "replay",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby("  replay ID [SPEED]  watch a recorded game again; any line stops it\n"),
    run,
};

/// `replay`'s words: the recording and how many times faster, or `None` for the usage.
fn parse(args: Args<'_>) -> Option<(i64, u32)> {
    if args.more_than(2) {
        return None;
    }
    let id = args.word(0)?.parse::<i64>().ok()?;
    let speed = match args.word(1).map(str::parse::<u32>) {
        None => 1,
        Some(Ok(speed)) if (1..=MAX_SPEED).contains(&speed) => speed,
        Some(_) => return None,
    };
    Some((id, speed))
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some((id, speed)) = parse(args) else {
        return console.say(format!(
            "Usage: replay ID [SPEED] (SPEED from 1 to {MAX_SPEED}; recordings lists the ids)\n"
        ));
    };
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    let inbox = seat.own_inbox();
    let address = seat.address();
    let reader = seat.settings().reader;
    console.store_job(StoreWork::Replay {
        id,
        speed,
        inbox,
        address,
        reader,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_id_and_a_speed() {
        assert_eq!(parse(Args::new("12")), Some((12, 1)));
        assert_eq!(parse(Args::new("12 100")), Some((12, 100)));
        assert_eq!(parse(Args::new("12 101")), None);
        assert_eq!(parse(Args::new("12 0")), None);
        assert_eq!(parse(Args::new("12 2 3")), None);
        assert_eq!(parse(Args::new("twelve")), None);
        assert_eq!(parse(Args::new("")), None);
    }
}
