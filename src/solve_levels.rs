//! `arcade check-levels --solve [--time 10s] DIR|FILE`: every level of a levels
//! directory (or of one file) checked as `check-levels` does, then solved one after
//! the other on one thread, one line each, and a summary. The exit status is non-zero
//! only when a level is proven unsolvable or a file is broken.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade::catalog::levels::{read_file, LevelFile, Levels, Problem};
use arcade::games::starpusher::xsb::Collection;
use arcade::games::world::{Level, World};
use arcade::solver::{self, Analysis, Budget, Strategy, Verdict};
use arcade::text::count;

/// The memory one level's search may take: 1 GiB.
const MEMORY: usize = 1 << 30;

/// One file's levels, as the solver takes them.
struct LevelsOfFile {
    name: String,
    levels: Vec<Arc<Level>>,
}

/// Run `check-levels --solve` on `target` with `time` per level.
pub fn run(target: &Path, time: Duration) -> ExitCode {
    let mut files = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    if target.is_dir() {
        match Levels::check_dir(target) {
            Ok(found) => problems.extend(found),
            Err(error) => {
                println!("{error}");
                return ExitCode::FAILURE;
            }
        }
        // check_dir has reported every file's problems already.
        let mut again = Vec::new();
        for path in files_in(&target.join(<Level as LevelFile>::DIR), Level::EXTENSIONS) {
            files.push(read_classic(&path, &mut again));
        }
        for path in files_in(
            &target.join(<Collection as LevelFile>::DIR),
            Collection::EXTENSIONS,
        ) {
            files.push(read_collection(&path, &mut again));
        }
    } else if target
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == "sokoban")
    {
        files.push(read_classic(target, &mut problems));
    } else {
        files.push(read_collection(target, &mut problems));
    }
    for problem in &problems {
        println!("{problem}");
    }
    let stop = AtomicBool::new(false);
    let (mut solved, mut unsolved, mut impossible, mut total) = (0, 0, 0, 0);
    for file in &files {
        for (index, level) in file.levels.iter().enumerate() {
            total += 1;
            let started = Instant::now();
            let analysis = Analysis::new(level);
            let world = World::new(Arc::clone(level));
            let budget = Budget {
                nodes: u64::MAX,
                deadline: Some(started + time),
                memory: MEMORY,
            };
            let verdict = solver::solve(&analysis, &world, Strategy::Quick, &budget, &stop);
            let seconds = started.elapsed().as_secs_f64();
            let name = format!("{} level {}", file.name, index + 1);
            match verdict {
                Verdict::Solved(solution) => {
                    solved += 1;
                    // One push is `1 push`, as everywhere else (`text::count`).
                    println!(
                        "{name}: solved, {}, {} ({seconds:.2} s)",
                        count(solution.push_count() as u64, "push", "pushes"),
                        count(solution.move_count() as u64, "move", "moves")
                    );
                }
                Verdict::NoSolution => {
                    impossible += 1;
                    println!("{name}: no solution exists ({seconds:.2} s)");
                }
                Verdict::GaveUp(limit) => {
                    unsolved += 1;
                    let why = match limit {
                        solver::Limit::Memory => format!(" (memory, {} MiB)", MEMORY >> 20),
                        _ => String::new(),
                    };
                    println!(
                        "{name}: unsolved in {}{why}",
                        humantime::format_duration(time)
                    );
                }
            }
        }
    }
    println!(
        "{total} levels: {solved} solved, {unsolved} unsolved in {}, {impossible} without a solution",
        humantime::format_duration(time)
    );
    if impossible > 0 || !problems.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The level files of `folder` with one of `extensions`, sorted.
fn files_in(folder: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .and_then(|extension| extension.to_str())
                    .is_some_and(|extension| extensions.contains(&extension))
        })
        .collect();
    paths.sort();
    paths
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

fn read_classic(path: &Path, problems: &mut Vec<Problem>) -> LevelsOfFile {
    let parsed = read_file::<Level>(path);
    problems.extend(parsed.problems);
    LevelsOfFile {
        name: file_name(path),
        levels: parsed.value.map(Arc::new).into_iter().collect(),
    }
}

fn read_collection(path: &Path, problems: &mut Vec<Problem>) -> LevelsOfFile {
    let parsed = read_file::<Collection>(path);
    problems.extend(parsed.problems);
    LevelsOfFile {
        name: file_name(path),
        levels: parsed
            .value
            .map(|collection| {
                collection
                    .levels
                    .into_iter()
                    .map(|level| level.level)
                    .collect()
            })
            .unwrap_or_default(),
    }
}
