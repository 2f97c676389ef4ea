//! A decoded picture to RGB, by FFmpeg's libswscale, straight into the
//! array it becomes (a sample's, or a batch's row): the YUV to RGB matrix
//! and the range the stream says (BT.601, BT.709, BT.2020; limited or
//! full), the file's `colr` box where the bitstream says nothing, BT.601
//! limited where neither does (FFmpeg's default, what PyAV and torchcodec
//! give); resized in the same pass where a size is asked for.

use std::cell::RefCell;

use adl_core::transform::ImageLayout;
use ff::ffi;
use ffmpeg_next as ff;

use super::mp4::Colour;

/// What a frame becomes: its size and layout, RGB `u8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Output {
    /// Rows of the output.
    pub(crate) height: usize,
    /// Columns of the output.
    pub(crate) width: usize,
    /// `[H, W, 3]` or `[3, H, W]`.
    pub(crate) layout: ImageLayout,
}

impl Output {
    /// The number of bytes of one frame.
    pub(crate) fn len(&self) -> usize {
        self.height * self.width * 3
    }

    /// The shape of one frame.
    pub(crate) fn shape(&self) -> [usize; 3] {
        self.layout.shape(self.height, self.width, 3)
    }
}

/// A thread's scaler (libswscale's context, made again only when the
/// sizes or formats change) and the buffer a frame is converted into where
/// it cannot be written in place.
struct Scaler {
    context: *mut ffi::SwsContext,
    /// What the context was last asked for: its sizes, formats and flags,
    /// then the colour details set on it (matrix, full range). The
    /// details are set again whenever the rest changes (the context may
    /// then be a new one at the same address).
    made_for: Option<(Conversion, (i32, bool))>,
    scratch: Vec<u8>,
}

/// The sizes, formats and flags a scaler context is made for.
type Conversion = (i32, i32, ffi::AVPixelFormat, i32, i32, i32);

impl Drop for Scaler {
    fn drop(&mut self) {
        // SAFETY: the context is null or one sws_getCachedContext made,
        // owned by this scaler alone and not used after this.
        unsafe { ffi::sws_freeContext(self.context) }
    }
}

thread_local! {
    static SCALER: RefCell<Scaler> = const { RefCell::new(Scaler {
        context: std::ptr::null_mut(),
        made_for: None,
        scratch: Vec::new(),
    }) };
}

/// The rows of an RGB24 picture are written in blocks of 8 pixels by some
/// of libswscale's SIMD converters: a width that is a multiple of 16 is
/// written exactly, in place; another goes through a buffer with room.
const IN_PLACE_WIDTHS: usize = 16;

/// Convert `frame` to RGB into `out` (exactly `output.len()` bytes), as
/// `output` says; `fallback` is the file's colour description, for a
/// stream that gives none.
pub(crate) fn convert(
    frame: &ff::frame::Video,
    fallback: Option<Colour>,
    output: Output,
    out: &mut [u8],
) -> Result<(), String> {
    if out.len() != output.len() {
        return Err(format!(
            "a frame of {} bytes for an output of {}",
            out.len(),
            output.len()
        ));
    }
    let (matrix, full_range) = colour_of(frame, fallback);
    SCALER.with_borrow_mut(|scaler| {
        let direct =
            output.layout == ImageLayout::Hwc && output.width.is_multiple_of(IN_PLACE_WIDTHS);
        if direct {
            return scale(scaler, frame, matrix, full_range, output, Target::Out(out));
        }
        // With room for a whole 8-pixel block past each row.
        let stride = (output.width + IN_PLACE_WIDTHS) * 3;
        let need = stride * output.height;
        let mut scratch = std::mem::take(&mut scaler.scratch);
        scratch.resize(need, 0);
        let result = scale(
            scaler,
            frame,
            matrix,
            full_range,
            output,
            Target::Scratch(&mut scratch, stride),
        );
        if result.is_ok() {
            let row = output.width * 3;
            match output.layout {
                ImageLayout::Hwc => {
                    for (y, dst) in out.chunks_exact_mut(row).enumerate() {
                        dst.copy_from_slice(&scratch[y * stride..y * stride + row]);
                    }
                }
                ImageLayout::Chw => {
                    let plane = output.height * output.width;
                    for y in 0..output.height {
                        let src = &scratch[y * stride..y * stride + row];
                        for (x, rgb) in src.chunks_exact(3).enumerate() {
                            let at = y * output.width + x;
                            out[at] = rgb[0];
                            out[plane + at] = rgb[1];
                            out[2 * plane + at] = rgb[2];
                        }
                    }
                }
            }
        }
        scaler.scratch = scratch;
        result
    })
}

/// Where libswscale writes: the output itself (rows of exactly its
/// width), or a buffer with rows of `stride` bytes.
enum Target<'a> {
    Out(&'a mut [u8]),
    Scratch(&'a mut [u8], usize),
}

/// The matrix coefficients and range of `frame`: its own, else the file's,
/// else BT.601 limited.
fn colour_of(frame: &ff::frame::Video, fallback: Option<Colour>) -> (i32, bool) {
    // SAFETY: `frame` is a live frame; its fields are only read.
    let (space, range, format) = unsafe {
        let f = frame.as_ptr();
        ((*f).colorspace as i32, (*f).color_range as i32, (*f).format)
    };
    let unspecified = ffi::AVColorSpace::AVCOL_SPC_UNSPECIFIED as i32;
    let matrix = match (space, fallback) {
        (space, _) if space != unspecified && space != ffi::AVColorSpace::AVCOL_SPC_RGB as i32 => {
            space
        }
        (_, Some(colour)) if i32::from(colour.matrix) != unspecified => i32::from(colour.matrix),
        _ => ffi::SWS_CS_DEFAULT,
    };
    // The JPEG pixel formats (yuvj420p...) are full range whatever the
    // frame says.
    let jpeg_format = [
        ffi::AVPixelFormat::AV_PIX_FMT_YUVJ420P as i32,
        ffi::AVPixelFormat::AV_PIX_FMT_YUVJ422P as i32,
        ffi::AVPixelFormat::AV_PIX_FMT_YUVJ444P as i32,
    ]
    .contains(&format);
    let full_range = match range {
        r if r == ffi::AVColorRange::AVCOL_RANGE_JPEG as i32 => true,
        r if r == ffi::AVColorRange::AVCOL_RANGE_MPEG as i32 => jpeg_format,
        _ => jpeg_format || fallback.is_some_and(|c| c.full_range),
    };
    (matrix, full_range)
}

/// Run libswscale on `frame` into `target`.
fn scale(
    scaler: &mut Scaler,
    frame: &ff::frame::Video,
    matrix: i32,
    full_range: bool,
    output: Output,
    target: Target<'_>,
) -> Result<(), String> {
    let (width, height) = (output.width as i32, output.height as i32);
    // SAFETY: `frame` is a live decoded frame whose planes and strides
    // FFmpeg set for its format, width and height, which are what the
    // context is made for; the destination is one plane of `height` rows
    // of `stride` bytes, each with room for `width` RGB24 pixels (and, in
    // the scratch buffer, a block of 8 more), checked above by its length;
    // the context is this thread's own.
    unsafe {
        let f = frame.as_ptr();
        let (src_w, src_h) = ((*f).width, (*f).height);
        if src_w <= 0 || src_h <= 0 {
            return Err(format!("the decoder gave a picture of {src_w} x {src_h}"));
        }
        // Same size: bilinear (the chroma's upsampling, as PyAV and
        // torchcodec convert); smaller: the mean of each area.
        let flags = if width < src_w || height < src_h {
            ffi::SWS_AREA
        } else {
            ffi::SWS_BILINEAR
        };
        // The JPEG formats as what they are (their range is in
        // `full_range`): libswscale warns of them, and a context made for
        // one is made again at each use.
        let format = match frame.format().into() {
            ffi::AVPixelFormat::AV_PIX_FMT_YUVJ420P => ffi::AVPixelFormat::AV_PIX_FMT_YUV420P,
            ffi::AVPixelFormat::AV_PIX_FMT_YUVJ422P => ffi::AVPixelFormat::AV_PIX_FMT_YUV422P,
            ffi::AVPixelFormat::AV_PIX_FMT_YUVJ444P => ffi::AVPixelFormat::AV_PIX_FMT_YUV444P,
            format => format,
        };
        let conversion: Conversion = (src_w, src_h, format, width, height, flags);
        let context = ffi::sws_getCachedContext(
            scaler.context,
            src_w,
            src_h,
            format,
            width,
            height,
            ffi::AVPixelFormat::AV_PIX_FMT_RGB24,
            flags,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null(),
        );
        if context.is_null() {
            scaler.context = std::ptr::null_mut();
            scaler.made_for = None;
            return Err(format!(
                "libswscale cannot convert its pictures ({:?}, {src_w} x {src_h}) to RGB",
                format
            ));
        }
        scaler.context = context;
        if scaler.made_for != Some((conversion, (matrix, full_range))) {
            let table = ffi::sws_getCoefficients(matrix);
            let default = ffi::sws_getCoefficients(ffi::SWS_CS_DEFAULT);
            ffi::sws_setColorspaceDetails(
                context,
                table,
                i32::from(full_range),
                default,
                1,
                0,
                1 << 16,
                1 << 16,
            );
            scaler.made_for = Some((conversion, (matrix, full_range)));
        }
        let (pointer, stride) = match target {
            Target::Out(out) => (out.as_mut_ptr(), width * 3),
            Target::Scratch(scratch, stride) => (scratch.as_mut_ptr(), stride as i32),
        };
        let dst = [
            pointer,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ];
        let dst_stride = [stride, 0, 0, 0];
        let rows = ffi::sws_scale(
            context,
            (*f).data.as_ptr().cast(),
            (*f).linesize.as_ptr(),
            0,
            src_h,
            dst.as_ptr(),
            dst_stride.as_ptr(),
        );
        if rows != height {
            return Err(format!("libswscale wrote {rows} of {height} rows"));
        }
    }
    Ok(())
}
