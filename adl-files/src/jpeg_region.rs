//! A region of a JPEG decoded by libjpeg-turbo (feature `libjpeg-turbo`),
//! at a decode-time scale: `csrc/jpeg_region.c`, through libjpeg's
//! partial decoding (`jpeg_skip_scanlines`, `jpeg_crop_scanline`).

use std::ffi::{CStr, c_char, c_int, c_uint, c_ulong};

use adl_ops::image::Region;

unsafe extern "C" {
    /// See `csrc/jpeg_region.c`.
    fn adl_jpeg_region(
        data: *const u8,
        len: c_ulong,
        expect_height: c_uint,
        expect_width: c_uint,
        denom: c_uint,
        top: c_uint,
        left: c_uint,
        height: c_uint,
        width: c_uint,
        margin: c_uint,
        out: *mut u8,
        out_len: usize,
        strict: c_int,
        image_height: *mut c_uint,
        image_width: *mut c_uint,
        out_left: *mut c_uint,
        out_width: *mut c_uint,
        message: *mut c_char,
        message_len: usize,
    ) -> c_int;
}

/// libjpeg's longest message (`JMSG_LENGTH_MAX`), with room to spare.
const MESSAGE_LEN: usize = 256;

/// Columns decoded beyond the region on each side, where the image has
/// them: libjpeg's chroma upsampling treats the decoded columns' edges as
/// the image's, which changes the pixel next to each; the margin keeps
/// those out of the region, so that its pixels are the whole decode's.
const MARGIN: usize = 2;

/// The columns decoded past the region at most: [`MARGIN`] on each side,
/// and up to 31 more to the left, where libjpeg starts at an iMCU column's
/// boundary (at most 32 pixels wide), rounded up.
const EXTRA_COLUMNS: usize = 2 * MARGIN + 32;

/// Rows of a JPEG decoded in part: the region's, and the columns around
/// it that libjpeg decoded with it.
pub(crate) struct Decoded {
    /// RGB, `[rows, width, 3]`.
    pub(crate) pixels: Vec<u8>,
    /// The first column decoded (at or left of the region's).
    pub(crate) left: usize,
    /// The columns decoded (the region's among them).
    pub(crate) width: usize,
}

/// The rows of `region` of the JPEG `bytes`, which must be `size`
/// (height, width) pixels large (checked before any pixel memory is
/// taken), decoded at the scale `1 / denom` (1, 2, 4 or 8), the region in
/// the scaled image's pixels (libjpeg's scaled size: `ceil(side /
/// denom)`): its columns and a few around them ([`Decoded`]), written by
/// libjpeg in place. Unscaled, the region's pixels are those of the whole
/// image decoded by libjpeg-turbo. `strict`: a warning of libjpeg's (corrupt
/// data, a truncated scan) is an error, as a fatal one is; the message is
/// libjpeg's.
pub(crate) fn decode_region(
    bytes: &[u8],
    size: (usize, usize),
    denom: usize,
    region: Region,
    strict: bool,
) -> Result<Decoded, String> {
    let int = |v: usize, what: &str| {
        c_uint::try_from(v).map_err(|_| format!("{what} {v} is too large for libjpeg"))
    };
    let len = c_ulong::try_from(bytes.len())
        .map_err(|_| format!("a file of {} bytes is too large", bytes.len()))?;
    let scaled_width = size.1.div_ceil(denom.max(1));
    let out_len = region
        .width
        .saturating_add(EXTRA_COLUMNS)
        .min(scaled_width)
        .checked_mul(region.height)
        .and_then(|n| n.checked_mul(3))
        .ok_or_else(|| format!("{region:?} is too large"))?;
    let mut out = vec![0u8; out_len];
    let (mut image_height, mut image_width): (c_uint, c_uint) = (0, 0);
    let (mut out_left, mut out_width): (c_uint, c_uint) = (0, 0);
    let mut message = [0u8; MESSAGE_LEN];
    // SAFETY: `bytes` and `out` are live slices of the lengths passed;
    // the C function writes at most `out_len` bytes to `out` (it checks
    // the rows it decodes against it), at most `MESSAGE_LEN`
    // (NUL-terminated) to `message`, and one value to each size. It keeps
    // no pointer after it returns, and libjpeg's error exit long-jumps
    // only within C frames.
    let status = unsafe {
        adl_jpeg_region(
            bytes.as_ptr(),
            len,
            int(size.0, "frame height")?,
            int(size.1, "frame width")?,
            int(denom, "the scale")?,
            int(region.top, "the region's top")?,
            int(region.left, "the region's left")?,
            int(region.height, "the region's height")?,
            int(region.width, "the region's width")?,
            int(MARGIN, "the margin")?,
            out.as_mut_ptr(),
            out_len,
            c_int::from(strict),
            &mut image_height,
            &mut image_width,
            &mut out_left,
            &mut out_width,
            message.as_mut_ptr().cast::<c_char>(),
            MESSAGE_LEN,
        )
    };
    match status {
        0 => {
            let (left, width) = (out_left as usize, out_width as usize);
            out.truncate(region.height * width * 3);
            Ok(Decoded {
                pixels: out,
                left,
                width,
            })
        }
        -2 => Err(format!(
            "{region:?} is empty or outside the image ({image_height} x {image_width} pixels at the scale 1/{denom})"
        )),
        -3 => Err(format!(
            "it is {image_height} x {image_width} pixels, not {} x {}",
            size.0, size.1
        )),
        _ => {
            // snprintf ends what it writes with a NUL; `message` was zeroed.
            let reason = CStr::from_bytes_until_nul(&message)
                .map_or_else(|_| "(no message)".into(), CStr::to_string_lossy);
            Err(format!("libjpeg-turbo cannot decode it: {reason}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crop is decoded in part (not refused, which would send it to a
    /// whole decode): its rows, and its columns with those around them.
    #[test]
    fn a_region_is_decoded_with_the_columns_around_it() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/crops");
        for name in ["s420.jpg", "s444.jpg", "gray.jpg", "progressive.jpg"] {
            let bytes = std::fs::read(path.join(name)).unwrap();
            for denom in [1, 2, 4, 8] {
                let region = Region {
                    top: 3,
                    left: 17 / denom,
                    height: 20 / denom,
                    width: 90 / denom,
                };
                let decoded = decode_region(&bytes, (237, 317), denom, region, true)
                    .unwrap_or_else(|e| panic!("{name} at 1/{denom}: {e}"));
                assert!(decoded.left + MARGIN <= region.left, "{name} at 1/{denom}");
                assert!(
                    decoded.left + decoded.width >= region.left + region.width + MARGIN,
                    "{name} at 1/{denom}"
                );
                assert!(
                    decoded.width <= region.width + EXTRA_COLUMNS,
                    "{name} at 1/{denom}"
                );
                assert_eq!(decoded.pixels.len(), region.height * decoded.width * 3);
            }
            // Another size than the frame's is refused before decoding.
            let other = decode_region(&bytes, (240, 320), 1, Region::whole(8, 8), true);
            assert!(other.is_err_and(|e| e.contains("237 x 317")), "{name}");
        }
    }
}
