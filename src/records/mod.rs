//! Recordings of games: their format, the recorder sessions hold, its writer task, the
//! check of results by replay, and the scores read from them; what bounds them (each
//! hour's quotas, the data directory's free space).

pub mod cast;
pub mod disk;
pub mod ladder_cache;
pub mod ladder_tables;
pub mod places;
pub mod quota;
pub mod reader;
pub mod recorder;
pub mod recording;
pub mod scores;
pub mod sweep;
pub mod verifier;
pub mod writer;

/// How often the writer and the verifier log what they did (when they did anything).
const REPORT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
