//! A roverd channel's JPEG frames (an MJPEG video's, a `jpg` blob
//! folder's) decoded by adl's JPEG path: zune-jpeg, or libjpeg-turbo with
//! decode-time downscaling where the feature `libjpeg-turbo` is on.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use adl_core::transform::ImageLayout;

use crate::decode::Decoding;

thread_local! {
    /// The buffer a frame is decoded into before it is downscaled, kept by
    /// each thread.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// How a channel's JPEG frames are decoded: RGB `[H, W, 3]`, shrunk by
/// `factor` (1, 2, 4 or 8; `ceil(side / factor)` pixels a side), strict
/// (a truncated frame is refused).
#[derive(Debug, Clone, Copy)]
pub(crate) struct JpegFrames {
    decoding: Decoding,
    /// Every frame's size in its file, (height, width).
    size: (usize, usize),
}

impl JpegFrames {
    /// Frames of the size the JPEG `first` has, which must be the
    /// channel's declared `shape` (`[H, W, 3]`), shrunk by `factor`.
    pub(crate) fn new(first: &[u8], shape: &[usize], factor: usize) -> Result<JpegFrames, String> {
        if ![1, 2, 4, 8].contains(&factor) {
            return Err(format!(
                "a downscale of {factor}; the factors are 1, 2, 4 and 8"
            ));
        }
        let decoding = Decoding {
            layout: ImageLayout::Hwc,
            factor,
            strict: true,
        };
        let size = decoding.size(first)?;
        if shape != [size.0, size.1, 3] {
            return Err(format!(
                "its first frame is {} x {} pixels (width x height), RGB [{}, {}, 3], but meta.json declares the shape {shape:?}",
                size.1, size.0, size.0, size.1
            ));
        }
        Ok(JpegFrames { decoding, size })
    }

    /// The shape of a decoded frame: `[H, W, 3]` shrunk by the factor.
    pub(crate) fn shape(&self) -> [usize; 3] {
        let factor = self.decoding.factor;
        [
            self.size.0.div_ceil(factor),
            self.size.1.div_ceil(factor),
            3,
        ]
    }

    /// The JPEG `bytes` decoded (`first` names the channel's first frame,
    /// whose size every frame has), a decoder's panic caught.
    pub(crate) fn decode(&self, bytes: &[u8], first: &str) -> Result<Vec<u8>, String> {
        SCRATCH.with_borrow_mut(|scratch| {
            catch_unwind(AssertUnwindSafe(|| {
                self.decoding.decode(bytes, self.size, &first, scratch)
            }))
            .unwrap_or_else(|panic| {
                Err(format!(
                    "the decoder panicked on it: {}",
                    adl_exec::panic_message(panic.as_ref())
                ))
            })
        })
    }
}
