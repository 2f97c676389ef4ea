//! [`RandomFlip`]: a horizontal flip of an image, with a probability.

use std::marker::PhantomData;

use ndarray::{Array3, Axis};

use adl_core::description::{Node, NodeInfo, SampleNode, Stage, Takes};
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result, Transform};
use adl_exec::{Context, NodeId, Sequential};

/// A sample node that mirrors an image left to right with probability
/// `p` (0.5 by default), as torchvision's `RandomHorizontalFlip`: the
/// width axis of an `Array3<T>` (`[H, W, C]` or `[C, H, W]`, as its
/// [`ImageLayout`] says) reversed, in place.
///
/// The coin is drawn from the per-sample generator of its context
/// ([`Context::rng`]): in a loader, the same for the same (seed, epoch,
/// sample index, node), with any number of workers. Applied plainly
/// ([`apply`](Transform::apply), outside any context), it draws from the
/// generator of seed 0, epoch 0, sample 0.
///
/// ```
/// use adl::Transform;
/// use adl::exec::Sequential;
/// use adl::ndarray::{Array3, array};
/// use adl::transform::{ImageLayout, RandomFlip};
///
/// // [H, W, C] = [1, 3, 2]
/// let image: Array3<u8> = array![[[1, 2], [3, 4], [5, 6]]];
/// let always = RandomFlip::horizontal().probability(1.0);
/// assert_eq!(always.apply(image.clone())?, array![[[5, 6], [3, 4], [1, 2]]]);
///
/// // The same image as [C, H, W] = [2, 1, 3]
/// let planes: Array3<u8> = array![[[1, 3, 5]], [[2, 4, 6]]];
/// let flip = RandomFlip::horizontal().probability(1.0).layout(ImageLayout::Chw);
/// assert_eq!(flip.apply(planes)?, array![[[5, 3, 1]], [[6, 4, 2]]]);
///
/// // A coin per sample: the same for the same (seed, epoch, index).
/// let coin = RandomFlip::horizontal();
/// let at = |index| Sequential::new().seeded(7, 0).at(index);
/// assert_eq!(coin.apply_in(&at(3), image.clone())?, coin.apply_in(&at(3), image)?);
/// # Ok::<(), adl::Error>(())
/// ```
///
/// In a `pipeline!`, the node is its value:
///
/// ```
/// use adl::ndarray::Array3;
/// use adl::transform::RandomFlip;
///
/// let pipe = adl::pipeline! {
///     sample: |x: Array3<u8>| x -> RandomFlip::horizontal(),
///     collate: default,
/// };
/// let batch = adl::pipeline::run(&pipe, vec![Array3::<u8>::zeros((2, 4, 3)); 2])?;
/// assert_eq!(batch.shape(), &[2, 2, 4, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct RandomFlip<T = u8> {
    p: f64,
    layout: ImageLayout,
    element: PhantomData<fn() -> T>,
}

impl<T> Clone for RandomFlip<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RandomFlip<T> {}

impl<T> RandomFlip<T> {
    /// A left-right flip with probability 0.5, of `[H, W, C]` images.
    pub fn horizontal() -> Self {
        RandomFlip {
            p: 0.5,
            layout: ImageLayout::Hwc,
            element: PhantomData,
        }
    }

    /// Flipping with probability `p`, in `[0, 1]` (checked when applied).
    pub fn probability(self, p: f64) -> Self {
        RandomFlip { p, ..self }
    }

    /// For images of `layout`.
    pub fn layout(self, layout: ImageLayout) -> Self {
        RandomFlip { layout, ..self }
    }

    /// The probability of a flip.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// `image` mirrored left to right, in place where it is in standard
    /// layout.
    fn flip(&self, mut image: Array3<T>) -> Array3<T>
    where
        T: Clone,
    {
        let axis = self.layout.width_axis();
        let width = image.len_of(Axis(axis));
        let inner: usize = image.shape()[axis + 1..].iter().product();
        let row = width * inner;
        if row == 0 {
            return image;
        }
        if let Some(values) = image.as_slice_mut() {
            for row in values.chunks_exact_mut(row) {
                row.reverse();
                if inner > 1 {
                    for pixel in row.chunks_exact_mut(inner) {
                        pixel.reverse();
                    }
                }
            }
            return image;
        }
        image.invert_axis(Axis(axis));
        image.as_standard_layout().into_owned()
    }
}

impl<T> Default for RandomFlip<T> {
    fn default() -> Self {
        Self::horizontal()
    }
}

impl<T: Clone> Transform<Array3<T>> for RandomFlip<T> {
    type Output = Array3<T>;

    /// With the generator of seed 0, epoch 0, sample 0.
    fn apply(&self, input: Array3<T>) -> Result<Array3<T>> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: Array3<T>) -> Result<Array3<T>> {
        if !(0.0..=1.0).contains(&self.p) {
            return Err(Error::invalid(
                "random_flip probability",
                format!("{} is not in [0, 1]", self.p),
            ));
        }
        let mut rng = cx.rng(NodeId(0));
        Ok(if rng.chance(self.p) {
            self.flip(input)
        } else {
            input
        })
    }
}

impl<T: 'static> Node for RandomFlip<T> {
    type Input = Array3<T>;
    type Output = Array3<T>;

    fn info(&self) -> NodeInfo {
        NodeInfo::new("random_flip", Stage::Sample)
            .typed::<Array3<T>, Array3<T>>()
            .with_doc(format!(
                "Mirror a {} image left to right with probability {} (built-in).",
                self.layout.describe(),
                self.p
            ))
    }
}

// Not listed among the nodes rustc suggests when a node is misplaced
// (as the closure nodes are not): its help names the user's own nodes.
#[diagnostic::do_not_recommend]
impl<T> SampleNode for RandomFlip<T> {
    type Node = Self;
}
#[diagnostic::do_not_recommend]
impl<T: Clone> Takes<Array3<T>> for RandomFlip<T> {}
