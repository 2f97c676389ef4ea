//! [`ImageLayout`]: the order of an image's axes.

/// The order of the three axes of an RGB image held as an
/// `Array3<u8>`: rows, columns and channels (`[H, W, 3]`, NumPy's and
/// Pillow's, the default) or channels first (`[3, H, W]`, PyTorch's).
///
/// The image sensors of `adl::files` decode into either; the image nodes
/// (`adl::transform::RandomResizedCrop`,
/// `adl::transform::RandomFlip`) are told which they are given.
///
/// ```
/// use adl::transform::ImageLayout;
///
/// assert_eq!(ImageLayout::default(), ImageLayout::Hwc);
/// assert_eq!(ImageLayout::Hwc.shape(24, 32, 3), [24, 32, 3]);
/// assert_eq!(ImageLayout::Chw.shape(24, 32, 3), [3, 24, 32]);
/// assert_eq!(ImageLayout::Chw.height_width(&[3, 24, 32]), Some((24, 32)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ImageLayout {
    /// `[height, width, channels]`: the channels of a pixel side by side.
    #[default]
    Hwc,
    /// `[channels, height, width]`: one plane per channel.
    Chw,
}

impl ImageLayout {
    /// The shape of an image of `height` x `width` pixels of `channels`
    /// channels in this layout.
    pub fn shape(self, height: usize, width: usize, channels: usize) -> [usize; 3] {
        match self {
            ImageLayout::Hwc => [height, width, channels],
            ImageLayout::Chw => [channels, height, width],
        }
    }

    /// The height and width of an image of `shape` in this layout, or
    /// `None` where `shape` has not three axes.
    pub fn height_width(self, shape: &[usize]) -> Option<(usize, usize)> {
        match (self, shape) {
            (ImageLayout::Hwc, &[h, w, _]) | (ImageLayout::Chw, &[_, h, w]) => Some((h, w)),
            _ => None,
        }
    }

    /// The index of the width axis (the one a horizontal flip reverses).
    pub fn width_axis(self) -> usize {
        match self {
            ImageLayout::Hwc => 1,
            ImageLayout::Chw => 2,
        }
    }

    /// The index of the channel axis.
    pub fn channel_axis(self) -> usize {
        match self {
            ImageLayout::Hwc => 2,
            ImageLayout::Chw => 0,
        }
    }

    /// `[H, W, C]` or `[C, H, W]`, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ImageLayout::Hwc => "[H, W, C]",
            ImageLayout::Chw => "[C, H, W]",
        }
    }
}
