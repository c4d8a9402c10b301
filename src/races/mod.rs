//! Races: the rules of racing several players on one game, and the desk a racer
//! reaches a race through, wherever it is kept.

pub mod desk;
pub mod rules;
