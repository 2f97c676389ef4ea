//! [`Spare`]: a `Vec` lent from this thread's spares for one kernel run,
//! so that running a kernel node on every batch allocates none of its
//! bookkeeping (its members, their fusion classes, its groups).

use std::cell::Cell;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// A `Vec`, empty when lent, from a thread's spare (`home`), given back
/// emptied when dropped. A run inside a run (a chain whose nodes run one
/// by one) finds the spare lent and makes its own.
pub(crate) struct Spare<T: 'static> {
    vec: Vec<T>,
    home: &'static LocalKey<Cell<Vec<T>>>,
}

impl<T> Spare<T> {
    /// The spare of `home`, or a new `Vec` where it is lent already (or the
    /// thread is ending).
    pub(crate) fn take(home: &'static LocalKey<Cell<Vec<T>>>) -> Self {
        let mut vec = home.try_with(Cell::take).unwrap_or_default();
        vec.clear();
        Spare { vec, home }
    }
}

impl<T> Deref for Spare<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.vec
    }
}

impl<T> DerefMut for Spare<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }
}

impl<T> Drop for Spare<T> {
    fn drop(&mut self) {
        let mut vec = std::mem::take(&mut self.vec);
        vec.clear();
        // A thread that is ending keeps no spare: the Vec is freed.
        let _ = self.home.try_with(|spare| spare.set(vec));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local!(static SPARE: Cell<Vec<u32>> = const { Cell::new(Vec::new()) });

    #[test]
    fn the_same_memory_is_lent_again_emptied() {
        let first = {
            let mut v = Spare::take(&SPARE);
            v.extend([1, 2, 3]);
            v.as_ptr()
        };
        let again = Spare::take(&SPARE);
        assert!(again.is_empty());
        assert_eq!(again.as_ptr(), first);
    }

    #[test]
    fn a_spare_lent_already_leaves_a_new_vec() {
        let mut outer = Spare::take(&SPARE);
        outer.push(7);
        let mut inner = Spare::take(&SPARE);
        inner.push(8);
        assert_eq!((outer.as_slice(), inner.as_slice()), (&[7][..], &[8][..]));
    }
}
