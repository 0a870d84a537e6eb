//! A fixed-size set of small indices (a function's variables, numbered), for the
//! data-flow analyses: copying, joining and comparing one is a few machine words, where
//! a set of names allocates per element (why: compile latency, issue 18).

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    /// The empty set of indices below `n`.
    pub(super) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub(super) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    pub(super) fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Add every element of `other` (a set of the same size).
    pub(super) fn union(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    /// Remove every element of `other` (a set of the same size).
    pub(super) fn subtract(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
    }
    /// The elements, in increasing order.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            (0..64).filter(move |b| w & (1 << b) != 0).map(move |b| k * 64 + b)
        })
    }
}
