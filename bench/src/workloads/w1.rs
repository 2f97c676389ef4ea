//! W1 "tiny": vectors of 64 floats and a label.

use std::sync::Arc;

use adl::collate::{Gather, InPlace, SameRow};
use adl::prelude::*;
use adl::storage::{Ahead, Storage};
use ndarray::{ArcArray, Array1, Ix1, Ix2};

use super::par_fill;
use crate::spec::{u, unit};

/// W1's features and labels, gathered at each sample's row.
pub type W1Gather = Gather<SameRow<(ArcArray<f32, Ix2>, ArcArray<i64, Ix1>)>>;
/// W1's features left in place and its labels, gathered at each sample's
/// row.
pub type W1GatherInPlace = Gather<SameRow<(InPlace<f32, Ix2>, ArcArray<i64, Ix1>)>>;

/// W1 "tiny": `n` vectors of 64 floats and a label, batch 256.
pub struct W1 {
    /// `f32[n, 64]`.
    pub x: ArcArray<f32, Ix2>,
    /// `i64[n]`.
    pub y: ArcArray<i64, Ix1>,
}

/// W1's features per sample.
pub const W1_FEATURES: usize = 64;
/// W1's full size.
pub const W1_SAMPLES: usize = 200_000;
/// `STD = f32(sqrt(3))`, bits `0x3FDDB3D7`.
pub const W1_STD: f32 = f32::from_bits(0x3FDD_B3D7);

impl W1 {
    /// The first `n` samples of W1.
    pub fn generate(n: usize) -> Self {
        let mut x = vec![0f32; n * W1_FEATURES];
        par_fill(&mut x, W1_FEATURES * 1024, |k, chunk| {
            let first = k * 1024;
            for (r, row) in chunk.chunks_mut(W1_FEATURES).enumerate() {
                let i = (first + r) as u64;
                for (j, v) in row.iter_mut().enumerate() {
                    *v = unit(u(1, i, j as u64)) * 6.0 - 2.0;
                }
            }
        });
        let y: Vec<i64> = (0..n as u64)
            .map(|i| ((u(2, i, 0) >> 32) % 10) as i64)
            .collect();
        W1 {
            x: ArcArray::from_shape_vec((n, W1_FEATURES), x).expect("n rows of 64"),
            y: ArcArray::from(y),
        }
    }

    /// The features, row-major.
    pub fn xs(&self) -> &[f32] {
        self.x.as_slice().unwrap_or(&[])
    }

    /// The labels.
    pub fn ys(&self) -> &[i64] {
        self.y.as_slice().unwrap_or(&[])
    }

    /// W1 gathered straight into batches: samples are row keys `i`, the
    /// batch is `(x rows, labels)`.
    pub fn gather(&self) -> W1Gather {
        Gather::new(SameRow((self.x.clone(), self.y.clone())))
    }

    /// W1 gathered with its features left in place: samples are row keys
    /// `i`, the batch is `(rows, labels)`, the rows read by the batch
    /// kernel straight from the dataset.
    pub fn gather_in_place(&self) -> W1GatherInPlace {
        Gather::new(SameRow((InPlace::new(self.x.clone()), self.y.clone())))
    }
}

/// A W1 sample.
#[derive(Debug, Clone, adl::Collate)]
pub struct W1Sample {
    /// The features.
    pub x: Array1<f32>,
    /// The label.
    pub y: i64,
}

/// W1 as a dataset (reading a sample copies its row).
#[derive(Clone)]
pub struct W1Data(pub Arc<W1>);

impl Dataset for W1Data {
    type Sample = W1Sample;

    fn len(&self) -> usize {
        self.0.ys().len()
    }

    fn get(&self, index: usize) -> adl::Result<W1Sample> {
        let row = self
            .0
            .xs()
            .get(index * W1_FEATURES..(index + 1) * W1_FEATURES)
            .ok_or_else(|| adl::Error::invalid("index", format!("{index} is out of range")))?;
        Ok(W1Sample {
            x: Array1::from(row.to_vec()),
            y: self.0.ys()[index],
        })
    }

    /// In memory: it takes hints a few samples ahead.
    fn storage(&self) -> Option<&dyn Storage<Origin = adl::Origin>> {
        Some(self)
    }
}

impl Storage for W1Data {
    type Origin = adl::Origin;

    fn ahead(&self) -> Ahead {
        Ahead::Hints
    }

    fn prefetch(&self, index: usize) {
        if let Some(row) = self
            .0
            .xs()
            .get(index * W1_FEATURES..(index + 1) * W1_FEATURES)
        {
            adl::exec::prefetch(row);
        }
    }
}
