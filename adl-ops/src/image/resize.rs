//! [`resized_crop`]: a region of an image, resized (bilinear, antialiased);
//! [`resized_area`]: the same for a rectangle of fractional pixels.

use std::cell::RefCell;

use fast_image_resize::images::{CroppedImage, Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use ndarray::{Array3, ArrayView3};

use adl_core::transform::ImageLayout;
use adl_core::{Error, Result};

/// A rectangle of an image, in pixels: its top-left corner and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Region {
    /// The first row.
    pub top: usize,
    /// The first column.
    pub left: usize,
    /// How many rows.
    pub height: usize,
    /// How many columns.
    pub width: usize,
}

impl Region {
    /// The whole of an image of `height` x `width` pixels.
    pub fn whole(height: usize, width: usize) -> Self {
        Region {
            top: 0,
            left: 0,
            height,
            width,
        }
    }

    /// Whether the region is not empty and lies within an image of
    /// `height` x `width` pixels.
    pub fn fits(&self, height: usize, width: usize) -> bool {
        self.height > 0
            && self.width > 0
            && self
                .top
                .checked_add(self.height)
                .is_some_and(|bottom| bottom <= height)
            && self
                .left
                .checked_add(self.width)
                .is_some_and(|right| right <= width)
    }
}

/// A rectangle of an image in fractional pixels: its top-left corner and
/// its size (a pixel `(y, x)` covers `[y, y + 1) x [x, x + 1)`). What a
/// [`Region`] of a larger image covers in a copy of it scaled down, for
/// one ([`Area::scaled`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Where its first row starts.
    pub top: f64,
    /// Where its first column starts.
    pub left: f64,
    /// How many rows it spans.
    pub height: f64,
    /// How many columns it spans.
    pub width: f64,
}

impl Area {
    /// What `region` covers in the image scaled down by `factor` (each
    /// coordinate divided by it).
    pub fn scaled(region: Region, factor: f64) -> Self {
        Area {
            top: region.top as f64 / factor,
            left: region.left as f64 / factor,
            height: region.height as f64 / factor,
            width: region.width as f64 / factor,
        }
    }

    /// The whole pixels the area touches: from the one its corner is in
    /// to the one its far edge ends in.
    pub fn pixels(&self) -> Region {
        let (top, left) = (self.top.floor(), self.left.floor());
        Region {
            top: top as usize,
            left: left as usize,
            height: ((self.top + self.height).ceil() - top) as usize,
            width: ((self.left + self.width).ceil() - left) as usize,
        }
    }

    /// Whether the area is not empty, all its numbers finite, and lies
    /// within an image of `height` x `width` pixels.
    pub fn fits(&self, height: usize, width: usize) -> bool {
        [self.top, self.left, self.height, self.width]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0)
            && self.height > 0.0
            && self.width > 0.0
            && self.top + self.height <= height as f64
            && self.left + self.width <= width as f64
    }
}

/// The `region` of `image` (an RGB or any `u8` image in `layout`),
/// resized to `height` x `width` pixels: torchvision's
/// `F.resized_crop(image, top, left, h, w, size, BILINEAR,
/// antialias=True)`, the crop taken first (no pixel outside it is read).
///
/// The filter is Pillow's `BILINEAR`: a triangle, widened by the
/// reduction factor when shrinking (antialiased) and separable, its
/// weights Pillow's, summed in fixed point by
/// [fast_image_resize](https://docs.rs/fast_image_resize) (SIMD chosen at
/// run time): a pixel may differ from Pillow's by one (its fixed point's
/// rounding is its own). A side whose size does not change is copied.
///
/// Any number of channels in `[C, H, W]`; 1 to 4 in `[H, W, C]`. A region
/// outside the image, an empty region or output, or other channel counts
/// are an [`Error::InvalidParameter`].
///
/// ```
/// use adl::ndarray::{Array3, array, s};
/// use adl::transform::{ImageLayout, Region, resized_crop};
///
/// // A 2 x 4 gray image, its right half upscaled to 2 x 4.
/// let image: Array3<u8> = array![[[0], [0], [100], [200]], [[0], [0], [100], [200]]];
/// let right = Region { top: 0, left: 2, height: 2, width: 2 };
/// let out = resized_crop(image.view(), ImageLayout::Hwc, right, 2, 4)?;
/// assert_eq!(out.shape(), &[2, 4, 1]);
/// assert_eq!(out.slice(s![0, .., 0]), array![100, 125, 175, 200]);
/// assert_eq!(out.slice(s![1, .., 0]), array![100, 125, 175, 200]);
/// # Ok::<(), adl::Error>(())
/// ```
pub fn resized_crop(
    image: ArrayView3<'_, u8>,
    layout: ImageLayout,
    region: Region,
    height: usize,
    width: usize,
) -> Result<Array3<u8>> {
    let (rows, columns) = rows_columns(&image, layout)?;
    if !region.fits(rows, columns) {
        return Err(outside("resized_crop region", region, &image, layout));
    }
    resized_area(image, layout, Area::scaled(region, 1.0), height, width)
}

/// The `area` of `image` (fractional pixels; an RGB or any `u8` image in
/// `layout`), resized to `height` x `width` pixels with the filter of
/// [`resized_crop`]: Pillow's `resize((width, height), BILINEAR,
/// box=(left, top, left + width, top + height))`, but for its edges: the
/// filter reads only the pixels the area touches ([`Area::pixels`]),
/// where Pillow's reads on into the rest of the image. For an area of
/// whole pixels it is [`resized_crop`] of that region.
///
/// What it is for: a region of a large image, decoded at a reduced scale
/// (a JPEG's DCT-domain scaling), resized from the scaled copy with the
/// region's exact edges ([`Area::scaled`]).
///
/// An area not [`fits`](Area::fits) in the image, an empty output, or
/// the channel counts [`resized_crop`] refuses are an
/// [`Error::InvalidParameter`].
///
/// ```
/// use adl::ndarray::{Array3, array, s};
/// use adl::transform::{Area, ImageLayout, Region, resized_area, resized_crop};
///
/// let image = Array3::<u8>::from_shape_fn((8, 8, 1), |(y, x, _)| (y * 8 + x) as u8);
/// // A region of whole pixels: the same as resized_crop.
/// let region = Region { top: 2, left: 1, height: 6, width: 6 };
/// let whole = resized_area(image.view(), ImageLayout::Hwc, Area::scaled(region, 1.0), 3, 3)?;
/// assert_eq!(whole, resized_crop(image.view(), ImageLayout::Hwc, region, 3, 3)?);
/// // Half a pixel in from each side.
/// let inner = Area { top: 0.5, left: 0.5, height: 7.0, width: 7.0 };
/// let out = resized_area(image.view(), ImageLayout::Hwc, inner, 7, 7)?;
/// assert_eq!(out.shape(), &[7, 7, 1]);
/// # Ok::<(), adl::Error>(())
/// ```
pub fn resized_area(
    image: ArrayView3<'_, u8>,
    layout: ImageLayout,
    area: Area,
    height: usize,
    width: usize,
) -> Result<Array3<u8>> {
    let (rows, columns) = rows_columns(&image, layout)?;
    let shape = image.shape();
    let channels = shape[layout.channel_axis()];
    if !area.fits(rows, columns) {
        return Err(outside("resized_area area", area, &image, layout));
    }
    let region = area.pixels();
    if height == 0 || width == 0 || channels == 0 {
        return Err(Error::invalid(
            "resized_crop size",
            format!(
                "cannot make a {height} x {width} image of {channels} channels; all three must be at least 1"
            ),
        ));
    }
    let pixel = match (layout, channels) {
        (ImageLayout::Chw, _) | (ImageLayout::Hwc, 1) => PixelType::U8,
        (ImageLayout::Hwc, 2) => PixelType::U8x2,
        (ImageLayout::Hwc, 3) => PixelType::U8x3,
        (ImageLayout::Hwc, 4) => PixelType::U8x4,
        _ => {
            return Err(Error::invalid(
                "resized_crop image",
                format!(
                    "an [H, W, C] image of {channels} channels (shape {shape:?}); [H, W, C] images of 1 to 4 channels are resized, [C, H, W] images of any"
                ),
            ));
        }
    };
    let image = image.as_standard_layout();
    let values = image
        .as_slice()
        .ok_or_else(|| Error::internal("resized_crop", "a standard-layout view is a slice"))?;
    let side = |v: usize, what: &str| {
        u32::try_from(v).map_err(|_| {
            Error::invalid(
                "resized_crop size",
                format!("{what} {v} is past the resizer's 2^32 - 1"),
            )
        })
    };
    let (rows, columns) = (side(rows, "a side of")?, side(columns, "a side of")?);
    let (out_rows, out_columns) = (side(height, "an output of")?, side(width, "an output of")?);
    let planes = if layout == ImageLayout::Chw {
        channels
    } else {
        1
    };
    let plane = values.len() / planes;
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Bilinear))
        .crop(
            area.left - region.left as f64,
            area.top - region.top as f64,
            area.width,
            area.height,
        );
    let mut out = vec![0u8; channels * height * width];
    let out_plane = out.len() / planes;
    RESIZER.with_borrow_mut(|resizer| {
        for (values, out) in values
            .chunks_exact(plane)
            .zip(out.chunks_exact_mut(out_plane))
        {
            let source = ImageRef::new(columns, rows, values, pixel)
                .map_err(|e| Error::internal("resized_crop", e))?;
            // The touched pixels as the whole source: none outside is read.
            let source = CroppedImage::new(
                &source,
                region.left as u32,
                region.top as u32,
                region.width as u32,
                region.height as u32,
            )
            .map_err(|e| Error::internal("resized_crop", e))?;
            // Resized straight into the output's plane.
            let mut resized = Image::from_slice_u8(out_columns, out_rows, out, pixel)
                .map_err(|e| Error::internal("resized_crop", e))?;
            resizer
                .resize(&source, &mut resized, &options)
                .map_err(|e| Error::internal("resized_crop", e))?;
        }
        Ok::<_, Error>(())
    })?;
    Array3::from_shape_vec(layout.shape(height, width, channels), out)
        .map_err(|e| Error::internal("resized_crop", e))
}

/// The rows and columns of `image` in `layout`.
fn rows_columns(image: &ArrayView3<'_, u8>, layout: ImageLayout) -> Result<(usize, usize)> {
    layout
        .height_width(image.shape())
        .ok_or_else(|| Error::internal("resized_crop", "an Array3 with three axes"))
}

/// The error of `what` (a region or an area) that is empty or outside
/// `image`.
fn outside(
    name: &str,
    what: impl std::fmt::Debug,
    image: &ArrayView3<'_, u8>,
    layout: ImageLayout,
) -> Error {
    let shape = image.shape();
    let (rows, columns) = layout.height_width(shape).unwrap_or_default();
    Error::invalid(
        name,
        format!(
            "{what:?} is empty or outside the {rows} x {columns} image (shape {shape:?}, {})",
            layout.describe()
        ),
    )
}

thread_local! {
    /// This thread's resizer, its buffers kept between images.
    static RESIZER: RefCell<Resizer> = RefCell::new(Resizer::new());
}
