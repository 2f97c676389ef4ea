//! JPEG frames decoded by libjpeg-turbo (feature `libjpeg-turbo`): the
//! system's library, through TurboJPEG, with its decode-time (DCT-domain)
//! scaling.

use std::cell::RefCell;

use turbojpeg::{Decompressor, Image, PixelFormat};

thread_local! {
    /// This thread's decompressor, made on its first frame and kept.
    static DECOMPRESSOR: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
}

/// Decode the JPEG `bytes` into `out` as RGB `[height, width, 3]`, where
/// `(height, width)` is the frame's size scaled by libjpeg-turbo's
/// decode-time scaling (`ceil(side / factor)` for a factor of 1, 2, 4 or
/// 8; `out` holds exactly `height * width * 3` values). libjpeg-turbo's
/// defaults, as Pillow's: the accurate integer IDCT and "fancy"
/// (triangular) chroma upsampling. A warning (a truncated file, corrupt
/// entropy data) is an error here, as an error is: the message says which.
pub(crate) fn decode_rgb(
    bytes: &[u8],
    (height, width): (usize, usize),
    out: &mut [u8],
) -> Result<(), String> {
    if out.len() != height * width * 3 {
        return Err(format!(
            "{} bytes for a frame of {height} x {width} RGB pixels",
            out.len()
        ));
    }
    DECOMPRESSOR.with_borrow_mut(|kept| {
        let decompressor = match kept {
            Some(decompressor) => decompressor,
            None => kept.insert(
                Decompressor::new()
                    .map_err(|e| format!("libjpeg-turbo cannot make a decompressor: {e}"))?,
            ),
        };
        let image = Image {
            pixels: out,
            width,
            pitch: width * 3,
            height,
            format: PixelFormat::RGB,
        };
        decompressor
            .decompress(bytes, image)
            .map_err(|e| format!("libjpeg-turbo cannot decode it: {e}"))
    })
}
