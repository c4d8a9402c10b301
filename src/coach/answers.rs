//! Answers already found, per position: a player who asks `/hint` again after each
//! push gets the rest of the same solution at once, and a class on the same level
//! shares one search.
//!
//! A position is its level and the solver's key for it (the boxes and the player's
//! area, so positions that differ by a walk share it). When a solution is found, every
//! position along it is kept with the pushes that remain, so the next hint is a lookup.
//! Bounded: past [`MAX_ANSWERS`] the oldest half is forgotten; the positions along one
//! solution share its pushes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::games::world::{Level, World};
use crate::solver::position_key;

use super::ask::Plan;

/// Positions kept at most (each about 80 bytes and its share of a solution).
pub const MAX_ANSWERS: usize = 20_000;

/// The cache.
#[derive(Debug, Default)]
pub struct Answers {
    known: Mutex<Known>,
}

#[derive(Debug, Default)]
struct Known {
    plans: HashMap<(usize, u64), (Weak<Level>, Plan)>,
    /// Keys in the order they came, to forget the oldest.
    order: VecDeque<(usize, u64)>,
}

fn key(world: &World) -> (usize, u64) {
    (Arc::as_ptr(world.level()) as usize, position_key(world))
}

impl Answers {
    /// The plan known for `world`'s position, if any.
    pub fn get(&self, world: &World) -> Option<Plan> {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let (level, plan) = known.plans.get(&key(world))?;
        level
            .ptr_eq(&Arc::downgrade(world.level()))
            .then(|| plan.clone())
    }

    /// Keep `plan` for `world`'s position, and the rest of it for each position it
    /// passes through.
    pub fn keep(&self, world: &World, plan: &Plan) {
        let mut keys = vec![(key(world), plan.clone())];
        let mut along = world.clone();
        for (done, push) in plan.pushes().iter().enumerate() {
            let Some(steps) = super::walk::steps_for(&along, std::slice::from_ref(push)) else {
                break;
            };
            for step in steps {
                if along.step(step.direction).is_err() {
                    return;
                }
            }
            let rest = Plan {
                solution: Arc::clone(&plan.solution),
                next: plan.next + done + 1,
                fewest: plan.fewest,
            };
            keys.push((key(&along), rest));
        }
        let level = Arc::downgrade(world.level());
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, plan) in keys {
            if known.plans.len() >= MAX_ANSWERS {
                let forget = known.order.len() / 2;
                for old in known.order.drain(..forget).collect::<Vec<_>>() {
                    known.plans.remove(&old);
                }
            }
            if known.plans.insert(key, (level.clone(), plan)).is_none() {
                known.order.push_back(key);
            }
        }
    }
}
