//! The transposition table: every position a search has met, stored once, found by
//! its Zobrist hash.
//!
//! A position is its boxes (sorted squares) and the player's normalised square (the
//! smallest square of the player's reachable area), so positions that differ only in
//! where the player stands within one area are one. Nodes live in flat arrays (the
//! boxes of node `i` are `boxes[i * k..(i + 1) * k]`); the hash index is open
//! addressing over node numbers. Everything counts its bytes for the memory budget.

/// No node.
pub(crate) const NO_NODE: u32 = u32::MAX;

/// Every position seen, with how it was reached.
#[derive(Debug)]
pub(crate) struct Nodes {
    /// Boxes per position.
    k: usize,
    boxes: Vec<u16>,
    player: Vec<u16>,
    /// The Zobrist hash of the boxes alone (the player's key is added on top).
    box_hash: Vec<u64>,
    /// The node this one was first (or most cheaply) reached from.
    pub(crate) parent: Vec<u32>,
    /// The push that reached it: the box's square before it, and the direction.
    pub(crate) push: Vec<(u16, u8)>,
    /// Pushes from the start.
    pub(crate) cost: Vec<u16>,
    /// The lower bound on the pushes still needed.
    pub(crate) bound: Vec<u16>,
    /// Expanded already.
    pub(crate) closed: Vec<bool>,
    slots: Vec<u32>,
}

impl Nodes {
    /// An empty table for positions of `k` boxes.
    pub(crate) fn new(k: usize) -> Nodes {
        Nodes {
            k,
            boxes: Vec::new(),
            player: Vec::new(),
            box_hash: Vec::new(),
            parent: Vec::new(),
            push: Vec::new(),
            cost: Vec::new(),
            bound: Vec::new(),
            closed: Vec::new(),
            slots: vec![NO_NODE; 1024],
        }
    }

    /// Positions stored.
    pub(crate) fn len(&self) -> usize {
        self.player.len()
    }

    /// The boxes of a node.
    pub(crate) fn boxes(&self, node: u32) -> &[u16] {
        let start = node as usize * self.k;
        &self.boxes[start..start + self.k]
    }

    /// The normalised player square of a node.
    pub(crate) fn player(&self, node: u32) -> u16 {
        self.player[node as usize]
    }

    /// The Zobrist hash of a node's boxes.
    pub(crate) fn box_hash(&self, node: u32) -> u64 {
        self.box_hash[node as usize]
    }

    /// Bytes held, counting the arrays' capacities.
    pub(crate) fn bytes(&self) -> usize {
        self.boxes.capacity() * 2
            + self.player.capacity() * 2
            + self.box_hash.capacity() * 8
            + self.parent.capacity() * 4
            + self.push.capacity() * 4
            + self.cost.capacity() * 2
            + self.bound.capacity() * 2
            + self.closed.capacity()
            + self.slots.capacity() * 4
    }

    /// The node of a position, if stored. `hash` is [`Nodes::hash`] of it.
    pub(crate) fn find(&self, hash: u64, boxes: &[u16], player: u16) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut slot = (hash as usize) & mask;
        loop {
            let node = self.slots[slot];
            if node == NO_NODE {
                return None;
            }
            if self.player[node as usize] == player
                && self.full_hash(node) == hash
                && self.boxes(node) == boxes
            {
                return Some(node);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Store a new position (not already stored) and return its node.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert(
        &mut self,
        hash: u64,
        box_hash: u64,
        boxes: &[u16],
        player: u16,
        parent: u32,
        push: (u16, u8),
        cost: u16,
        bound: u16,
    ) -> u32 {
        if (self.len() + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let node = self.len() as u32;
        self.boxes.extend_from_slice(boxes);
        self.player.push(player);
        self.box_hash.push(box_hash);
        self.parent.push(parent);
        self.push.push(push);
        self.cost.push(cost);
        self.bound.push(bound);
        self.closed.push(false);
        self.place(hash, node);
        node
    }

    /// The hash of a position from its boxes' hash and its player's key.
    pub(crate) fn hash(box_hash: u64, player_key: u64) -> u64 {
        box_hash ^ player_key
    }

    fn full_hash(&self, node: u32) -> u64 {
        Nodes::hash(
            self.box_hash[node as usize],
            player_mix(self.player[node as usize]),
        )
    }

    fn place(&mut self, hash: u64, node: u32) {
        let mask = self.slots.len() - 1;
        let mut slot = (hash as usize) & mask;
        while self.slots[slot] != NO_NODE {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = node;
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        self.slots = vec![NO_NODE; size];
        for node in 0..self.len() as u32 {
            let hash = self.full_hash(node);
            self.place(hash, node);
        }
    }
}

/// The player's part of a position's hash.
pub(crate) fn player_mix(square: u16) -> u64 {
    let mut state = u64::from(square).wrapping_mul(0x2545_f491_4f6c_dd1d);
    super::board::splitmix(&mut state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_found_by_boxes_and_player_and_survive_growth() {
        let mut nodes = Nodes::new(2);
        for i in 0..5000u16 {
            let boxes = [i, i + 1];
            let box_hash = u64::from(i) * 0x9e37_79b9;
            let hash = Nodes::hash(box_hash, player_mix(7));
            assert_eq!(nodes.find(hash, &boxes, 7), None);
            let node = nodes.insert(hash, box_hash, &boxes, 7, NO_NODE, (0, 0), 0, 0);
            assert_eq!(node, u32::from(i));
        }
        for i in 0..5000u16 {
            let box_hash = u64::from(i) * 0x9e37_79b9;
            let hash = Nodes::hash(box_hash, player_mix(7));
            assert_eq!(nodes.find(hash, &[i, i + 1], 7), Some(u32::from(i)));
            assert_eq!(
                nodes.find(Nodes::hash(box_hash, player_mix(8)), &[i, i + 1], 8),
                None
            );
        }
        assert!(nodes.bytes() > 5000 * 2 * 2);
    }
}
