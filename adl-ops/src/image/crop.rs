//! [`RandomResizedCrop`]: a random region of an image, resized.

use ndarray::Array3;

use super::{Region, resized_crop};
use adl_core::description::{Node, NodeInfo, SampleNode, Stage, Takes};
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result, Transform};
use adl_exec::{Context, NodeId, SampleRng, Sequential};

/// A sample node that crops a random region of an image and resizes it
/// to a fixed size: torchvision's `RandomResizedCrop(size, scale=(0.08,
/// 1.0), ratio=(3/4, 4/3))` on an `Array3<u8>` (`[H, W, C]` or `[C, H,
/// W]`, as its [`ImageLayout`] says).
///
/// The region is drawn as torchvision's `get_params` draws it (see
/// [`draw`](RandomResizedCrop::draw)): up to 10 attempts at an area of a
/// uniform fraction in `scale` of the image's and a log-uniform aspect
/// ratio (width / height) in `ratio`, sides rounded half to even as
/// Python's `round`, kept if it fits, at a uniform position; after 10
/// misses, the largest centered region whose ratio is within `ratio`. It
/// is resized by [`resized_crop`]: bilinear with antialiasing, Pillow's
/// filter (torchvision's `antialias=True`), within one of Pillow's value
/// per pixel. The draws come from the per-sample generator of the
/// context ([`Context::rng`]), so they are not torch's numbers, but the
/// same for the same (seed, epoch, sample index, node) with any number of
/// workers.
///
/// Where it differs from torchvision: a fallback region of a very thin
/// image is at least one pixel high and wide; `scale` and `ratio` with
/// their minimum above their maximum, or not positive, are refused (an
/// [`Error::InvalidParameter`] when applied) where torchvision warns.
///
/// ```
/// use adl::Transform;
/// use adl::exec::Sequential;
/// use adl::ndarray::Array3;
/// use adl::transform::{ImageLayout, RandomResizedCrop};
///
/// let crop = RandomResizedCrop::new(16);
/// let image = Array3::<u8>::from_shape_fn((24, 32, 3), |(y, x, c)| (x * 8 + y + c) as u8);
/// let at = |index| Sequential::new().seeded(1, 0).at(index);
/// let out = crop.apply_in(&at(5), image.clone())?;
/// assert_eq!(out.shape(), &[16, 16, 3]);
/// assert_eq!(out, crop.apply_in(&at(5), image.clone())?);  // same seed, epoch, index
///
/// let planes = RandomResizedCrop::with_size(8, 12).scale(0.5, 1.0).layout(ImageLayout::Chw);
/// let out = planes.apply(image.permuted_axes([2, 0, 1]).as_standard_layout().into_owned())?;
/// assert_eq!(out.shape(), &[3, 8, 12]);
/// # Ok::<(), adl::Error>(())
/// ```
///
/// In a `pipeline!`, the node is its value:
///
/// ```
/// use adl::ndarray::Array3;
/// use adl::transform::{RandomFlip, RandomResizedCrop};
///
/// let pipe = adl::pipeline! {
///     sample: |x: Array3<u8>| x -> RandomResizedCrop::new(8) -> RandomFlip::horizontal(),
///     collate: default,
/// };
/// let batch = adl::pipeline::run(&pipe, vec![Array3::<u8>::zeros((24, 32, 3)); 4])?;
/// assert_eq!(batch.shape(), &[4, 8, 8, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomResizedCrop {
    height: usize,
    width: usize,
    scale: (f64, f64),
    ratio: (f64, f64),
    layout: ImageLayout,
}

/// torchvision's attempts at a region before the centered fallback.
const ATTEMPTS: usize = 10;

impl RandomResizedCrop {
    /// Crops resized to `size` x `size`, with torchvision's defaults:
    /// `scale` (0.08, 1.0), `ratio` (3/4, 4/3), `[H, W, C]` images.
    pub fn new(size: usize) -> Self {
        Self::with_size(size, size)
    }

    /// Crops resized to `height` x `width`, with the defaults of
    /// [`new`](RandomResizedCrop::new).
    pub fn with_size(height: usize, width: usize) -> Self {
        RandomResizedCrop {
            height,
            width,
            scale: (0.08, 1.0),
            ratio: (3.0 / 4.0, 4.0 / 3.0),
            layout: ImageLayout::Hwc,
        }
    }

    /// The fraction of the image's area a region covers, drawn uniformly
    /// in `[min, max]`.
    pub fn scale(self, min: f64, max: f64) -> Self {
        RandomResizedCrop {
            scale: (min, max),
            ..self
        }
    }

    /// A region's aspect ratio (width / height), drawn log-uniformly in
    /// `[min, max]`.
    pub fn ratio(self, min: f64, max: f64) -> Self {
        RandomResizedCrop {
            ratio: (min, max),
            ..self
        }
    }

    /// For images of `layout`.
    pub fn layout(self, layout: ImageLayout) -> Self {
        RandomResizedCrop { layout, ..self }
    }

    /// The output's height and width.
    pub fn size(&self) -> (usize, usize) {
        (self.height, self.width)
    }

    /// A region of an image of `height` x `width` pixels (both at least
    /// 1), drawn from `rng` as torchvision's
    /// `RandomResizedCrop.get_params` draws it.
    ///
    /// ```
    /// use adl::exec::{NodeId, SampleRng};
    /// use adl::transform::RandomResizedCrop;
    ///
    /// let crop = RandomResizedCrop::new(224);
    /// let mut rng = SampleRng::new(0, 0, 7, NodeId(0));
    /// let r = crop.draw(480, 640, &mut rng);
    /// assert!(r.top + r.height <= 480 && r.left + r.width <= 640);
    /// let area = (r.height * r.width) as f64 / (480.0 * 640.0);
    /// assert!((0.07..=1.0).contains(&area));
    /// ```
    pub fn draw(&self, height: usize, width: usize, rng: &mut SampleRng) -> Region {
        let area = (height * width) as f64;
        let (log_min, log_max) = (self.ratio.0.ln(), self.ratio.1.ln());
        for _ in 0..ATTEMPTS {
            let target = area * uniform(rng, self.scale.0, self.scale.1);
            let aspect = uniform(rng, log_min, log_max).exp();
            let w = (target * aspect).sqrt().round_ties_even();
            let h = (target / aspect).sqrt().round_ties_even();
            if w >= 1.0 && h >= 1.0 && w <= width as f64 && h <= height as f64 {
                let (h, w) = (h as usize, w as usize);
                let top = rng.below((height - h + 1) as u64) as usize;
                let left = rng.below((width - w + 1) as u64) as usize;
                return Region {
                    top,
                    left,
                    height: h,
                    width: w,
                };
            }
        }
        // torchvision's fallback: a centered crop of the ratio nearest the
        // image's within `ratio`.
        let in_ratio = width as f64 / height as f64;
        let (h, w) = if in_ratio < self.ratio.0 {
            let h = (width as f64 / self.ratio.0).round_ties_even() as usize;
            (h.clamp(1, height), width)
        } else if in_ratio > self.ratio.1 {
            let w = (height as f64 * self.ratio.1).round_ties_even() as usize;
            (height, w.clamp(1, width))
        } else {
            (height, width)
        };
        Region {
            top: (height - h) / 2,
            left: (width - w) / 2,
            height: h,
            width: w,
        }
    }

    /// The layout of the images it takes and makes.
    pub fn image_layout(&self) -> ImageLayout {
        self.layout
    }

    /// The parameters checked: an output size, and ranges with a positive
    /// minimum not above their maximum. An [`Error::InvalidParameter`]
    /// otherwise (as applying it gives).
    pub fn check(&self) -> Result<()> {
        if self.height == 0 || self.width == 0 {
            return Err(Error::invalid(
                "random_resized_crop size",
                format!(
                    "{} x {}: both sides must be at least 1",
                    self.height, self.width
                ),
            ));
        }
        for (what, (min, max)) in [("scale", self.scale), ("ratio", self.ratio)] {
            if !(min.is_finite() && max.is_finite() && min > 0.0 && min <= max) {
                return Err(Error::invalid(
                    format_args!("random_resized_crop {what}"),
                    format!("({min}, {max}): a range of positive numbers, its minimum first"),
                ));
            }
        }
        Ok(())
    }
}

/// A uniform draw in `[low, high)`.
fn uniform(rng: &mut SampleRng, low: f64, high: f64) -> f64 {
    low + (high - low) * rng.unit_f64()
}

impl Transform<Array3<u8>> for RandomResizedCrop {
    type Output = Array3<u8>;

    /// With the generator of seed 0, epoch 0, sample 0.
    fn apply(&self, input: Array3<u8>) -> Result<Array3<u8>> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: Array3<u8>) -> Result<Array3<u8>> {
        self.check()?;
        let (height, width) = self
            .layout
            .height_width(input.shape())
            .ok_or_else(|| Error::internal("random_resized_crop", "an Array3 has three axes"))?;
        if height == 0 || width == 0 {
            return Err(Error::invalid(
                "random_resized_crop input",
                format!(
                    "an empty image (shape {:?}, {})",
                    input.shape(),
                    self.layout.describe()
                ),
            ));
        }
        let region = self.draw(height, width, &mut cx.rng(NodeId(0)));
        resized_crop(input.view(), self.layout, region, self.height, self.width)
    }
}

impl Node for RandomResizedCrop {
    type Input = Array3<u8>;
    type Output = Array3<u8>;

    fn info(&self) -> NodeInfo {
        NodeInfo::new("random_resized_crop", Stage::Sample)
            .typed::<Array3<u8>, Array3<u8>>()
            .with_doc(format!(
                "Crop a random region (scale {:?}, ratio {:?}) of a {} image and resize it to {} x {} (built-in).",
                self.scale,
                self.ratio,
                self.layout.describe(),
                self.height,
                self.width
            ))
    }
}

// Not listed among the nodes rustc suggests when a node is misplaced
// (as the closure nodes are not): its help names the user's own nodes.
#[diagnostic::do_not_recommend]
impl SampleNode for RandomResizedCrop {
    type Node = Self;
}
#[diagnostic::do_not_recommend]
impl Takes<Array3<u8>> for RandomResizedCrop {}
