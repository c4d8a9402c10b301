//! Races: the rules of racing several players on one game, the standings, and the
//! desk a racer reaches a race through, wherever it is kept.

pub mod desk;
pub mod ids;
pub mod moving;
pub mod rules;
pub mod standings;
