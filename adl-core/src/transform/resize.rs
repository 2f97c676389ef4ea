//! [`resized_crop`]: a region of an image, resized (bilinear, antialiased).

use ndarray::{Array3, ArrayView3};

use super::ImageLayout;
use crate::{Error, Result};

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

/// The `region` of `image` (an RGB or any `u8` image in `layout`),
/// resized to `height` x `width` pixels: torchvision's
/// `F.resized_crop(image, top, left, h, w, size, BILINEAR,
/// antialias=True)`, the crop taken first (no pixel outside it is read).
///
/// The filter is Pillow's `BILINEAR`: a triangle, widened by the
/// reduction factor when shrinking (antialiased) and separable, rows then
/// columns, rounded to `u8` between the two passes as Pillow does. Its
/// weights are computed and summed in `f32` where Pillow uses fixed
/// point: a pixel may differ from Pillow's by one. A side whose size does
/// not change is copied.
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
    let shape = image.shape();
    let (rows, columns) = layout
        .height_width(shape)
        .ok_or_else(|| Error::internal("resized_crop", "an Array3 with three axes"))?;
    let channels = shape[layout.channel_axis()];
    if !region.fits(rows, columns) {
        return Err(Error::invalid(
            "resized_crop region",
            format!(
                "{region:?} is empty or outside the {rows} x {columns} image (shape {shape:?}, {})",
                layout.describe()
            ),
        ));
    }
    if height == 0 || width == 0 || channels == 0 {
        return Err(Error::invalid(
            "resized_crop size",
            format!(
                "cannot make a {height} x {width} image of {channels} channels; all three must be at least 1"
            ),
        ));
    }
    let image = image.as_standard_layout();
    let values = image
        .as_slice()
        .ok_or_else(|| Error::internal("resized_crop", "a standard-layout view is a slice"))?;
    let xs = Coeffs::new(region.width, width);
    let ys = Coeffs::new(region.height, height);
    let out = match layout {
        ImageLayout::Hwc => match channels {
            1 => resample::<1>(values, columns, region, &xs, &ys),
            2 => resample::<2>(values, columns, region, &xs, &ys),
            3 => resample::<3>(values, columns, region, &xs, &ys),
            4 => resample::<4>(values, columns, region, &xs, &ys),
            _ => {
                return Err(Error::invalid(
                    "resized_crop image",
                    format!(
                        "an [H, W, C] image of {channels} channels (shape {shape:?}); [H, W, C] images of 1 to 4 channels are resized, [C, H, W] images of any"
                    ),
                ));
            }
        },
        ImageLayout::Chw => {
            let plane = rows * columns;
            let mut out = Vec::with_capacity(channels * height * width);
            for values in values.chunks_exact(plane) {
                out.extend(resample::<1>(values, columns, region, &xs, &ys));
            }
            out
        }
    };
    Array3::from_shape_vec(layout.shape(height, width, channels), out)
        .map_err(|e| Error::internal("resized_crop", e))
}

/// The weights of one pass: for each output pixel, the first input pixel
/// it reads and the weights of it and the ones after it.
struct Coeffs {
    /// Input size equals output size: the pass is a copy.
    identity: bool,
    /// Weights per output pixel, at most (the stride of `weights`).
    taps: usize,
    first: Vec<usize>,
    count: Vec<usize>,
    weights: Vec<f32>,
}

impl Coeffs {
    /// Pillow's `precompute_coeffs` for the bilinear (triangle) filter,
    /// from `input` pixels to `output`, both at least 1.
    fn new(input: usize, output: usize) -> Self {
        let scale = input as f64 / output as f64;
        let filter_scale = scale.max(1.0);
        let support = filter_scale; // the triangle's support is 1
        let taps = support.ceil() as usize * 2 + 1;
        let mut first = Vec::with_capacity(output);
        let mut count = Vec::with_capacity(output);
        let mut weights = vec![0f32; output * taps];
        for (x, row) in weights.chunks_exact_mut(taps).enumerate() {
            let center = (x as f64 + 0.5) * scale;
            // C's `(int)`, truncation toward zero, then clamped as in Pillow.
            let min = ((center - support + 0.5) as i64).max(0) as usize;
            let max = ((center + support + 0.5) as i64).clamp(0, input as i64) as usize;
            let n = max.saturating_sub(min).clamp(1, taps);
            let min = min.min(input - n);
            let weight = |i: usize| {
                let d = ((min + i) as f64 - center + 0.5) / filter_scale;
                (1.0 - d.abs()).max(0.0)
            };
            let total: f64 = (0..n).map(weight).sum();
            if total > 0.0 {
                for (i, w) in row[..n].iter_mut().enumerate() {
                    *w = (weight(i) / total) as f32;
                }
            }
            first.push(min);
            count.push(n);
        }
        Coeffs {
            identity: input == output,
            taps,
            first,
            count,
            weights,
        }
    }

    /// For each output pixel: its first input pixel and its weights.
    fn iter(&self) -> impl Iterator<Item = (usize, &[f32])> {
        self.weights
            .chunks_exact(self.taps)
            .zip(self.first.iter().zip(&self.count))
            .map(|(w, (&first, &n))| (first, &w[..n]))
    }
}

/// A weighted sum as a pixel value: rounded half up, clamped to `u8`.
#[inline]
fn to_u8(value: f32) -> u8 {
    // `as` saturates: below 0 is 0, above 255 is 255.
    (value + 0.5) as u8
}

/// `region` of the image `values` (rows of `columns` pixels of `C`
/// interleaved values), resized by `xs` and `ys`: rows, then columns.
fn resample<const C: usize>(
    values: &[u8],
    columns: usize,
    region: Region,
    xs: &Coeffs,
    ys: &Coeffs,
) -> Vec<u8> {
    let out_width = xs.first.len();
    let row_len = out_width * C;
    let mut rows = vec![0u8; region.height * row_len];
    let input_rows = values
        .chunks_exact(columns * C)
        .skip(region.top)
        .take(region.height);
    for (row, out) in input_rows.zip(rows.chunks_exact_mut(row_len)) {
        let row = &row[region.left * C..(region.left + region.width) * C];
        if xs.identity {
            out.copy_from_slice(row);
            continue;
        }
        let (out, _) = out.as_chunks_mut::<C>();
        for (o, (first, weights)) in out.iter_mut().zip(xs.iter()) {
            let (pixels, _) = row[first * C..].as_chunks::<C>();
            let mut sum = [0f32; C];
            for (pixel, &w) in pixels.iter().zip(weights) {
                for (s, &v) in sum.iter_mut().zip(pixel) {
                    *s += w * f32::from(v);
                }
            }
            *o = sum.map(to_u8);
        }
    }
    if ys.identity {
        return rows;
    }
    let mut out = vec![0u8; ys.first.len() * row_len];
    let mut sum = vec![0f32; row_len];
    for ((first, weights), out) in ys.iter().zip(out.chunks_exact_mut(row_len)) {
        sum.fill(0.0);
        for (row, &w) in rows.chunks_exact(row_len).skip(first).zip(weights) {
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += w * f32::from(v);
            }
        }
        for (o, &s) in out.iter_mut().zip(&sum) {
            *o = to_u8(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_stay_inside() {
        for (input, output) in [
            (1, 1),
            (7, 3),
            (3, 7),
            (100, 1),
            (1, 9),
            (224, 224),
            (37, 224),
        ] {
            let c = Coeffs::new(input, output);
            for (first, weights) in c.iter() {
                assert!(first + weights.len() <= input, "{input} -> {output}");
                let total: f32 = weights.iter().sum();
                assert!((total - 1.0).abs() < 1e-5, "{input} -> {output}: {total}");
            }
        }
    }
}
