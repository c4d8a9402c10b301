//! Fuzz target `console`: lines through a player's whole console, the lobby, games,
//! and the jobs they hand out. The property lives in [`arcade::fuzzing::console`],
//! where `cargo test` replays the inputs kept in `fuzz/regressions/console/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcade::fuzzing::console(data));
