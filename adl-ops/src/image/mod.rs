//! Operations on images: `Array3<u8>` images in an
//! [`ImageLayout`](adl_core::transform::ImageLayout) (`[H, W, C]` or
//! `[C, H, W]`), the sample-stage nodes drawing from the per-sample
//! generator: [`RandomResizedCrop`] (torchvision's, with [`resized_crop`]
//! for a given [`Region`], [`resized_area`] for an [`Area`] of fractional
//! pixels) and [`RandomFlip`]. The facade names them in `adl::transform`.

mod crop;
mod flip;
mod resize;

pub use crop::RandomResizedCrop;
pub use flip::RandomFlip;
pub use resize::{Area, Region, resized_area, resized_crop};
