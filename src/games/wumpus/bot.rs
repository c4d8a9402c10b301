//! A wumpus game as a bot sees it (SPEC section 12, docs/bots.md): the percepts of the
//! last step by name, where the explorer stands and faces, what it carries, the rooms
//! it has been in, and the actions that can be carried out now. Nothing it could not
//! perceive: no pit, wumpus or gold is given away.

use serde_json::json;

use super::cave::{Orientation, Percept, Pos, Thing};
use super::{random, Wumpus};
use crate::games::bot::Observation;

/// A percept's name in an observation: the textbook's words where it has them
/// (`stench`, `breeze`, `glitter`, `bump`, `scream`).
pub fn percept_name(percept: Percept) -> &'static str {
    match percept {
        Percept::Bump => "bump",
        Percept::KilledWumpus => "scream",
        Percept::ArrowLost => "arrow_lost",
        Percept::Smell => "stench",
        Percept::Breeze => "breeze",
        Percept::Glitter => "glitter",
        Percept::Light => "light",
        Percept::FellIntoPit => "fell_into_pit",
        Percept::KilledByWumpus => "killed_by_wumpus",
        Percept::Grabbed => "grabbed",
        Percept::OutWithGold => "out_with_gold",
        Percept::OutWithoutGold => "out_without_gold",
    }
}

/// Every percept, in SPEC section 6's order: to read names and printed lines back.
pub const PERCEPTS: [Percept; 12] = [
    Percept::Bump,
    Percept::KilledWumpus,
    Percept::ArrowLost,
    Percept::Smell,
    Percept::Breeze,
    Percept::Glitter,
    Percept::Light,
    Percept::FellIntoPit,
    Percept::KilledByWumpus,
    Percept::Grabbed,
    Percept::OutWithGold,
    Percept::OutWithoutGold,
];

/// The percept an observation names.
pub fn percept_named(name: &str) -> Option<Percept> {
    PERCEPTS
        .into_iter()
        .find(|&percept| percept_name(percept) == name)
}

/// The heading an observation names.
pub fn heading_named(name: &str) -> Option<Orientation> {
    Orientation::ALL
        .into_iter()
        .find(|&facing| heading(facing) == name)
}

/// A heading's name.
fn heading(facing: Orientation) -> &'static str {
    match facing {
        Orientation::East => "east",
        Orientation::South => "south",
        Orientation::West => "west",
        Orientation::North => "north",
    }
}

fn at(pos: Pos) -> [usize; 2] {
    [pos.x, pos.y]
}

impl Wumpus {
    /// The observation, the legal actions and the score (the textbook's performance
    /// measure, [`random::performance`]).
    pub(super) fn observation(&self) -> Observation {
        let player = self.cave.player();
        let dim = self.cave.dim();
        let mut legal = Vec::new();
        if !self.over {
            legal.extend(["forward", "left", "right"]);
            if player.has_arrow {
                legal.push("shoot");
            }
            if self.cave.thing_at(player.pos) == Some(Thing::Gold) {
                legal.push("grab");
            }
            legal.push("climb");
        }
        let percepts: Vec<&str> = self.seen.iter().copied().map(percept_name).collect();
        let visited: Vec<[usize; 2]> = self.visited.iter().copied().map(at).collect();
        Observation {
            observation: json!({
                "percepts": percepts,
                "position": at(player.pos),
                "heading": heading(player.facing),
                "arrow": player.has_arrow,
                "gold": player.has_gold,
                "size": [dim.width, dim.height],
                "visited": visited,
                "actions": self.actions,
            }),
            legal,
            score: random::performance(self.ended, self.actions, !player.has_arrow),
        }
    }

    /// Keep what a step perceived, and the room it ended in, for the observation.
    pub(super) fn perceived(&mut self, percepts: Vec<Percept>) {
        self.seen = percepts;
        let here = self.cave.player().pos;
        if !self.visited.contains(&here) {
            self.visited.push(here);
        }
    }
}

/// The line an action is typed as.
pub(super) fn action_line(action: &str) -> Option<&'static str> {
    Some(match action {
        "forward" => "move forward",
        "left" => "turn left",
        "right" => "turn right",
        "shoot" => "shoot",
        "grab" => "grab",
        "climb" => "climb",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for percept in PERCEPTS {
            assert_eq!(percept_named(percept_name(percept)), Some(percept));
        }
        for facing in Orientation::ALL {
            assert_eq!(heading_named(heading(facing)), Some(facing));
        }
        assert_eq!(percept_named("smell"), None);
    }
}
