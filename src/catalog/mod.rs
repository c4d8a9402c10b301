//! The table of games and what it reads: levels, saves.

pub mod levels;
pub mod saves;
pub mod table;
