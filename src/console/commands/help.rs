//! `help` (in a game, `/help`): the commands, built from each command's own lines in
//! the table, in the table's order.
//!
//! Every line fits 80 columns (issue 30): help is what a new player reads first. In a
//! game, the game's own lines follow the keys mode (`d3` cannot be typed when `d`
//! acts at once).

use std::fmt::Write as _;

use super::{Args, CommandSpec, Help, Place, COMMANDS};
use crate::catalog::table::GAMES;
use crate::console::{Console, Outcome};
use crate::text::{wrap_list, COLUMNS};

/// Where a command's description starts, and its continuation lines.
const DESCRIPTION_INDENT: &str = "                     ";

/// `help`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "help",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Last("  help               this list\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let text = match &console.game {
        Some(playing) => {
            let keys_on = console.settings().keys;
            in_game(&playing.kind.keys.game_help(playing.game.help(), keys_on))
        }
        None => text(),
    };
    console.say(text)
}

/// Every command's lines of one part of help, in the table's order.
fn lines(text: &mut String, part: fn(&Help) -> Option<&'static str>) {
    for command in COMMANDS {
        if let Some(lines) = part(&command.help) {
            text.push_str(lines);
        }
    }
}

/// The lines of the player commands, the same in the lobby and (after a `/`) in a game.
pub fn player_commands() -> String {
    let mut text = String::new();
    lines(&mut text, |help| match help {
        Help::Player(lines) => Some(lines),
        _ => None,
    });
    text
}

/// The text of `help` in the lobby, without the prompt.
pub fn text() -> String {
    let mut text = String::from("Commands:\n");
    lines(&mut text, |help| match help {
        Help::Lobby(lines) => Some(lines),
        _ => None,
    });
    text.push_str(&player_commands());
    let mut admins: Vec<String> = COMMANDS
        .iter()
        .filter_map(|command| match command.help {
            Help::Admin(usage) => Some(String::from(usage)),
            _ => None,
        })
        .collect();
    // `race ... all` is `race`'s, for admins: it ends their lines.
    admins.push(String::from("race ... all"));
    text.push_str(&wrap_list(
        "  for admins:        ",
        &admins,
        COLUMNS,
        DESCRIPTION_INDENT,
    ));
    lines(&mut text, |help| match help {
        Help::Last(lines) => Some(lines),
        _ => None,
    });
    text.push_str("In a game, type these with a / first (/who, /say hi); /help and /leave\nwork in every game.\nGames:\n");
    // Two lines a game, so that help fits an 80-column telnet window.
    for usage in GAMES.iter().map(|kind| kind.usage) {
        let _ = writeln!(text, "  {}\n      {}", usage.args, usage.about);
    }
    text
}

/// The text of `/help` in a game whose own commands are `game_help`.
fn in_game(game_help: &str) -> String {
    let mut text = String::from("Player commands, with a / first in a game:\n");
    text.push_str(&player_commands());
    lines(&mut text, |help| match help {
        Help::InGame(lines) => Some(lines),
        _ => None,
    });
    text.push_str("This game's commands:\n");
    text.push_str(game_help);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `help` as it was written by hand before the commands had files of their own.
    const HELP: &str = "Commands:
  play GAME [ARGS]   start a game (or just: GAME [ARGS])
  levels [GAME]      list what a game can load
  resume             go on with your unfinished game (registered names)
  replay ID [SPEED]  watch a recorded game again; any line stops it
  race GAME [ARGS] [time=5m]
                     open a race of GAME: the same game for everyone who joins
  races              the open races
  join N             join race N (leave leaves it)
  start              start the race you host
  bot NAME [TOKEN]   play as a program: JSON lines both ways (docs/bots.md)
  bot-play GAME AGENT [seeds=A-B]  a built-in agent plays, to watch
  ladders            the open ladders: every entrant plays the same seeds
  ladder N           ladder N's table (ladder enter N plays its seeds;
                     ladder results N NAME, one entrant's seeds)
  who                who is online, where, idle how long, watched by how many
  say TEXT           to everyone in the same place (the lobby, or a game
                     and its watchers)
  tell NAME TEXT     to one player
  watch NAME         see NAME's game as it happens; any line stops watching
  watch race N       the standings of race N as they change
  name NAME          take a name (a registered one asks for its password)
  register           protect your name with a password
  sshkey add KEY     log in over SSH with this public key (sshkey list,
                     sshkey remove N)
  bottoken new       a token your bot program logs in with (bottoken list,
                     bottoken revoke N)
  set [OPTION on|off]  your settings: chat, keys (single keys, for telnet: a
                     game's keys act at once on an empty line; type d3 as D3),
                     color (boards in colour, drawn in place), warnings
                     (Sokoban: say when a push leaves a level unsolvable),
                     reader (for screen readers: games in words, no drawing);
                     quiet is set chat off
  top [GAME [LEVEL]] the leaderboards
  stats [NAME]       a player's results
  recordings [NAME]  recent games, with an id to replay
  standings          the standings of your race
  for admins:        broadcast TEXT, kick NAME [for TIME] [WHY],
                     unregister NAME, reload, upgrade, race ... all
  help               this list
  quit               leave
In a game, type these with a / first (/who, /say hi); /help and /leave
work in every game.
Games:
  sokoban [LEVEL]
      classic Sokoban (default level: classic)
  starpusher [COLLECTION] [LEVEL-NUMBER]
      level collections (default: the first, level 1)
  2048 [size=N] [win=N] [seed=N] [style=box|ascii]
      slide and merge tiles (default: size=4 win=2048 box)
  wumpus [WORLD | random [seed=N] [size=N] [pits=P]]
      the wumpus cave (default: classic; also a saved name, or a random world)
";

    #[test]
    fn help_is_the_same_byte_for_byte_and_fits_80_columns() {
        assert_eq!(text(), HELP);
        for line in HELP.lines() {
            assert!(line.chars().count() <= COLUMNS, "{line}");
        }
    }

    #[test]
    fn help_names_every_game() {
        let text = text();
        for kind in GAMES {
            assert!(text.contains(kind.usage.args), "{}", kind.name);
        }
        assert!(text.contains("2048 [size=N] [win=N] [seed=N] [style=box|ascii]"));
    }

    #[test]
    fn in_game_help_lists_the_player_commands_then_leave_then_the_game() {
        let text = in_game("GAME HELP\n");
        let players = &HELP[HELP.find("\n  who ").unwrap() + 1..HELP.find("  for admins").unwrap()];
        assert_eq!(
            text,
            format!(
                "Player commands, with a / first in a game:\n{players}\
                 {}{}{}{}  /leave             leave this game\nThis game's commands:\nGAME HELP\n",
                "  /hint              Sokoban: the next push of a solution from here\n",
                "  /solve             Sokoban: how many pushes are left at best\n",
                "  /look              the whole game in words (set reader on)\n",
                "  /where             where you are in the game, in words\n",
            )
        );
    }
}
