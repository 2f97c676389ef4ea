//! W2 "image": RGB 64x64 images and a flip flag each.

use std::sync::Arc;

use adl::collate::{Gather, InPlace, SameRow};
use adl::prelude::*;
use adl::storage::{Ahead, Storage};
use ndarray::{ArcArray, Array3, Ix1, Ix4};

use super::par_fill;
use crate::spec::u;

/// Bytes per W2 image: `u8[3, 64, 64]`.
pub const W2_IMAGE: usize = 3 * 64 * 64;
/// W2's full size.
pub const W2_SAMPLES: usize = 20_000;
/// W2's per-channel means.
pub const W2_MEAN: [f32; 3] = [0.485, 0.456, 0.406];
/// W2's per-channel standard deviations.
pub const W2_STD: [f32; 3] = [0.229, 0.224, 0.225];

/// W2's images and flip flags, gathered at each sample's row.
pub type W2Gather = Gather<SameRow<(ArcArray<u8, Ix4>, ArcArray<bool, Ix1>)>>;
/// W2's images left in place and its flip flags, gathered at each
/// sample's row.
pub type W2GatherInPlace = Gather<SameRow<(InPlace<u8, Ix4>, ArcArray<bool, Ix1>)>>;

/// W2 "image": `n` RGB 64x64 images and a flip flag each, batch 64.
pub struct W2 {
    /// `u8[n, 3, 64, 64]`.
    pub images: ArcArray<u8, Ix4>,
    /// One flag per image.
    pub flips: ArcArray<bool, Ix1>,
}

impl W2 {
    /// The first `n` samples of W2.
    pub fn generate(n: usize) -> Self {
        let mut images = vec![0u8; n * W2_IMAGE];
        par_fill(&mut images, W2_IMAGE, |i, image| {
            for (j, px) in image.iter_mut().enumerate() {
                *px = (u(3, i as u64, j as u64) >> 56) as u8;
            }
        });
        let flips: Vec<bool> = (0..n as u64).map(|i| (u(4, i, 0) >> 63) == 1).collect();
        W2 {
            images: ArcArray::from_shape_vec((n, 3, 64, 64), images).expect("n images"),
            flips: ArcArray::from(flips),
        }
    }

    /// The images' bytes, row-major.
    pub fn pixels(&self) -> &[u8] {
        self.images.as_slice().unwrap_or(&[])
    }

    /// The flip flags.
    pub fn flags(&self) -> &[bool] {
        self.flips.as_slice().unwrap_or(&[])
    }

    /// W2 gathered straight into batches: samples are row keys `i`, the
    /// batch is `(images, flags)`, what `FlipByFlag` takes.
    pub fn gather(&self) -> W2Gather {
        Gather::new(SameRow((self.images.clone(), self.flips.clone())))
    }

    /// W2 gathered with its images left in place: samples are row keys
    /// `i`, the batch is `(rows, flags)`, the images' rows read by the
    /// first batch kernel straight from the dataset.
    pub fn gather_in_place(&self) -> W2GatherInPlace {
        Gather::new(SameRow((
            InPlace::new(self.images.clone()),
            self.flips.clone(),
        )))
    }
}

/// W2 as a dataset: sample `i` is its image and its flip flag (the flip
/// and the conversion run as batch kernels).
#[derive(Clone)]
pub struct W2Data(pub Arc<W2>);

impl Dataset for W2Data {
    type Sample = (Array3<u8>, bool);

    fn len(&self) -> usize {
        self.0.flags().len()
    }

    fn get(&self, index: usize) -> adl::Result<(Array3<u8>, bool)> {
        let image = self
            .0
            .pixels()
            .get(index * W2_IMAGE..(index + 1) * W2_IMAGE)
            .ok_or_else(|| adl::Error::invalid("index", format!("{index} is out of range")))?;
        let image = Array3::from_shape_vec((3, 64, 64), image.to_vec())
            .map_err(|e| adl::Error::invalid("image", e.to_string()))?;
        Ok((image, self.0.flags()[index]))
    }

    /// In memory: it takes hints a few samples ahead.
    fn storage(&self) -> Option<&dyn Storage<Origin = adl::Origin>> {
        Some(self)
    }
}

impl Storage for W2Data {
    type Origin = adl::Origin;

    fn ahead(&self) -> Ahead {
        Ahead::Hints
    }

    fn prefetch(&self, index: usize) {
        if let Some(image) = self
            .0
            .pixels()
            .get(index * W2_IMAGE..(index + 1) * W2_IMAGE)
        {
            adl::exec::prefetch(image);
        }
    }
}
