//! Places for work one client can start many of: counted in total and per client
//! address, each held for as long as its [`Place`] lives. Replays, downloads of
//! recordings, the web page's connections and live streams each take one, so that
//! one address (a student with a script) cannot hold them all, and a flood of them
//! cannot hold the server's memory or threads.
//!
//! A plain count under a short lock, never held across an `.await`: taking a place
//! either succeeds at once or says which limit was reached ([`Full`]); nothing waits.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// A kind of work with a limit in total and one per address.
#[derive(Debug, Clone)]
pub struct Places(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    total: usize,
    per_address: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// Which limit a place was refused by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Full {
    /// Every place is taken.
    #[error("every place is taken")]
    Total,
    /// The address holds its share already.
    #[error("this address holds its share of places")]
    Address,
}

/// One place taken, given back when dropped.
#[derive(Debug)]
pub struct Place {
    places: Arc<Shared>,
    address: IpAddr,
}

impl Places {
    /// At most `total` places at once, and `per_address` for any one address.
    pub fn new(total: usize, per_address: usize) -> Places {
        Places(Arc::new(Shared {
            total,
            per_address,
            held: Mutex::new(Held::default()),
        }))
    }

    /// A place for `address`, or the limit it would break.
    ///
    /// # Errors
    /// [`Full::Address`] when `address` holds its share, [`Full::Total`] when every
    /// place is taken.
    pub fn take(&self, address: IpAddr) -> Result<Place, Full> {
        let mut held = self.0.held.lock().unwrap_or_else(PoisonError::into_inner);
        let mine = held.by_address.get(&address).copied().unwrap_or(0);
        if mine >= self.0.per_address {
            return Err(Full::Address);
        }
        if held.total >= self.0.total {
            return Err(Full::Total);
        }
        held.total += 1;
        held.by_address.insert(address, mine + 1);
        Ok(Place {
            places: Arc::clone(&self.0),
            address,
        })
    }

    /// Places taken now.
    pub fn taken(&self) -> usize {
        self.0
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut held = self
            .places
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        held.total = held.total.saturating_sub(1);
        // The address's entry goes with its last place, so the map holds only
        // addresses that hold something.
        if let std::collections::hash_map::Entry::Occupied(mut count) =
            held.by_address.entry(self.address)
        {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_bounded_in_total_and_per_address_and_come_back() {
        let places = Places::new(3, 2);
        let ann: IpAddr = [10, 0, 0, 1].into();
        let bob: IpAddr = [10, 0, 0, 2].into();
        let first = places.take(ann).unwrap();
        let _second = places.take(ann).unwrap();
        assert_eq!(places.take(ann).unwrap_err(), Full::Address);
        let _third = places.take(bob).unwrap();
        assert_eq!(places.take(bob).unwrap_err(), Full::Total);
        drop(first);
        assert_eq!(places.taken(), 2);
        assert!(places.take(bob).is_ok());
        assert_eq!(places.0.held.lock().unwrap().by_address.len(), 2);
    }
}
