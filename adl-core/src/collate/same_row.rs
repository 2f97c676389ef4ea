//! [`SameRow`]: a tuple of row sources read at one key, the sample's row.

use super::gather::RowSource;
use crate::Result;
use adl_exec::Buffers;

/// A tuple of row sources (arrays, [`RowWindows`](super::RowWindows),
/// [`InPlace`](super::InPlace) tables) that a [`Gather`](super::Gather)
/// reads at the same key: sample `i` is row `i` of every one (features and
/// their labels, say), so the samples are plain row indices. A plain tuple
/// takes a tuple of keys, one per source; this one passes the batch's keys
/// to each source as they are, with no tuple of keys per sample and no
/// list of keys made per source.
///
/// ```
/// use adl::Collate;
/// use adl::collate::{Gather, SameRow};
/// use ndarray::{ArcArray, array};
///
/// let features = ArcArray::from(array![[0.0f32, 1.0], [2.0, 3.0], [4.0, 5.0]]);
/// let labels = ArcArray::from(array![7i64, 8, 9]);
/// let gather = Gather::new(SameRow((features, labels)));
/// let (x, y) = gather.collate(vec![2, 0])?;
/// assert_eq!(x, array![[4.0f32, 5.0], [0.0, 1.0]]);
/// assert_eq!(y, array![9i64, 7]);
/// // A key past a source's rows is an error that names the key.
/// let err = gather.collate(vec![3]).unwrap_err();
/// assert!(err.to_string().contains("index 3 is out of range"), "{err}");
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SameRow<T>(pub T);

macro_rules! same_row {
    ($(($idx:tt, $t:ident)),+) => {
        impl<K: Copy, $($t: RowSource<Key = K>),+> RowSource for SameRow<($($t,)+)> {
            type Key = K;
            type Batch = ($($t::Batch,)+);

            fn gather(&self, keys: &[K]) -> Result<Self::Batch> {
                self.gather_in(keys, Buffers::none())
            }

            fn gather_in(&self, keys: &[K], buffers: Buffers<'_>) -> Result<Self::Batch> {
                Ok(($(
                    (self.0).$idx
                        .gather_in(keys, buffers)
                        .map_err(|e| e.within(concat!(".", stringify!($idx))))?,
                )+))
            }

            fn prefetch(&self, key: K) {
                $((self.0).$idx.prefetch(key);)+
            }
        }
    };
}
same_row!((0, T0));
same_row!((0, T0), (1, T1));
same_row!((0, T0), (1, T1), (2, T2));
same_row!((0, T0), (1, T1), (2, T2), (3, T3));
same_row!((0, T0), (1, T1), (2, T2), (3, T3), (4, T4));
same_row!((0, T0), (1, T1), (2, T2), (3, T3), (4, T4), (5, T5));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collate::{InPlace, RowWindows};
    use ndarray::{ArcArray, Array1, Array2, Axis};

    #[test]
    fn every_source_gives_the_rows_of_the_same_keys_as_a_tuple_of_keys_does() {
        let x = ArcArray::from(Array2::from_shape_fn((6, 3), |(i, j)| (i * 3 + j) as f32));
        let y = ArcArray::from(Array1::from_shape_fn(6, |i| i as i64 * 10));
        let keys = [5, 0, 3, 3];
        let pairs: Vec<(usize, usize)> = keys.iter().map(|&k| (k, k)).collect();
        let same = SameRow((x.clone(), y.clone())).gather(&keys).unwrap();
        let tuple = (x.clone(), y.clone()).gather(&pairs).unwrap();
        assert_eq!(same, tuple);
        let windows = SameRow((RowWindows::new(x.clone(), 2), InPlace::new(x.clone())));
        let (w, rows) = windows.gather(&[4, 1]).unwrap();
        assert_eq!(w.index_axis(Axis(0), 0), x.slice(ndarray::s![4..6, ..]));
        assert_eq!(rows.keys(), &[4, 1]);
    }

    #[test]
    fn a_key_out_of_one_source_is_an_error_naming_the_key_and_its_rows() {
        let x = ArcArray::from(Array2::<f32>::zeros((6, 3)));
        let short = ArcArray::from(Array1::<i64>::zeros(4));
        let err = SameRow((x, short)).gather(&[1, 5]).unwrap_err();
        assert!(
            matches!(
                err,
                crate::Error::IndexOutOfRange {
                    index: 5,
                    len: 4,
                    ..
                }
            ),
            "{err}"
        );
    }
}
