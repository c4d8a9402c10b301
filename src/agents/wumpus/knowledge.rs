//! What the wumpus agent knows of the cave: the rooms it has visited, the walls it
//! has bumped into, and for every other room whether a pit or the wumpus may be there,
//! inferred from breezes and smells as the textbook's knowledge base does.
//!
//! Inference is sound: a room is called safe only when every world that agrees with
//! the percepts so far, under SPEC section 6's rules, has neither a pit nor the living
//! wumpus there. The rules it relies on: a room with a pit breezes once in itself and
//! each neighbour (so a breeze count is an exact count of neighbouring pits); the
//! living wumpus, at most one, smells in its room and each neighbour; a room holds at
//! most one of wumpus, pit, gold and exit; rock and walls hold nothing.
//!
//! Pits are found by counting (a room whose pits are all accounted for clears its other
//! neighbours; one with as many unknown neighbours as missing pits fills them) and then
//! by enumerating every assignment of the unknown rooms around the visited ones, within
//! a budget: a room no consistent assignment puts a pit in is free of pits. Past the
//! budget the counting's conclusions stand alone, which is still sound.

use crate::games::wumpus::cave::{Dim, Orientation, Pos};

/// The most assignments the enumeration visits per inference: beyond it, the rooms
/// it would decide stay unknown.
const ENUMERATION_BUDGET: u32 = 200_000;

/// What is known of a pit in one room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pit {
    /// Not known either way.
    Unknown,
    /// Certainly no pit.
    No,
    /// Certainly a pit.
    Yes,
}

/// The agent's knowledge of the cave.
#[derive(Debug, Clone)]
pub struct Knowledge {
    dim: Dim,
    visited: Vec<bool>,
    wall: Vec<bool>,
    pit: Vec<Pit>,
    /// Certainly not the living wumpus's room.
    no_wumpus: Vec<bool>,
    /// Each visited room once, with the breezes felt there.
    breezes: Vec<(Pos, u8)>,
    /// Visited rooms where the wumpus was smelt while it lived.
    smells: Vec<Pos>,
    wumpus_alive: bool,
    /// The rooms the wumpus may be in, once it has been smelt: the rooms next to every
    /// room it was smelt in, less those known free of it.
    candidates: Option<Vec<Pos>>,
}

impl Knowledge {
    /// Nothing known yet of a cave within `dim` (the cave's size if known, else the
    /// largest a cave may be: walls are then learnt by bumping into them).
    pub fn new(dim: Dim) -> Knowledge {
        let rooms = dim.width * dim.height;
        Knowledge {
            dim,
            visited: vec![false; rooms],
            wall: vec![false; rooms],
            pit: vec![Pit::Unknown; rooms],
            no_wumpus: vec![false; rooms],
            breezes: Vec::new(),
            smells: Vec::new(),
            wumpus_alive: true,
            candidates: None,
        }
    }

    /// The rooms the knowledge covers.
    pub fn dim(&self) -> Dim {
        self.dim
    }

    fn index(&self, pos: Pos) -> usize {
        pos.y * self.dim.width + pos.x
    }

    /// The rooms next to `pos` inside the covered area (walls included).
    pub fn neighbours(&self, pos: Pos) -> impl Iterator<Item = Pos> + '_ {
        let dim = self.dim;
        Orientation::ALL
            .into_iter()
            .filter_map(move |facing| dim.neighbour(pos, facing))
    }

    /// Whether the agent has stood in `pos`.
    pub fn is_visited(&self, pos: Pos) -> bool {
        self.dim.contains(pos) && self.visited[self.index(pos)]
    }

    /// Whether `pos` is known to be a wall or rock (or outside the covered area).
    pub fn is_wall(&self, pos: Pos) -> bool {
        !self.dim.contains(pos) || self.wall[self.index(pos)]
    }

    /// What is known of a pit in `pos`.
    pub fn pit(&self, pos: Pos) -> Pit {
        if self.dim.contains(pos) {
            self.pit[self.index(pos)]
        } else {
            Pit::No
        }
    }

    /// Whether the wumpus is known to be dead.
    pub fn wumpus_dead(&self) -> bool {
        !self.wumpus_alive
    }

    /// Whether the living wumpus may be in `pos`.
    pub fn may_hold_wumpus(&self, pos: Pos) -> bool {
        if !self.wumpus_alive || self.is_wall(pos) || self.no_wumpus[self.index(pos)] {
            return false;
        }
        match &self.candidates {
            Some(candidates) => candidates.contains(&pos),
            None => true,
        }
    }

    /// The wumpus's room, when the smells leave only one.
    pub fn wumpus_located(&self) -> Option<Pos> {
        match self.candidates.as_deref() {
            Some([only]) if self.wumpus_alive => Some(*only),
            _ => None,
        }
    }

    /// Whether walking into `pos` is certainly safe: a room, no pit, no living wumpus.
    pub fn is_safe(&self, pos: Pos) -> bool {
        !self.is_wall(pos) && self.pit(pos) == Pit::No && !self.may_hold_wumpus(pos)
    }

    /// The rooms next to visited ones, not visited and not known walls, in row order:
    /// the only rooms percepts say anything about.
    pub fn frontier(&self) -> Vec<Pos> {
        let mut found: Vec<Pos> = self
            .breezes
            .iter()
            .flat_map(|&(room, _)| self.neighbours(room))
            .filter(|&pos| !self.is_visited(pos) && !self.is_wall(pos))
            .collect();
        found.sort_by_key(|pos| (pos.y, pos.x));
        found.dedup();
        found
    }

    /// The safe rooms not yet visited, in row order.
    pub fn safe_unvisited(&self) -> Vec<Pos> {
        let mut found = self.frontier();
        found.retain(|&pos| self.is_safe(pos));
        found
    }

    /// Record standing in `pos` alive and perceiving `breezes` breezes and, if `smell`,
    /// the wumpus. A room visited before is not recorded again.
    pub fn visit(&mut self, pos: Pos, breezes: u8, smell: bool) {
        if !self.dim.contains(pos) || self.is_visited(pos) {
            return;
        }
        let index = self.index(pos);
        self.visited[index] = true;
        self.wall[index] = false;
        self.pit[index] = Pit::No;
        self.no_wumpus[index] = true;
        self.breezes.push((pos, breezes));
        if !self.wumpus_alive {
            return;
        }
        if smell {
            self.smells.push(pos);
        } else {
            let around: Vec<Pos> = self.neighbours(pos).collect();
            for room in around {
                let index = self.index(room);
                self.no_wumpus[index] = true;
            }
        }
    }

    /// Record that `pos` cannot be entered (a bump).
    pub fn wall_at(&mut self, pos: Pos) {
        if self.dim.contains(pos) && !self.is_visited(pos) {
            let index = self.index(pos);
            self.wall[index] = true;
            self.pit[index] = Pit::No;
            self.no_wumpus[index] = true;
        }
    }

    /// Record the scream: the wumpus is dead, no room holds it any more.
    pub fn wumpus_killed(&mut self) {
        self.wumpus_alive = false;
        self.candidates = None;
    }

    /// Record an arrow shot into `target` that hit nothing: the wumpus is not there.
    pub fn arrow_missed(&mut self, target: Pos) {
        if self.dim.contains(target) {
            let index = self.index(target);
            self.no_wumpus[index] = true;
        }
    }

    /// Draw every conclusion the percepts allow, until nothing more follows.
    pub fn infer(&mut self) {
        loop {
            let mut changed = self.infer_wumpus();
            changed |= self.count_pits();
            if !changed {
                changed = self.enumerate_pits();
            }
            if !changed {
                return;
            }
        }
    }

    /// The wumpus's candidates from the smells; a located wumpus has no pit beside it
    /// (one thing per room). Whether a pit became known.
    fn infer_wumpus(&mut self) -> bool {
        if !self.wumpus_alive || self.smells.is_empty() {
            return false;
        }
        let first = self.smells[0];
        let candidates: Vec<Pos> = self
            .neighbours(first)
            .filter(|&room| {
                let index = self.index(room);
                !self.wall[index]
                    && !self.no_wumpus[index]
                    && self.pit[index] != Pit::Yes
                    && self.smells.iter().all(|&smell| adjacent(smell, room))
            })
            .collect();
        let mut changed = false;
        if let [only] = candidates[..] {
            let index = self.index(only);
            if self.pit[index] == Pit::Unknown {
                self.pit[index] = Pit::No;
                changed = true;
            }
        }
        self.candidates = Some(candidates);
        changed
    }

    /// Unknown rooms around `room` and the pits still missing there, from its breeze
    /// count less the pits already known.
    fn constraint(&self, room: Pos, breezes: u8) -> (Vec<Pos>, usize) {
        let mut unknown = Vec::new();
        let mut known = 0usize;
        for next in self.neighbours(room) {
            let index = self.index(next);
            if self.wall[index] {
                continue;
            }
            match self.pit[index] {
                Pit::Unknown => unknown.push(next),
                Pit::Yes => known += 1,
                Pit::No => {}
            }
        }
        (unknown, usize::from(breezes).saturating_sub(known))
    }

    /// Counting: all pits accounted for clears the rest; as many unknown rooms as
    /// missing pits fills them. Whether anything became known.
    fn count_pits(&mut self) -> bool {
        let mut changed = false;
        for i in 0..self.breezes.len() {
            let (room, breezes) = self.breezes[i];
            let (unknown, missing) = self.constraint(room, breezes);
            if unknown.is_empty() {
                continue;
            }
            let value = if missing == 0 {
                Pit::No
            } else if missing == unknown.len() {
                Pit::Yes
            } else {
                continue;
            };
            for pos in unknown {
                self.settle_pit(pos, value);
            }
            changed = true;
        }
        changed
    }

    /// Every assignment of pits to the unknown rooms next to visited ones that agrees
    /// with every breeze count; a room that is a pit in none is free, one that is a pit
    /// in all is a pit. Whether anything became known.
    fn enumerate_pits(&mut self) -> bool {
        let mut vars: Vec<Pos> = Vec::new();
        let mut constraints: Vec<(Vec<usize>, usize)> = Vec::new();
        for &(room, breezes) in &self.breezes {
            let (unknown, missing) = self.constraint(room, breezes);
            if unknown.is_empty() {
                continue;
            }
            let members = unknown
                .into_iter()
                .map(|pos| match vars.iter().position(|&v| v == pos) {
                    Some(at) => at,
                    None => {
                        vars.push(pos);
                        vars.len() - 1
                    }
                })
                .collect();
            constraints.push((members, missing));
        }
        if vars.is_empty() {
            return false;
        }
        let mut search = Search::new(vars.len(), &constraints);
        if !search.run() {
            return false;
        }
        let mut changed = false;
        for (at, &pos) in vars.iter().enumerate() {
            let value = match (search.can_pit[at], search.can_free[at]) {
                (false, true) => Pit::No,
                (true, false) => Pit::Yes,
                _ => continue,
            };
            self.settle_pit(pos, value);
            changed = true;
        }
        changed
    }

    /// `pos` is now known to hold a pit or not; a pit holds no wumpus (one thing a
    /// room).
    fn settle_pit(&mut self, pos: Pos, value: Pit) {
        let index = self.index(pos);
        self.pit[index] = value;
        if value == Pit::Yes {
            self.no_wumpus[index] = true;
        }
    }
}

/// Whether two rooms share a side.
fn adjacent(a: Pos, b: Pos) -> bool {
    a.x.abs_diff(b.x) + a.y.abs_diff(b.y) == 1
}

/// The enumeration of pit assignments: depth first over the unknown rooms, cut as
/// soon as a breeze count can no longer be met.
struct Search<'a> {
    constraints: &'a [(Vec<usize>, usize)],
    /// For each unknown room, the counts it takes part in.
    member_of: Vec<Vec<usize>>,
    /// For each count: pits assigned so far, rooms not yet assigned.
    pits: Vec<usize>,
    open: Vec<usize>,
    can_pit: Vec<bool>,
    can_free: Vec<bool>,
    assigned: Vec<bool>,
    budget: u32,
}

impl<'a> Search<'a> {
    fn new(vars: usize, constraints: &'a [(Vec<usize>, usize)]) -> Search<'a> {
        let mut member_of = vec![Vec::new(); vars];
        for (at, (members, _)) in constraints.iter().enumerate() {
            for &var in members {
                member_of[var].push(at);
            }
        }
        Search {
            constraints,
            member_of,
            pits: vec![0; constraints.len()],
            open: constraints
                .iter()
                .map(|(members, _)| members.len())
                .collect(),
            can_pit: vec![false; vars],
            can_free: vec![false; vars],
            assigned: vec![false; vars],
            budget: ENUMERATION_BUDGET,
        }
    }

    /// Enumerate; `false` when the budget ran out or no assignment agrees (then no
    /// conclusion may be drawn).
    fn run(&mut self) -> bool {
        let complete = self.assign(0);
        complete
            && self
                .can_free
                .iter()
                .zip(&self.can_pit)
                .all(|(f, p)| *f || *p)
    }

    /// Assign rooms `var..` in turn; `false` once the budget is spent.
    fn assign(&mut self, var: usize) -> bool {
        if var == self.assigned.len() {
            for (at, &pit) in self.assigned.iter().enumerate() {
                if pit {
                    self.can_pit[at] = true;
                } else {
                    self.can_free[at] = true;
                }
            }
            return true;
        }
        for pit in [false, true] {
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            self.assigned[var] = pit;
            let mut fits = true;
            for &at in &self.member_of[var] {
                self.open[at] -= 1;
                self.pits[at] += usize::from(pit);
                let (pits, open, wanted) = (self.pits[at], self.open[at], self.constraints[at].1);
                fits &= pits <= wanted && pits + open >= wanted;
            }
            let complete = !fits || self.assign(var + 1);
            for &at in &self.member_of[var] {
                self.open[at] += 1;
                self.pits[at] -= usize::from(pit);
            }
            if !complete {
                return false;
            }
        }
        self.assigned[var] = false;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn four() -> Knowledge {
        Knowledge::new(Dim {
            width: 4,
            height: 4,
        })
    }

    const fn p(x: usize, y: usize) -> Pos {
        Pos::new(x, y)
    }

    #[test]
    fn no_breeze_no_smell_clears_the_neighbours() {
        let mut k = four();
        k.visit(p(0, 0), 0, false);
        k.infer();
        assert!(k.is_safe(p(1, 0)) && k.is_safe(p(0, 1)));
        assert!(!k.is_safe(p(1, 1)));
        assert_eq!(k.safe_unvisited(), vec![p(1, 0), p(0, 1)]);
    }

    #[test]
    fn a_breeze_at_the_start_leaves_both_neighbours_unknown() {
        let mut k = four();
        k.visit(p(0, 0), 1, false);
        k.infer();
        assert_eq!(k.pit(p(1, 0)), Pit::Unknown);
        assert_eq!(k.pit(p(0, 1)), Pit::Unknown);
        assert!(k.safe_unvisited().is_empty());
        // Two breezes at a corner: both neighbours are pits.
        let mut k = four();
        k.visit(p(0, 0), 2, false);
        k.infer();
        assert_eq!(k.pit(p(1, 0)), Pit::Yes);
        assert_eq!(k.pit(p(0, 1)), Pit::Yes);
    }

    #[test]
    fn the_textbook_figure_finds_the_pit_and_the_wumpus() {
        // AIMA figure 7.4 mirrored: (0,0) nothing, (0,1) a breeze, (1,0) a smell.
        let mut k = four();
        k.visit(p(0, 0), 0, false);
        k.visit(p(0, 1), 1, false);
        k.visit(p(1, 0), 0, true);
        k.infer();
        // The pit is at (0,2), the wumpus at (2,0), (1,1) is safe.
        assert_eq!(k.pit(p(0, 2)), Pit::Yes);
        assert_eq!(k.wumpus_located(), Some(p(2, 0)));
        assert!(k.is_safe(p(1, 1)));
        assert!(!k.is_safe(p(2, 0)));
        assert!(!k.is_safe(p(0, 2)));
        k.wumpus_killed();
        k.infer();
        assert!(k.is_safe(p(2, 0)), "no pit beside a located wumpus");
    }

    #[test]
    fn enumeration_decides_what_counting_cannot() {
        // (1,0): one pit among (2,0), (1,1). (2,1): one pit among (2,0), (1,1), (2,2)
        // ((3,1) is clear). No single count decides (2,2); together they clear it.
        let mut k = four();
        k.visit(p(0, 0), 0, false);
        k.visit(p(1, 0), 1, false);
        k.visit(p(3, 1), 0, false);
        k.visit(p(2, 1), 1, false);
        k.infer();
        assert_eq!(k.pit(p(2, 2)), Pit::No);
        assert_eq!(k.pit(p(2, 0)), Pit::Unknown);
        assert_eq!(k.pit(p(1, 1)), Pit::Unknown);
        // With only the counts of 1, nothing is decided.
        let mut k = four();
        k.visit(p(0, 0), 0, false);
        k.visit(p(1, 0), 1, false);
        k.visit(p(0, 1), 1, false);
        k.infer();
        for room in [p(2, 0), p(1, 1), p(0, 2)] {
            assert_eq!(k.pit(room), Pit::Unknown, "{room}");
        }
    }

    #[test]
    fn enumeration_finds_a_free_room_no_single_count_shows() {
        // Counts: A = 1 over {a, b}, B = 1 over {a, b, c}: c is free in every model.
        let constraints = vec![(vec![0, 1], 1), (vec![0, 1, 2], 1)];
        let mut search = Search::new(3, &constraints);
        assert!(search.run());
        assert_eq!(search.can_pit, [true, true, false]);
        assert_eq!(search.can_free, [true, true, true]);
    }

    #[test]
    fn bumps_make_walls_that_hold_nothing() {
        let mut k = Knowledge::new(Dim {
            width: 10,
            height: 10,
        });
        k.visit(p(0, 0), 1, false);
        k.wall_at(p(1, 0));
        k.infer();
        assert_eq!(k.pit(p(0, 1)), Pit::Yes);
        assert!(k.is_wall(p(1, 0)));
        assert!(!k.is_safe(p(1, 0)));
    }

    #[test]
    fn a_missed_arrow_clears_its_room() {
        let mut k = four();
        k.visit(p(0, 0), 0, true);
        k.infer();
        assert!(k.may_hold_wumpus(p(1, 0)) && k.may_hold_wumpus(p(0, 1)));
        assert!(!k.may_hold_wumpus(p(1, 1)));
        k.arrow_missed(p(1, 0));
        k.infer();
        assert!(k.is_safe(p(1, 0)));
        assert_eq!(k.wumpus_located(), Some(p(0, 1)));
    }
}
