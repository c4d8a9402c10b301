//! The glyphs a board of boxes is drawn with: one ASCII byte per kind of square, so
//! that `sokoban` and `starpusher` draw a board by table lookup ([`super::world`]).

/// The glyphs a game draws a board with: one ASCII byte per kind of square, so that a
/// board is drawn by table lookup (every command of the Sokoban games draws one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyphs {
    /// A wall.
    pub wall: u8,
    /// Floor.
    pub floor: u8,
    /// An empty goal.
    pub goal: u8,
    /// A box on floor.
    pub box_on_floor: u8,
    /// A box on a goal.
    pub box_on_goal: u8,
    /// The player on floor.
    pub player: u8,
    /// The player standing on a goal.
    pub player_on_goal: u8,
}

impl Glyphs {
    /// The glyph of a square without the player: wall, floor, goal, then the same with
    /// a box (`world.rs` indexes it).
    pub(super) const fn palette(&self) -> [u8; 6] {
        // A box never stands on a wall; that slot only fills the table.
        [
            self.wall,
            self.floor,
            self.goal,
            self.wall,
            self.box_on_floor,
            self.box_on_goal,
        ]
    }

    /// Whether `glyph` is one of these.
    pub fn contains(&self, glyph: u8) -> bool {
        [
            self.wall,
            self.floor,
            self.goal,
            self.box_on_floor,
            self.box_on_goal,
            self.player,
            self.player_on_goal,
        ]
        .contains(&glyph)
    }

    /// True when every glyph is ASCII, as a board's text needs; checked at compile
    /// time for each game's table.
    pub const fn is_ascii(&self) -> bool {
        self.wall.is_ascii()
            && self.floor.is_ascii()
            && self.goal.is_ascii()
            && self.box_on_floor.is_ascii()
            && self.box_on_goal.is_ascii()
            && self.player.is_ascii()
            && self.player_on_goal.is_ascii()
    }
}
