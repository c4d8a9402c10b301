//! Recordings of games: their format, the recorder sessions hold, its writer task, the
//! check of results by replay, and the scores read from them.

pub mod recorder;
pub mod recording;
pub mod scores;
pub mod verifier;
pub mod writer;
