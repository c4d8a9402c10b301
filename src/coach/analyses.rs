//! Each level's analysis (dead squares, distances) made once and shared by every
//! warning and search on it, for as long as the level is loaded.
//!
//! Keyed by the level's address with a weak pointer beside it: a level is shared
//! behind an `Arc` by every world played on it, so its address names it for as long as
//! it lives, and the weak pointer tells a reused address from the same level. A reload
//! makes new levels; the old entries go when the map next grows past its bound.
//! Making an analysis is not free on a big level (a 256 by 256 grid is allowed), so a
//! level of more than [`INLINE_SQUARES`] squares is analysed on the solver's threads,
//! never on the event loop: a warning asked for before its analysis is ready is not
//! given (it is never a wrong one). A level the size of Microban's or Star Pusher's is
//! analysed where it is first asked for, once (docs/BENCHMARKS.md has the cost).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::games::world::Level;
use crate::solver::Analysis;

use super::pool::Pool;

/// Levels kept at most before the dead entries are swept (a server loads a few hundred).
const SWEEP_AT: usize = 4096;

/// The most squares a level may have to be analysed at once where it is asked for.
pub const INLINE_SQUARES: usize = 1024;

/// The cache.
#[derive(Debug, Default)]
pub struct Analyses {
    levels: Mutex<HashMap<usize, Entry>>,
}

#[derive(Debug)]
enum Entry {
    /// Being made on a solver thread.
    Making(Weak<Level>),
    Ready(Weak<Level>, Arc<Analysis>),
}

impl Entry {
    fn level(&self) -> &Weak<Level> {
        match self {
            Entry::Making(level) | Entry::Ready(level, _) => level,
        }
    }
}

fn key(level: &Arc<Level>) -> usize {
    Arc::as_ptr(level) as usize
}

impl Analyses {
    /// The analysis of `level` if it is made, or made now for a small level; if not,
    /// it is queued on `pool` (once) and `None` now.
    pub fn ready(self: &Arc<Self>, level: &Arc<Level>, pool: &Pool) -> Option<Arc<Analysis>> {
        {
            let levels = self.levels.lock().unwrap_or_else(PoisonError::into_inner);
            match levels.get(&key(level)) {
                Some(Entry::Ready(weak, analysis)) if weak.ptr_eq(&Arc::downgrade(level)) => {
                    return Some(Arc::clone(analysis));
                }
                Some(Entry::Making(weak)) if weak.ptr_eq(&Arc::downgrade(level)) => return None,
                _ => {}
            }
        }
        if level.width() * level.height() <= INLINE_SQUARES {
            return Some(self.make(level));
        }
        self.mark(level, Entry::Making(Arc::downgrade(level)));
        let analyses = Arc::clone(self);
        let making = Arc::clone(level);
        let queued = pool.submit(move || {
            analyses.make(&making);
        });
        if !queued {
            // The pool is full: forget the mark, so that a later push asks again.
            self.levels
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key(level));
        }
        None
    }

    /// The analysis of `level`, made now if it is not yet (on a solver thread).
    pub fn make(&self, level: &Arc<Level>) -> Arc<Analysis> {
        {
            let levels = self.levels.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(Entry::Ready(weak, analysis)) = levels.get(&key(level)) {
                if weak.ptr_eq(&Arc::downgrade(level)) {
                    return Arc::clone(analysis);
                }
            }
        }
        // Made outside the lock: other levels' warnings go on meanwhile.
        let analysis = Arc::new(Analysis::new(level));
        self.mark(
            level,
            Entry::Ready(Arc::downgrade(level), Arc::clone(&analysis)),
        );
        analysis
    }

    fn mark(&self, level: &Arc<Level>, entry: Entry) {
        let mut levels = self.levels.lock().unwrap_or_else(PoisonError::into_inner);
        if levels.len() >= SWEEP_AT {
            levels.retain(|_, entry| entry.level().strong_count() > 0);
        }
        levels.insert(key(level), entry);
    }
}
