//! The console's side of bot mode (SPEC section 12, docs/bots.md): after `bot NAME`,
//! every line in is one JSON object and every line out is one.
//!
//! A line is either `{"action": "..."}`, one of the running game's legal actions,
//! played as the line a person would type ([`crate::games::Game::action_line`]), or
//! `{"command": "..."}`, a lobby or player command as typed (in a game, as if after
//! `/`). What the console would have said is then turned into JSON here, in one place:
//! after an action, or a command that started a game, the game's `state`; when a game
//! ends, its last state with `done: true`; otherwise the words as `text` (answers to
//! the bot's own commands) or `message` (what others send), and `error` for a line
//! that is not a request. The game's own words are not sent: its state says it all.
//!
//! The play is the same as a person's: recordings, replays, watchers and races see
//! the lines the actions stand for.

use serde::Serialize;
use serde_json::Value;

use super::{bot_of, commands, lobby, Console, Outcome};
use crate::games;

/// The protocol's version in `welcome`: raised only if a field ever changes meaning
/// (fields are added, never changed: docs/bots.md).
pub const PROTOCOL: u32 = 1;

/// A session in bot mode.
#[derive(Debug, Default)]
pub(super) struct BotMode {
    /// What the line being answered was: how its outcome is put (kept across a job).
    turn: Turn,
    /// The last state of a game that ended while answering, sent with `done: true`.
    last: Option<String>,
    /// The seed and arguments of the game being played.
    game: Option<Started>,
    /// A game began while answering: its first state goes out with the answer.
    began: bool,
    /// What the ladder says while answering (a forfeit, the last seed): sent as
    /// `text`, after the last state of the game that ended.
    note: String,
}

/// The game a bot plays, as started.
#[derive(Debug)]
pub(super) struct Started {
    /// The `seed=N` among its arguments, if any.
    seed: Option<u64>,
    /// Its arguments, as recorded (a drawn seed included).
    args: Vec<String>,
}

/// What the console is answering.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// One of the game's actions.
    Action,
    /// A command, typed in a game or not.
    #[default]
    Command,
    /// A message from elsewhere.
    Message,
}

/// One line from a bot.
#[derive(Debug, PartialEq, Eq)]
enum Request<'a> {
    /// `{"action": "up"}`.
    Action(&'a str),
    /// `{"command": "play 2048 seed=1"}`.
    Command(&'a str),
}

/// What a request line looked like, for [`parse`] to borrow from.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestLine<'a> {
    #[serde(borrow)]
    action: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    command: Option<std::borrow::Cow<'a, str>>,
}

/// Why a line is not a request.
const NOT_A_REQUEST: &str = "Send one JSON object per line: {\"action\": \"ACTION\"} in a game, or {\"command\": \"COMMAND\"} (such as {\"command\": \"play 2048\"}).";

/// Read a bot's line: exactly one of `action` and `command`, a string.
fn parse(line: &str) -> Result<RequestLine<'_>, String> {
    let request: RequestLine<'_> = serde_json::from_str(line)
        .map_err(|error| format!("That line is not a request ({error}). {NOT_A_REQUEST}"))?;
    match (&request.action, &request.command) {
        (Some(_), None) | (None, Some(_)) => Ok(request),
        _ => Err(format!("Give one of action and command. {NOT_A_REQUEST}")),
    }
}

/// The `state` line of a game.
#[derive(Serialize)]
struct StateLine<'a> {
    r#type: &'static str,
    game: &'static str,
    seed: Option<u64>,
    args: &'a [String],
    observation: Value,
    legal: Vec<&'static str>,
    score: i64,
    done: bool,
    /// Time left for this move; `null` where no clock runs (only ladders have one).
    clock_ms: Option<u64>,
}

/// One JSON line of `kind` with a `field` of text.
fn words(kind: &'static str, field: &'static str, text: &str) -> String {
    let mut object = serde_json::Map::new();
    object.insert("type".into(), Value::from(kind));
    object.insert(field.into(), Value::from(text));
    line(&Value::Object(object))
}

/// A JSON value as one line.
fn line(value: &impl Serialize) -> String {
    match serde_json::to_string(value) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        // Maps with string keys and plain values always serialize.
        Err(error) => format!("{{\"type\":\"error\",\"message\":\"{error}\"}}\n"),
    }
}

/// An `error` line.
pub(super) fn error(message: &str) -> String {
    words("error", "message", message)
}

/// What the console would have said, without its prompt and the blank lines around.
fn bare(text: &str) -> &str {
    let text = text
        .strip_suffix(lobby::PROMPT)
        .or_else(|| text.strip_suffix(games::PROMPT))
        .unwrap_or(text);
    text.trim_matches('\n')
}

impl Console {
    /// Whether the session is in bot mode.
    pub fn is_bot(&self) -> bool {
        self.bot().is_some()
    }

    /// What the server says of itself (a line too long, an idle warning, its last
    /// words before closing): for a bot, one `message` line, so that every line it
    /// reads is JSON.
    pub fn server_says(&self, text: &str) -> String {
        if self.bot().is_none() {
            return text.to_string();
        }
        let said = bare(text);
        if said.is_empty() {
            String::new()
        } else {
            words("message", "text", said)
        }
    }

    /// The seat became a bot (`bot NAME` was taken): bot mode on, and its `welcome`.
    pub(super) fn bot_mode_on(&mut self, said: &str) -> Outcome {
        self.rare.get_or_insert_with(Box::default).bot = Some(BotMode::default());
        let name = self
            .seat
            .as_ref()
            .map_or_else(String::new, |seat| seat.player().name.to_string());
        let games: Vec<&str> = crate::catalog::table::GAMES
            .iter()
            .map(|kind| kind.name)
            .collect();
        let welcome = serde_json::json!({
            "type": "welcome",
            "name": name,
            "protocol": PROTOCOL,
            "games": games,
            "text": bare(said),
        });
        Outcome::Send(line(&welcome))
    }

    /// A line from a bot.
    pub(super) fn bot_line(&mut self, text: &str) -> Outcome {
        let request = match parse(text) {
            Ok(request) => request,
            Err(message) => return Outcome::Send(error(&message)),
        };
        let request = match (&request.action, &request.command) {
            (Some(action), _) => Request::Action(action),
            (_, Some(command)) => Request::Command(command),
            (None, None) => return Outcome::Send(error(NOT_A_REQUEST)),
        };
        match request {
            Request::Action(action) => self.bot_action(action),
            Request::Command(_) if self.seat.is_none() => Outcome::Send(error(
                "arcade play --bot plays one game: send actions only ({\"action\": ...}).",
            )),
            Request::Command(command) => {
                self.set_turn(Turn::Command);
                // A command is never a game's line: in a game it goes after `/`.
                let command = command.trim();
                let outcome = if self.game.is_some() {
                    match commands::split(command) {
                        Some(_) => self.handle_typed(&format!("/{command}")),
                        None => Outcome::Send(error(
                            "Which command? {\"command\": \"help\"} lists them.",
                        )),
                    }
                } else {
                    self.handle_typed(command)
                };
                self.for_bot(outcome)
            }
        }
    }

    /// `{"action": ...}`: played if legal now.
    fn bot_action(&mut self, action: &str) -> Outcome {
        let Some(playing) = &self.game else {
            return Outcome::Send(error(
                "You are not in a game: start one with {\"command\": \"play GAME\"}.",
            ));
        };
        let observed = playing.game.observe(&self.memory);
        let typed = observed
            .legal
            .contains(&action)
            .then(|| playing.game.action_line(action))
            .flatten();
        let Some(typed) = typed else {
            let legal = if observed.legal.is_empty() {
                String::from("none (leave with {\"command\": \"leave\"})")
            } else {
                observed.legal.join(", ")
            };
            let shown = crate::text::one_line(action);
            return Outcome::Send(error(&format!(
                "{shown:?} is not a legal action now. Legal now: {legal}."
            )));
        };
        self.set_turn(Turn::Action);
        let outcome = self.play_line(typed);
        self.for_bot(outcome)
    }

    fn set_turn(&mut self, turn: Turn) {
        if let Some(bot) = bot_of(&mut self.rare) {
            bot.turn = turn;
        }
    }

    /// Keep `note` for the bot's answer (after the last state of a game that ended);
    /// whether the session is a bot's.
    pub(super) fn bot_note(&mut self, note: &str) -> bool {
        let Some(bot) = bot_of(&mut self.rare) else {
            return false;
        };
        bot.note.push_str(note);
        true
    }

    /// A message from elsewhere, for a bot.
    pub(super) fn bot_message(&mut self, outcome: Outcome) -> Outcome {
        self.set_turn(Turn::Message);
        self.for_bot(outcome)
    }

    /// The game a bot starts: its seed and arguments, for its states.
    pub(super) fn bot_game_started(&mut self, args: &[String]) {
        if let Some(bot) = bot_of(&mut self.rare) {
            let seed = args
                .iter()
                .find_map(|arg| arg.strip_prefix("seed="))
                .and_then(|seed| seed.parse().ok());
            bot.game = Some(Started {
                seed,
                args: args.to_vec(),
            });
            bot.began = true;
        }
    }

    /// A game moved here by an upgrade is being played: a bot's states name it, as
    /// before the upgrade, and nothing new began.
    pub(super) fn bot_moved_in(&mut self, args: &[String]) {
        self.bot_game_started(args);
        if let Some(bot) = bot_of(&mut self.rare) {
            bot.began = false;
        }
    }

    /// The game is about to end: its last state, with `done: true`, goes out with
    /// the answer.
    pub(super) fn bot_game_ending(&mut self) {
        if self.bot().is_some() {
            let last = self.state_line(true);
            if let Some(bot) = bot_of(&mut self.rare) {
                bot.last = last;
                bot.game = None;
            }
        }
    }

    /// The running game's `state` line (`done` when it has ended: its last).
    fn state_line(&self, ended: bool) -> Option<String> {
        let playing = self.game.as_ref()?;
        let started = self.bot().and_then(|bot| bot.game.as_ref());
        let observed = playing.game.observe(&self.memory);
        let state = StateLine {
            r#type: "state",
            game: playing.kind.name,
            seed: started.and_then(|started| started.seed),
            args: started.map_or(&[], |started| started.args.as_slice()),
            observation: observed.observation,
            legal: if ended { Vec::new() } else { observed.legal },
            score: observed.score,
            done: ended,
            clock_ms: self.ladder_clock_ms(),
        };
        Some(line(&state))
    }

    /// What the console said, as a bot is told it (a job's answer waits for
    /// [`Console::finish`], which puts it the same way).
    pub(super) fn for_bot(&mut self, outcome: Outcome) -> Outcome {
        let Some(bot) = bot_of(&mut self.rare) else {
            return outcome;
        };
        let (text, close) = match outcome {
            Outcome::Wait(job) => return Outcome::Wait(job),
            Outcome::Send(text) => (text, false),
            Outcome::Close(text) => (text, true),
        };
        let turn = bot.turn;
        let last = bot.last.take();
        let began = std::mem::take(&mut bot.began) && self.game.is_some();
        let mut out = String::new();
        let said = bare(&text);
        match turn {
            Turn::Action => {}
            Turn::Command if !said.is_empty() && last.is_none() && !began => {
                out.push_str(&words("text", "text", said));
            }
            Turn::Message if !said.is_empty() && !began => {
                out.push_str(&words("message", "text", said));
            }
            Turn::Command | Turn::Message => {}
        }
        let ended = last.is_some();
        if let Some(last) = last {
            out.push_str(&last);
        }
        if let Some(bot) = bot_of(&mut self.rare) {
            let note = std::mem::take(&mut bot.note);
            let note = note.trim_matches('\n');
            if !note.is_empty() {
                out.push_str(&words("text", "text", note));
            }
        }
        // After an action, the game's state; after a game's end, only a game that
        // began since (a ladder's next seed).
        if self.game.is_some() && (began || (turn == Turn::Action && !ended)) {
            if let Some(state) = self.state_line(false) {
                out.push_str(&state);
            }
        }
        if close {
            Outcome::Close(out)
        } else {
            Outcome::Send(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_one_of_action_and_command() {
        let action = parse(r#"{"action": "up"}"#).unwrap();
        assert_eq!(action.action.as_deref(), Some("up"));
        let command = parse(r#"{"command":"play 2048 seed=1"}"#).unwrap();
        assert_eq!(command.command.as_deref(), Some("play 2048 seed=1"));
        // Escapes are read as JSON reads them.
        let escaped = parse(r#"{"command":"say \"hi\""}"#).unwrap();
        assert_eq!(escaped.command.as_deref(), Some("say \"hi\""));
        for bad in [
            "up",
            "",
            "{}",
            r#"{"action": "up", "command": "who"}"#,
            r#"{"action": 3}"#,
            r#"{"move": "up"}"#,
            r#"["up"]"#,
        ] {
            let message = parse(bad).err().unwrap_or_default();
            assert!(message.contains(NOT_A_REQUEST), "{bad}: {message}");
        }
    }

    #[test]
    fn words_are_one_json_line() {
        let text = words("error", "message", "a \"quoted\"\nline");
        assert!(text.ends_with('\n'));
        assert_eq!(text.matches('\n').count(), 1);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["type"], "error");
        assert_eq!(value["message"], "a \"quoted\"\nline");
    }

    #[test]
    fn bare_text_has_no_prompt_nor_blank_lines_around() {
        assert_eq!(bare("\nYou are now ada.\n> "), "You are now ada.");
        assert_eq!(bare("Bye!\nEnter command: "), "Bye!");
        assert_eq!(bare("> "), "");
    }
}
