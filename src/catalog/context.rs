//! The context a game starts in (the levels, where saves live) and the one new games
//! get, which `reload` and SIGHUP replace.

use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::levels::{LayoutError, Levels};

/// What starting a game needs: the level store and where saved games live.
#[derive(Debug, Clone)]
pub struct Context {
    /// Built-in levels plus those of `--levels`.
    pub levels: Levels,
    /// Where `save NAME` writes and `play wumpus NAME` looks for saved worlds.
    pub data_dir: PathBuf,
}

impl Context {
    /// The same levels, with saved games read from and written to `saves_dir`: each
    /// player's saves are their own (docs/playing.md, "Scores, recordings and resume").
    pub fn with_saves_in(&self, saves_dir: PathBuf) -> Context {
        Context {
            levels: self.levels.clone(),
            data_dir: saves_dir,
        }
    }
}

/// The context new games start in, which `reload` and SIGHUP replace: a game in
/// progress keeps the levels it started with (it holds them), new games get the new
/// files. Clone it freely: every clone is the same.
#[derive(Debug, Clone)]
pub struct Contexts(Arc<ContextsInner>);

#[derive(Debug)]
struct ContextsInner {
    current: std::sync::RwLock<Arc<Context>>,
    /// `--levels`, read again on a reload.
    levels_dir: Option<PathBuf>,
}

impl Contexts {
    /// Start with `context`, whose levels came from `levels_dir` (`--levels`).
    pub fn new(context: Arc<Context>, levels_dir: Option<PathBuf>) -> Contexts {
        Contexts(Arc::new(ContextsInner {
            current: std::sync::RwLock::new(context),
            levels_dir,
        }))
    }

    /// The context for a game starting now.
    pub fn current(&self) -> Arc<Context> {
        let current = self
            .0
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&current)
    }

    /// Read the levels again (built-in, then `--levels`) and start new games with
    /// them; what was loaded and every problem, in words, one per line, as the log
    /// says them too. It reads the disk: call it on a blocking thread.
    ///
    /// A `--levels` folder found empty keeps the levels in use: its files, if they
    /// came from it (a reload in the middle of replacing them does not take the
    /// class's levels away), or the built-in ones if it was empty already.
    pub fn reload(&self) -> String {
        let loaded = Levels::load_checked(self.0.levels_dir.as_deref());
        let (levels, problems) = match loaded {
            Ok((levels, _))
                if levels.unfilled.is_some() && self.current().levels.unfilled.is_none() =>
            {
                let error = LayoutError::Unfilled {
                    dir: self.levels_dir_name(),
                };
                tracing::warn!(%error, "levels not reloaded");
                return format!("Levels not reloaded: --levels {error}. The levels in use stay.\n");
            }
            Ok((levels, _)) if levels.unfilled.is_some() => {
                let dir = self.levels_dir_name();
                tracing::warn!(levels = %dir, "the levels folder is still empty: serving the built-in levels");
                return format!("Levels not reloaded: --levels {dir} is still empty. The built-in levels stay.\n");
            }
            Ok(loaded) => loaded,
            Err(error) => {
                tracing::warn!(%error, "levels not reloaded");
                return format!("Levels not reloaded: --levels {error}. The levels in use stay.\n");
            }
        };
        let data_dir = self.current().data_dir.clone();
        let mut text = String::from("Levels reloaded:");
        let counts = [
            ("sokoban levels", levels.sokoban.names().count()),
            ("starpusher collections", levels.starpusher.names().count()),
            ("wumpus worlds", levels.wumpus.names().count()),
        ];
        for (index, (what, count)) in counts.iter().enumerate() {
            let separator = if index == 0 { " " } else { ", " };
            text.push_str(&format!("{separator}{count} {what}"));
        }
        match problems.len() {
            0 => text.push_str("; no problems.\n"),
            1 => text.push_str("; 1 problem (skipped):\n"),
            n => text.push_str(&format!("; {n} problems (skipped):\n")),
        }
        for problem in &problems {
            tracing::warn!(%problem, "level skipped");
            text.push_str(&format!("  {problem}\n"));
        }
        tracing::info!(
            sokoban = counts[0].1,
            starpusher = counts[1].1,
            wumpus = counts[2].1,
            problems = problems.len(),
            "levels reloaded"
        );
        let context = Arc::new(Context { levels, data_dir });
        *self
            .0
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = context;
        text
    }

    /// `--levels` as given, for messages.
    fn levels_dir_name(&self) -> String {
        self.0
            .levels_dir
            .as_deref()
            .map(|dir| dir.display().to_string())
            .unwrap_or_default()
    }
}
