//! [`LowDiscrepancy`]: a golden-ratio walk over the whole dataset, every
//! index once, spread evenly at every prefix.

use std::sync::Arc;

use adl_core::Result;
use adl_core::sample::{Step, ld_step};

use super::{EpochOrder, Order};

/// A low-discrepancy walk over the whole dataset
/// ([`sample_ld`](adl_core::sample::sample_ld) with the golden-ratio
/// step), started `offset + epoch` indices in: every index once, spread
/// evenly at every prefix. Computed per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LowDiscrepancy {
    /// Where epoch 0 starts.
    pub offset: i64,
}

/// An epoch of [`LowDiscrepancy`]: `(start + p * step) mod len`, the step
/// co-prime with `len`.
#[derive(Debug, Clone, Copy)]
struct Walk {
    len: usize,
    start: usize,
    step: usize,
}

impl EpochOrder for Walk {
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn index(&self, position: usize) -> Option<usize> {
        (position < self.len).then(|| {
            // 128 bits: position * step does not overflow.
            ((position as u128 * self.step as u128 + self.start as u128) % self.len as u128)
                as usize
        })
    }
}

impl Order for LowDiscrepancy {
    fn len(&self, dataset_len: usize) -> usize {
        dataset_len
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        let start = self.offset.wrapping_add(epoch as i64);
        Ok(Arc::new(Walk {
            len: dataset_len,
            start: match dataset_len {
                0 => 0,
                n => i128::from(start).rem_euclid(n as i128) as usize,
            },
            step: ld_step(dataset_len, Step::GoldenRatio)?,
        }))
    }

    fn describe(&self) -> String {
        format!("low-discrepancy(offset={})", self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_core::sample::{Amount, Seed, sample_ld};

    #[test]
    fn per_position_it_is_sample_ld() {
        for len in [0, 1, 2, 6, 10, 97, 1000] {
            for (offset, epoch) in [(0, 0), (3, 2), (-4, 7), (i64::MAX, 1)] {
                let order = LowDiscrepancy { offset }.epoch(epoch, len).unwrap();
                let start = offset.wrapping_add(epoch as i64);
                let whole = sample_ld(
                    len,
                    Amount::Count(len),
                    Seed::Offset(start),
                    Step::GoldenRatio,
                )
                .unwrap();
                let got: Vec<usize> = (0..order.len()).filter_map(|p| order.index(p)).collect();
                assert_eq!(got, whole, "len {len} offset {offset} epoch {epoch}");
            }
        }
    }
}
