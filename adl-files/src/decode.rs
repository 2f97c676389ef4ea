//! JPEG and PNG files decoded in Rust (zune-jpeg, zune-png), or JPEGs by
//! libjpeg-turbo (feature `libjpeg-turbo`), into the buffer that becomes
//! a sample.

use adl_core::transform::ImageLayout;
use zune_jpeg::JpegDecoder;
use zune_jpeg::zune_core::bytestream::ZCursor;
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;
use zune_png::PngDecoder;

use crate::pixels::to_sample;

/// The image formats a frame may be in, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Jpeg,
    Png,
}

/// The largest side a frame may have: the decoders' limits, 16 384 pixels
/// (a side past it is refused before any pixel memory is taken).
const MAX_SIDE: usize = 16_384;

/// How frames are decoded: the settings of an `Images` sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decoding {
    pub(crate) layout: ImageLayout,
    /// 1, 2, 4 or 8.
    pub(crate) factor: usize,
    /// Refuse what the decoders would otherwise decode with a warning
    /// (a truncated JPEG, junk between markers).
    pub(crate) strict: bool,
}

/// The format of the file whose bytes are `bytes`, from its signature.
pub(crate) fn sniff(bytes: &[u8]) -> Result<Format, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(Format::Jpeg);
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(Format::Png);
    }
    let start: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(format!(
        "neither a JPEG nor a PNG file (it starts with bytes {}; a JPEG starts with ff d8 ff, a PNG with 89 50 4e 47)",
        start.join(" ")
    ))
}

impl Decoding {
    fn options(&self) -> DecoderOptions {
        DecoderOptions::default()
            .jpeg_set_out_colorspace(ColorSpace::RGB)
            .png_set_strip_to_8bit(true)
            .set_strict_mode(self.strict)
            .set_max_width(MAX_SIDE)
            .set_max_height(MAX_SIDE)
    }

    /// The size (height, width) of the image in `bytes`, from its header
    /// (read leniently).
    pub(crate) fn size(&self, bytes: &[u8]) -> Result<(usize, usize), String> {
        // Lenient: a header the strict decoder refuses is reported when
        // the frame is read (unless the sensor is made lenient).
        let options = self.options().set_strict_mode(false);
        let (width, height) = match sniff(bytes)? {
            Format::Jpeg => {
                let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
                decoder.decode_headers().map_err(|e| jpeg_error(&e))?;
                decoder.dimensions()
            }
            Format::Png => {
                let mut decoder = PngDecoder::new_with_options(ZCursor::new(bytes), options);
                decoder.decode_headers().map_err(|e| png_error(&e))?;
                decoder.dimensions()
            }
        }
        .ok_or("the decoder read the header but gives no size")?;
        Ok((height, width))
    }

    /// The pixels of the image in `bytes`, which must be `size` (height,
    /// width) pixels large, as a sample's values (`[H, W, 3]` or `[3, H,
    /// W]` at `size` shrunk by the factor). Decoded straight into the
    /// returned buffer where it is the decoder's output as it is (RGB,
    /// `[H, W, 3]`, no downscale), else into `scratch` and from there to
    /// the returned buffer in one pass.
    pub(crate) fn decode(
        &self,
        bytes: &[u8],
        size: (usize, usize),
        first: &dyn std::fmt::Display,
        scratch: &mut Vec<u8>,
    ) -> Result<Vec<u8>, String> {
        let direct = self.layout == ImageLayout::Hwc && self.factor == 1;
        match sniff(bytes)? {
            Format::Jpeg => {
                let mut decoder =
                    JpegDecoder::new_with_options(ZCursor::new(bytes), self.options());
                decoder.decode_headers().map_err(|e| jpeg_error(&e))?;
                let (width, height) = decoder.dimensions().ok_or("no size after the header")?;
                same_size((height, width), size, first)?;
                let layout = Layout::of(bytes);
                if self.strict && !layout.end_of_image {
                    return Err(
                        "truncated: its last scan ends without the end-of-image marker (ff d9)"
                            .into(),
                    );
                }
                if let Some(at) = layout.second_frame {
                    return Err(format!(
                        "cannot decode it as a JPEG: a second frame starts at byte {at} (a JPEG file holds one)"
                    ));
                }
                let len = decoder
                    .output_buffer_size()
                    .ok_or("no size after the header")?;
                let channels = decoder
                    .output_colorspace()
                    .map_or(0, |c| c.num_components());
                if channels != 3 || len != height * width * 3 {
                    return Err(format!(
                        "the decoder gives {channels} channels ({len} bytes) for RGB"
                    ));
                }
                // Which decoder: libjpeg-turbo where the build has it,
                // unless ADL_JPEG_DECODER says zune-jpeg (or holds a value
                // it does not take: this frame's error names it).
                let turbo = crate::jpeg_decoder::chosen()?;
                #[cfg(feature = "libjpeg-turbo")]
                if turbo
                    && let Some(values) = self.by_libjpeg_turbo(bytes, (height, width), scratch)
                {
                    return Ok(values);
                }
                #[cfg(not(feature = "libjpeg-turbo"))]
                let _ = turbo;
                if !layout.scan {
                    return Err(
                        "cannot decode it as a JPEG: no scan follows its header's segments as their lengths lay them out (a damaged segment length)"
                            .into(),
                    );
                }
                if let Some((id, h, v, h0, v0)) = layout.fine_chroma_in_parts {
                    return Err(format!(
                        "cannot decode it as a JPEG: its component {id} is sampled {h}x{v}, more finely than its first ({h0}x{v0}), in scans of one component at a time, which the Rust JPEG decoder (zune-jpeg) does not decode (libjpeg-turbo, adl's feature `libjpeg-turbo`, does)"
                    ));
                }
                if direct {
                    let mut out = vec![0u8; len];
                    decoder.decode_into(&mut out).map_err(|e| jpeg_error(&e))?;
                    return Ok(out);
                }
                sized(scratch, len);
                decoder.decode_into(scratch).map_err(|e| jpeg_error(&e))?;
                Ok(to_sample(
                    scratch,
                    height,
                    width,
                    3,
                    self.factor,
                    self.layout,
                ))
            }
            Format::Png => {
                let mut decoder = PngDecoder::new_with_options(ZCursor::new(bytes), self.options());
                decoder.decode_headers().map_err(|e| png_error(&e))?;
                let (width, height) = decoder.dimensions().ok_or("no size after the header")?;
                same_size((height, width), size, first)?;
                let channels = decoder.colorspace().map_or(0, |c| c.num_components());
                let len = decoder
                    .output_buffer_size()
                    .ok_or("no size after the header")?;
                if !(1..=4).contains(&channels) || len != height * width * channels {
                    return Err(format!(
                        "the decoder gives {channels} channels ({len} bytes); 1 to 4 of 8 bits are read"
                    ));
                }
                if direct && channels == 3 {
                    let mut out = vec![0u8; len];
                    decoder.decode_into(&mut out).map_err(|e| png_error(&e))?;
                    return Ok(out);
                }
                sized(scratch, len);
                decoder.decode_into(scratch).map_err(|e| png_error(&e))?;
                Ok(to_sample(
                    scratch,
                    height,
                    width,
                    channels,
                    self.factor,
                    self.layout,
                ))
            }
        }
    }
}

impl Decoding {
    /// [`decode`](Decoding::decode), a decoder's panic caught as the
    /// reason the frame does not decode.
    pub(crate) fn decode_caught(
        &self,
        bytes: &[u8],
        size: (usize, usize),
        first: &dyn std::fmt::Display,
        scratch: &mut Vec<u8>,
    ) -> Result<Vec<u8>, String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.decode(bytes, size, first, scratch)
        }))
        .unwrap_or_else(|panic| {
            Err(format!(
                "the decoder panicked on it: {}",
                adl_exec::panic_message(panic.as_ref())
            ))
        })
    }

    /// The values of the JPEG `bytes` (`size` pixels) decoded by
    /// libjpeg-turbo, scaled by the factor at decode time, straight into
    /// the sample's buffer in `[H, W, 3]` (through `scratch` for `[3, H,
    /// W]`). `None` where libjpeg-turbo fails or warns (a CMYK frame, a
    /// corrupt one): zune-jpeg then decodes it, and its verdict stands, so
    /// that the frames a sensor accepts and its errors are the same with
    /// and without libjpeg-turbo, but for the valid frames zune-jpeg cannot
    /// decode (chroma sampled more finely than luma, in scans of one
    /// component: [`Layout::fine_chroma_in_parts`]), which libjpeg-turbo
    /// decodes.
    #[cfg(feature = "libjpeg-turbo")]
    fn by_libjpeg_turbo(
        &self,
        bytes: &[u8],
        (height, width): (usize, usize),
        scratch: &mut Vec<u8>,
    ) -> Option<Vec<u8>> {
        let scaled = (height.div_ceil(self.factor), width.div_ceil(self.factor));
        let len = scaled.0 * scaled.1 * 3;
        if self.layout == ImageLayout::Hwc {
            let mut out = vec![0u8; len];
            crate::libjpeg_turbo::decode_rgb(bytes, scaled, &mut out).ok()?;
            return Some(out);
        }
        sized(scratch, len);
        crate::libjpeg_turbo::decode_rgb(bytes, scaled, scratch).ok()?;
        Some(to_sample(scratch, scaled.0, scaled.1, 3, 1, self.layout))
    }
}

/// Whether the JPEG `bytes` may be decoded in part (a region of it, by
/// libjpeg-turbo): a JPEG whose markers a whole decode would not refuse
/// (strict: one that reaches its end-of-image marker; either way, one of
/// one frame), where libjpeg-turbo decodes JPEG in this process
/// ([`crate::libjpeg_turbo_decodes`]). The rest go to a whole decode,
/// whose verdict stands.
#[cfg(feature = "libjpeg-turbo")]
pub(crate) fn decodes_in_part(bytes: &[u8], strict: bool) -> bool {
    if !crate::libjpeg_turbo_decodes() || sniff(bytes) != Ok(Format::Jpeg) {
        return false;
    }
    let layout = Layout::of(bytes);
    (layout.end_of_image || !strict) && layout.second_frame.is_none() && layout.scan
}

/// `scratch` as `len` zeroed bytes, its capacity grown to exactly that
/// where it must grow: a decoder's scratch buffer lives as long as its
/// thread, and `resize`'s doubling would leave one that once held a
/// 16 384-pixel-wide frame (768 MiB) at 1.5 GiB (the images fuzzer's
/// find: an allocation over its 1 GiB limit, after a run of large frames).
fn sized(scratch: &mut Vec<u8>, len: usize) {
    scratch.clear();
    scratch.reserve_exact(len);
    scratch.resize(len, 0);
}

/// A frame component's sampling: its id, and its horizontal and vertical
/// factors.
type Sampling = (u8, u8, u8);

/// What a walk over a JPEG's markers ([`markers`]) tells, in one pass.
struct Layout {
    /// Whether it reaches its end-of-image marker. zune-jpeg, strict,
    /// refuses a file cut before its last row of blocks, but fills in one
    /// cut within it; a strict sensor refuses both. Bytes after the marker
    /// (a trailer some cameras append) are not read.
    end_of_image: bool,
    /// The offset of a second start-of-frame marker, if it has one. A JPEG
    /// file holds one frame, and libjpeg refuses a second ("two SOF
    /// markers"); zune-jpeg reads on, and a scan of one frame decoded into
    /// the buffers of another panicked in its IDCT (the fuzzer's find:
    /// caught, but a build with `panic = "abort"` cannot catch it).
    second_frame: Option<usize>,
    /// A component sampled more finely than the first, `(id, h, v, h0,
    /// v0)`, where the frame's scans take one component at a time
    /// (progressive, or a scan of fewer components than the frame).
    /// zune-jpeg 0.5 fails on those (valid ones, as cjpeg writes them, with
    /// "would panic on slice iteration") or panics in its upsampler (the
    /// fuzzer's find on a damaged one); libjpeg-turbo decodes them.
    fine_chroma_in_parts: Option<(u8, u8, u8, u8, u8)>,
    /// Whether a scan follows the header's segments as their lengths lay
    /// them out. In every valid file one does. zune-jpeg reads some
    /// segments by what they hold, not by their length, and so reads a
    /// file whose lengths are damaged otherwise than this walk (a table's
    /// length past its scan): on such a file the checks above do not see
    /// the frame and scans zune-jpeg would decode, so it is refused.
    scan: bool,
}

impl Layout {
    fn of(bytes: &[u8]) -> Self {
        let mut layout = Layout {
            end_of_image: false,
            second_frame: None,
            fine_chroma_in_parts: None,
            scan: false,
        };
        // The first frame: progressive or not, its components' sampling
        // (id, horizontal, vertical).
        let mut frame: Option<(bool, Vec<Sampling>)> = None;
        let mut partial_scan = false;
        for (marker, at, segment) in markers(bytes) {
            match marker {
                0xD9 => layout.end_of_image = true,
                // Start of frame: all of 0xC0-0xCF but DHT, JPG and DAC.
                0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                    if frame.is_some() {
                        layout.second_frame.get_or_insert(at);
                        continue;
                    }
                    // Precision, height, width, the number of components,
                    // then (id, sampling HV, table) for each.
                    let count = segment.get(5).map_or(0, |&n| usize::from(n));
                    let components = (0..count)
                        .map_while(|k| segment.get(6 + 3 * k..8 + 3 * k))
                        .map(|c| (c[0], c[1] >> 4, c[1] & 0x0F))
                        .collect();
                    let progressive = matches!(marker, 0xC2 | 0xC6 | 0xCA | 0xCE);
                    frame = Some((progressive, components));
                }
                // A scan: how many components it takes.
                0xDA => {
                    layout.scan = true;
                    let taken = segment.first().map_or(0, |&n| usize::from(n));
                    let all = frame.as_ref().map_or(0, |(_, c)| c.len());
                    partial_scan |= taken < all;
                }
                _ => {}
            }
        }
        if let Some((progressive, components)) = frame
            && (progressive || partial_scan)
            && let Some(&(_, h0, v0)) = components.first()
        {
            layout.fine_chroma_in_parts = components
                .iter()
                .skip(1)
                .find(|&&(_, h, v)| h > h0 || v > v0)
                .map(|&(id, h, v)| (id, h, v, h0, v0));
        }
        layout
    }
}

/// The markers of the JPEG `bytes` after its start-of-image marker, each
/// with its offset and its segment (what follows its length, as much of it
/// as there is; empty for a marker without one), in order: marker segments followed by their lengths,
/// each scan's entropy-coded data to the next marker (a `0xFF` not
/// followed by a stuffed `0x00` or a restart marker). It ends with the
/// end-of-image marker (`ff d9`), or where the bytes end.
fn markers(bytes: &[u8]) -> impl Iterator<Item = (u8, usize, &[u8])> + '_ {
    let mut at = 2; // after the start-of-image marker
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let found = next_marker(bytes, &mut at);
        done = found.is_none_or(|(marker, _, _)| marker == 0xD9);
        found
    })
}

/// The marker at or after `at`, with its offset and segment; `at` moves
/// past it and past its segment (and a scan's data).
fn next_marker<'a>(bytes: &'a [u8], at: &mut usize) -> Option<(u8, usize, &'a [u8])> {
    // The next marker, past any fill bytes.
    *at += memchr::memchr(0xFF, bytes.get(*at..)?)?;
    while bytes.get(*at + 1) == Some(&0xFF) {
        *at += 1;
    }
    let offset = *at;
    let marker = *bytes.get(*at + 1)?;
    *at += 2;
    let mut segment: &[u8] = &[];
    match marker {
        // Standalone markers: restarts, TEM; the end.
        0xD0..=0xD7 | 0x01 | 0xD9 => {}
        _ => {
            let &[high, low] = bytes.get(*at..*at + 2)? else {
                return None;
            };
            let len = usize::from(u16::from_be_bytes([high, low]));
            segment = bytes.get(*at + 2..*at + len.max(2)).unwrap_or_default();
            *at += len;
            if marker == 0xDA {
                // A scan's entropy-coded data: to the next real marker, or
                // to the end of the bytes (the scan is there all the same).
                loop {
                    let Some(ff) = bytes.get(*at..).and_then(|rest| memchr::memchr(0xFF, rest))
                    else {
                        *at = bytes.len();
                        break;
                    };
                    *at += ff;
                    match bytes.get(*at + 1) {
                        Some(0x00 | 0xD0..=0xD7) => *at += 2,
                        Some(_) => break,
                        None => {
                            *at = bytes.len();
                            break;
                        }
                    }
                }
            }
        }
    }
    Some((marker, offset, segment))
}

/// `found` (height, width) is the sensor's `size` (that of its frame
/// `first`), else the error that names both.
fn same_size(
    found: (usize, usize),
    size: (usize, usize),
    first: &dyn std::fmt::Display,
) -> Result<(), String> {
    if found == size {
        return Ok(());
    }
    Err(format!(
        "is {} x {} pixels (width x height), but the sensor's first frame, {}, is {} x {}: the frames of a sensor share one size",
        found.1, found.0, first, size.1, size.0
    ))
}

/// A zune decoder's message, without the quotes its `Display` adds.
fn words(message: String) -> String {
    message.trim_matches('"').to_string()
}

fn jpeg_error(error: &zune_jpeg::errors::DecodeErrors) -> String {
    format!("cannot decode it as a JPEG: {}", words(error.to_string()))
}

fn png_error(error: &zune_png::error::PngDecodeErrors) -> String {
    format!("cannot decode it as a PNG: {}", words(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: &[u8] = include_bytes!("../tests/data/camera/frame_1.jpg");

    /// Where the segment of `marker` starts in `FRAME`, and its length.
    fn segment(marker: u8) -> (usize, usize) {
        let (_, at, segment) = markers(FRAME).find(|&(m, _, _)| m == marker).unwrap();
        (at, 4 + segment.len())
    }

    #[test]
    fn a_scratch_buffer_grows_to_what_a_frame_needs_not_double() {
        let mut scratch = vec![7u8; 1000];
        sized(&mut scratch, 1500);
        assert_eq!((scratch.len(), scratch.capacity()), (1500, 1500));
        assert!(scratch.iter().all(|&b| b == 0));
        sized(&mut scratch, 10);
        assert_eq!((scratch.len(), scratch.capacity()), (10, 1500));
    }

    #[test]
    fn a_walk_over_the_markers_finds_the_end_and_a_second_frame() {
        let whole = Layout::of(FRAME);
        assert!(whole.end_of_image && whole.second_frame.is_none());
        // Cut inside the last scan: no end.
        let cut = Layout::of(&FRAME[..FRAME.len() - 40]);
        assert!(!cut.end_of_image && cut.second_frame.is_none());
        // The frame's header once more before the end: a second frame.
        let (at, len) = segment(0xC0);
        let mut two = FRAME[..FRAME.len() - 2].to_vec();
        let second = two.len();
        two.extend_from_slice(&FRAME[at..at + len]);
        two.extend_from_slice(&[0xFF, 0xD9]);
        let layout = Layout::of(&two);
        assert_eq!(layout.second_frame, Some(second));
        assert!(layout.end_of_image);
        // A scan cut short (no end, no marker after its data) is a scan.
        assert!(cut.scan);
        // A table's length past the scan: no scan as the lengths lay out.
        let (at, _) = segment(0xC4);
        let mut long = FRAME.to_vec();
        long[at + 2..at + 4].copy_from_slice(&0xFFF0u16.to_be_bytes());
        assert!(!Layout::of(&long).scan);
        // After the end, a trailer (another file appended) is not read.
        let mut trailer = FRAME.to_vec();
        trailer.extend_from_slice(FRAME);
        assert!(Layout::of(&trailer).second_frame.is_none());
    }
}
