//! Races: the rules of racing several players on one game.

pub mod rules;
