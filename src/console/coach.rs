//! The console's side of the help for stuck Sokoban players (SPEC section 13): the
//! warning after a push, and `/hint` and `/solve` handed to the solver's threads as a
//! job, their answers said, recorded, and (with `--allow-solutions`) played out.
//!
//! What the help says goes into the game's recording as a line of its own that starts
//! with `/` (`/hint` and the answer under it): a game never sees such a line, so a
//! replay shows it and plays on, and a result reached after a hint is marked as helped
//! by the recording itself ([`crate::records::recording::is_help`]).

use crate::coach::ask::{Ask, Found, Snapshot};
use crate::coach::{walk, words};
use crate::games::boxes::walk_lines;

use super::jobs::{Job, Work};
use super::{Console, Outcome};

/// `/hint` or `/solve` outside a game of boxes.
const NOT_BOXES: &str = "/hint and /solve help in sokoban and starpusher games.\n";

/// `/hint` or `/solve` in a race.
const NOT_IN_RACE: &str = "No help in a race: every racer plays on their own.\n";

impl Console {
    /// `/hint` or `/solve`: a job for the solver's threads, or why not.
    pub(super) fn ask_coach(&mut self, ask: Ask) -> Outcome {
        let Some(seat) = &self.seat else {
            return self.say(String::from(NOT_BOXES));
        };
        let Some(playing) = &self.game else {
            return self.say(String::from(NOT_BOXES));
        };
        if playing.race.is_some() {
            return self.say(String::from(NOT_IN_RACE));
        }
        let Some(boxes) = playing.game.boxes() else {
            return self.say(String::from(NOT_BOXES));
        };
        let snapshot = Snapshot {
            world: boxes.world.clone(),
            history: boxes.history.iter().copied().collect(),
            undo: boxes.undo,
        };
        let coach = seat.services().coach.clone();
        let address = seat.address();
        Outcome::Wait(Job::new(Work::Coach {
            ask,
            snapshot,
            coach,
            address,
        }))
    }

    /// What the solver found for `/hint` or `/solve` from `snapshot`.
    pub(super) fn coached(
        &mut self,
        ask: Ask,
        snapshot: &Snapshot,
        found: Result<Found, &'static str>,
    ) -> Outcome {
        let found = match found {
            Ok(found) => found,
            Err(busy) => return self.say(String::from(busy)),
        };
        // The game moved on meanwhile (it cannot: the session waits for the job), or
        // ended: nothing to say about a position that is gone.
        let same = self
            .game
            .as_ref()
            .and_then(|playing| playing.game.boxes())
            .is_some_and(|boxes| *boxes.world == snapshot.world);
        if !same {
            return self.say(String::new());
        }
        let plays_out = ask == Ask::Solve
            && self
                .seat
                .as_ref()
                .is_some_and(|seat| seat.services().coach.allows_solutions());
        let text = match (&found, ask) {
            (Found::Plan(plan), _) if plan.pushes().is_empty() => {
                String::from("Nothing is left to push.\n")
            }
            (Found::Plan(plan), Ask::Hint) => words::hint(&plan.pushes()[0]),
            (Found::Plan(plan), Ask::Solve) => {
                let left = crate::text::count(plan.pushes().len() as u64, "push", "pushes");
                match (plan.fewest, plays_out) {
                    (true, false) => format!("At best {left} are left.\n"),
                    (false, false) => format!(
                        "A solution from here takes {left} (the fewest was not found in time).\n"
                    ),
                    (_, true) => format!("The solver plays {left} for you.\n"),
                }
            }
            (
                Found::Stuck {
                    moves_back: Some(back),
                },
                _,
            ) => words::stuck(*back, snapshot.undo),
            (Found::Stuck { moves_back: None }, _) => format!(
                "No solution from here, and none found in the moves that can be taken back. {}\n",
                words::way_back(snapshot.undo)
            ),
            (Found::TooHard, _) => String::from(
                "The solver found nothing from here in its time: try again after a few pushes.\n",
            ),
        };
        let text = crate::text::wrap(&text, crate::text::COLUMNS, "  ").into_owned();
        let typed = match ask {
            Ask::Hint => "/hint",
            Ask::Solve => "/solve",
        };
        self.record_help(&format!("{typed}\n{}", text.trim_end()));
        match found {
            Found::Plan(plan) if plays_out => {
                match walk::steps_for(&snapshot.world, plan.pushes()) {
                    Some(steps) => self.play_out(text, &walk_lines(&steps)),
                    None => self.say(String::from(
                        "The solver's moves do not fit this position: ask again.\n",
                    )),
                }
            }
            _ => self.say(text),
        }
    }

    /// Play `lines` as if typed, after `text`: what the last of them shows.
    fn play_out(&mut self, mut text: String, lines: &[String]) -> Outcome {
        let mut last = Outcome::Send(String::new());
        for line in lines {
            last = self.play_line(line);
            let over = self.game.is_none();
            if over || !matches!(last, Outcome::Send(_)) {
                break;
            }
        }
        match last {
            Outcome::Send(reply) => {
                text.push_str(&reply);
                Outcome::Send(text)
            }
            other => other,
        }
    }

    /// Put a line of help into the game's recording (marking the result to come as
    /// helped, for `/hint` and `/solve`).
    fn record_help(&mut self, line: &str) {
        if let Some(tape) = self.game.as_mut().and_then(|playing| playing.tape.as_mut()) {
            tape.input(line);
        }
    }

    /// The solver proved a corral dead after a push (a [`Message::Deadlock`]): the
    /// warning, if the game is still at that position and the player wants it.
    ///
    /// [`Message::Deadlock`]: crate::players::inbox::Message::Deadlock
    pub(super) fn late_warning(&mut self, position: u64, text: &str) -> Outcome {
        let current = self
            .game
            .as_ref()
            .and_then(|playing| playing.game.boxes())
            .map(|boxes| crate::solver::position_key(boxes.world));
        let due = current == Some(position)
            && self
                .seat
                .as_mut()
                .is_some_and(|seat| seat.wants_warnings() && seat.take_warning(true));
        if !due {
            return Outcome::Send(String::new());
        }
        let text = crate::text::wrap(text, crate::text::COLUMNS, "  ").into_owned();
        self.record_help(&format!("/warning\n{}", text.trim_end()));
        self.show_watchers(&format!("\n{text}"));
        Outcome::Send(format!("\n{text}{}", self.prompt()))
    }

    /// After a game's line: the warning, if the player wants warnings, the line moved a
    /// box, and the position is now a deadlock the cheap checks prove (said once, until
    /// the player is out of it). `pushes_before`: the pushes before the line.
    pub(super) fn warning_after(&mut self, pushes_before: Option<u64>) -> Option<String> {
        let seat = self.seat.as_ref()?;
        if !seat.wants_warnings() {
            return None;
        }
        let playing = self.game.as_ref()?;
        let boxes = playing.game.boxes()?;
        if Some(boxes.pushes) == pushes_before {
            return None;
        }
        let warning = seat.services().coach.warning(&boxes, &seat.own_inbox());
        let due = self
            .seat
            .as_mut()
            .is_some_and(|seat| seat.take_warning(warning.is_some()));
        let warning = warning.filter(|_| due)?;
        let warning = crate::text::wrap(&warning, crate::text::COLUMNS, "  ").into_owned();
        self.record_help(&format!("/warning\n{}", warning.trim_end()));
        Some(warning)
    }
}
