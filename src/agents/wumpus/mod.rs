//! The wumpus agent: the textbook's knowledge-based agent (AIMA chapter 7, the hybrid
//! agent), which takes no risks.
//!
//! It sees what a player sees: after each command, the percepts the game printed, and
//! where it stands and which way it faces (what reader mode and a bot's observation
//! say). From them it keeps what it knows ([`knowledge`]), then chooses, in order:
//!
//! 1. `grab` on glitter;
//! 2. with the gold, the shortest route back to the exit over known-safe rooms, then
//!    `climb`;
//! 3. the nearest safe room not yet visited ([`route`]: fewest actions);
//! 4. with the arrow, a shot into a room that may hold the wumpus and certainly holds
//!    no pit (the located wumpus first): a hit or a miss makes that room safe;
//! 5. back to the exit and `climb`, out without the gold: nothing safe is left.
//!
//! It never walks into a room that is not certainly safe, so it never dies. [`play`]
//! drives a real [`Wumpus`] game with the command lines a person would type.

pub mod knowledge;
pub mod route;

use crate::games::wumpus::bot::PERCEPTS;
use crate::games::wumpus::cave::{Action, Dim, Orientation, Percept, Pos, MAX_SIDE};
use crate::games::wumpus::Wumpus;
use crate::games::{Finish, Game, Memory, Outcome, Status};

use knowledge::{Knowledge, Pit};

/// What the agent is given after each command: the percepts of this step, where it
/// stands and which way it faces.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// The room the explorer is in.
    pub pos: Pos,
    /// The way it faces.
    pub facing: Orientation,
    /// The percepts printed after the last command (or at the start), in order.
    pub percepts: &'a [Percept],
}

/// The knowledge-based agent.
#[derive(Debug, Clone)]
pub struct Agent {
    knowledge: Knowledge,
    exit: Option<Pos>,
    has_gold: bool,
    has_arrow: bool,
    /// The gold glitters in this room.
    glitter: bool,
    /// The action chosen last, and where it was chosen from.
    last: Option<(Action, Pos, Orientation)>,
}

impl Agent {
    /// An agent that knows the cave's size when `dim` is given (a random world's
    /// `size=`), else learns its walls by bumping into them. It believes it has the
    /// arrow until a shot has no effect.
    pub fn new(dim: Option<Dim>) -> Agent {
        let dim = dim.unwrap_or(Dim {
            width: MAX_SIDE,
            height: MAX_SIDE,
        });
        Agent {
            knowledge: Knowledge::new(dim),
            exit: None,
            has_gold: false,
            has_arrow: true,
            glitter: false,
            last: None,
        }
    }

    /// What the agent knows.
    pub fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    /// Take in `observation` and choose the next action; `None` when the game is over
    /// or nothing sensible is left (no exit known to climb out of).
    pub fn act(&mut self, observation: &Observation<'_>) -> Option<Action> {
        if observation.percepts.iter().any(|p| p.ends_game()) {
            return None;
        }
        self.learn(observation);
        let action = self.choose(observation.pos, observation.facing)?;
        self.last = Some((action, observation.pos, observation.facing));
        Some(action)
    }

    /// Update the knowledge with the result of the last action and this room.
    fn learn(&mut self, observation: &Observation<'_>) {
        let has = |percept: Percept| observation.percepts.contains(&percept);
        if let Some((action, pos, facing)) = self.last {
            let ahead = self.knowledge.dim().neighbour(pos, facing);
            match action {
                Action::MoveForward if has(Percept::Bump) => {
                    if let Some(ahead) = ahead {
                        self.knowledge.wall_at(ahead);
                    }
                }
                Action::Shoot if has(Percept::KilledWumpus) => {
                    self.has_arrow = false;
                    self.knowledge.wumpus_killed();
                }
                Action::Shoot => {
                    // A miss, or no effect at all: no arrow either way.
                    self.has_arrow = false;
                    if has(Percept::ArrowLost) {
                        if let Some(ahead) = ahead {
                            self.knowledge.arrow_missed(ahead);
                        }
                    }
                }
                Action::Grab => self.has_gold |= has(Percept::Grabbed),
                _ => {}
            }
        }
        let breezes = observation
            .percepts
            .iter()
            .filter(|&&p| p == Percept::Breeze)
            .count();
        let breezes = u8::try_from(breezes).unwrap_or(u8::MAX);
        self.knowledge
            .visit(observation.pos, breezes, has(Percept::Smell));
        if has(Percept::Light) {
            self.exit = Some(observation.pos);
        }
        self.knowledge.infer();
        self.glitter = has(Percept::Glitter);
    }

    /// The next action by the agent's rules, from `pos` facing `facing`.
    fn choose(&self, pos: Pos, facing: Orientation) -> Option<Action> {
        if self.glitter && !self.has_gold {
            return Some(Action::Grab);
        }
        let knowledge = &self.knowledge;
        let dim = knowledge.dim();
        let enter = |room: Pos| knowledge.is_visited(room) || knowledge.is_safe(room);
        if !self.has_gold {
            let targets = knowledge.safe_unvisited();
            if !targets.is_empty() {
                let goal = |room: Pos, _| targets.contains(&room);
                if let Some(Some(action)) = route::first_action(dim, pos, facing, enter, goal) {
                    return Some(action);
                }
            }
            if let Some(action) = self.shot(pos, facing) {
                return Some(action);
            }
        }
        let exit = self.exit?;
        match route::first_action(dim, pos, facing, enter, |room, _| room == exit)? {
            None => Some(Action::Climb),
            Some(action) => Some(action),
        }
    }

    /// A shot worth its arrow: into a room that may hold the living wumpus and holds no
    /// pit, so that either way it becomes safe; the located wumpus's room first. The
    /// route to face it, or `shoot` when facing it.
    fn shot(&self, pos: Pos, facing: Orientation) -> Option<Action> {
        let knowledge = &self.knowledge;
        if !self.has_arrow || knowledge.wumpus_dead() {
            return None;
        }
        let dim = knowledge.dim();
        let targets: Vec<Pos> = match knowledge.wumpus_located() {
            Some(wumpus) => vec![wumpus],
            None => knowledge
                .frontier()
                .into_iter()
                .filter(|&room| knowledge.may_hold_wumpus(room) && knowledge.pit(room) == Pit::No)
                .collect(),
        };
        if targets.is_empty() {
            return None;
        }
        let enter = |room: Pos| knowledge.is_visited(room) || knowledge.is_safe(room);
        let goal = |room: Pos, facing: Orientation| {
            dim.neighbour(room, facing)
                .is_some_and(|ahead| targets.contains(&ahead))
        };
        match route::first_action(dim, pos, facing, enter, goal)? {
            None => Some(Action::Shoot),
            Some(action) => Some(action),
        }
    }
}

/// The line a person types for `action`.
pub fn line(action: Action) -> &'static str {
    match action {
        Action::MoveForward => "move forward",
        Action::TurnLeft => "turn left",
        Action::TurnRight => "turn right",
        Action::Shoot => "shoot",
        Action::Grab => "grab",
        Action::Climb => "climb",
    }
}

/// The percepts among the lines of a reply, in order (other lines are ignored: the
/// welcome, the prompt, a final state).
pub fn percepts_in(text: &str) -> Vec<Percept> {
    text.lines()
        .filter_map(|line| PERCEPTS.into_iter().find(|p| p.text() == line))
        .collect()
}

/// How one game played by the agent went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Episode {
    /// How the game ended (`None`: the agent gave up and quit, or ran out of actions).
    pub outcome: Option<Outcome>,
    /// Actions the game carried out.
    pub actions: u64,
    /// Whether the arrow was shot.
    pub arrow_spent: bool,
    /// The lines sent to the game, in order.
    pub lines: Vec<&'static str>,
}

impl Episode {
    /// The textbook's performance measure of this game
    /// ([`crate::games::wumpus::random::performance`]).
    pub fn score(&self) -> i64 {
        crate::games::wumpus::random::performance(self.outcome, self.actions, self.arrow_spent)
    }
}

/// Play `game` with `agent` from its start, as a person would: the agent reads the
/// percepts in each reply and where it stands, and its action goes in as the command
/// line. At most `max_actions` actions; `quit` when the agent has nothing to do.
pub fn play(game: &mut Wumpus, agent: &mut Agent, max_actions: usize) -> Episode {
    let mut memory = Memory::default();
    let had_arrow = game.cave().player().has_arrow;
    let mut reply = game.start(&mut memory);
    let mut lines = Vec::new();
    let mut finish: Option<Finish> = game.take_finish();
    while reply.status != Status::Ended && lines.len() < max_actions {
        let percepts = percepts_in(&reply.text);
        let player = game.cave().player();
        let observation = Observation {
            pos: player.pos,
            facing: player.facing,
            percepts: &percepts,
        };
        let Some(action) = agent.act(&observation) else {
            game.handle("quit", &mut memory);
            break;
        };
        let line = line(action);
        lines.push(line);
        reply = game.handle(line, &mut memory);
        finish = finish.or(game.take_finish());
    }
    let progress = game.progress();
    Episode {
        outcome: finish.map(|finish| finish.outcome),
        actions: progress.moves,
        arrow_spent: had_arrow && !game.cave().player().has_arrow,
        lines,
    }
}

#[cfg(test)]
mod tests;
