//! Camera messages as `[H, W, C]` arrays: `sensor_msgs/Image` by its
//! encoding, `sensor_msgs/CompressedImage` decoded by adl's JPEG and PNG
//! decoders.

use adl_core::transform::ImageLayout;
use adl_core::{Error, Result};
use ndarray::Array3;

use super::View;
use crate::decode::Decoding;
use crate::ros::{Message, Numbers};

/// What an `Image`'s encoding says: channels, bytes per channel, and
/// whether the first and third channels are stored swapped (BGR).
fn encoding(name: &str) -> Option<(usize, usize, bool)> {
    Some(match name {
        "rgb8" => (3, 1, false),
        "bgr8" => (3, 1, true),
        "rgba8" => (4, 1, false),
        "bgra8" => (4, 1, true),
        "mono8" | "8UC1" => (1, 1, false),
        "8UC2" => (2, 1, false),
        "8UC3" => (3, 1, false),
        "8UC4" => (4, 1, false),
        "mono16" | "16UC1" => (1, 2, false),
        "16UC2" => (2, 2, false),
        "16UC3" => (3, 2, false),
        "16UC4" => (4, 2, false),
        "32FC1" => (1, 4, false),
        "32FC2" => (2, 4, false),
        "32FC3" => (3, 4, false),
        "32FC4" => (4, 4, false),
        _ => return None,
    })
}

/// An `Image`'s pixel bytes, row padding (`step`) removed: its size,
/// channels, bytes per channel, byte order and whether it is BGR.
struct Raw<'a> {
    height: usize,
    width: usize,
    channels: usize,
    depth: usize,
    big_endian: bool,
    swapped: bool,
    data: &'a [u8],
    step: usize,
}

fn raw(message: &Message, depth_wanted: usize) -> Result<Raw<'_>> {
    let height = message.number("height")? as usize;
    let width = message.number("width")? as usize;
    let step = message.number("step")? as usize;
    let name = message.string("encoding")?;
    let (channels, depth, swapped) = encoding(name).ok_or_else(|| {
        Error::invalid(
            "image encoding",
            format!("`{name}` is not one adl reads (rgb8, bgr8, rgba8, bgra8, mono8, mono16, 8UCn, 16UCn, 32FCn)"),
        )
    })?;
    if depth != depth_wanted {
        return Err(Error::invalid(
            "image encoding",
            format!(
                "`{name}` has {} bits a channel: read it as an `Array3<{}>`",
                depth * 8,
                match depth {
                    1 => "u8",
                    2 => "u16",
                    _ => "f32",
                }
            ),
        ));
    }
    let Numbers::U8(data) = message.numbers("data")? else {
        return Err(Error::invalid("image data", "it is not a uint8[]"));
    };
    // The rows must fit the data, checked without overflow before any
    // pixel is read or allocated (a damaged size asks for no memory).
    let row = width.checked_mul(channels * depth);
    let needed = row.and_then(|row| {
        let before_last = step.checked_mul(height.saturating_sub(1))?;
        before_last.checked_add(if height > 0 { row } else { 0 })
    });
    let fits =
        matches!((row, needed), (Some(row), Some(needed)) if step >= row && needed <= data.len());
    if !fits {
        return Err(Error::invalid(
            "image",
            format!(
                "{width} x {height} {name} pixels in rows {step} bytes apart do not fit its {} bytes",
                data.len()
            ),
        ));
    }
    Ok(Raw {
        height,
        width,
        channels,
        depth,
        big_endian: message.number("is_bigendian")? != 0.0,
        swapped,
        data,
        step,
    })
}

impl Raw<'_> {
    /// The pixels, each channel from its bytes.
    fn pixels<T>(&self, value: impl Fn(&[u8], bool) -> T) -> Result<Array3<T>> {
        let row = self.width * self.channels * self.depth;
        let mut out = Vec::with_capacity(self.height * self.width * self.channels);
        for r in 0..self.height {
            let row = &self.data[r * self.step..r * self.step + row];
            for pixel in row.chunks_exact(self.channels * self.depth) {
                let channel = |c: usize| {
                    value(
                        &pixel[c * self.depth..(c + 1) * self.depth],
                        self.big_endian,
                    )
                };
                for c in 0..self.channels {
                    // BGR(A) to RGB(A): the first and third swap.
                    let from = match (self.swapped, c) {
                        (true, 0) => 2,
                        (true, 2) => 0,
                        _ => c,
                    };
                    out.push(channel(from));
                }
            }
        }
        Array3::from_shape_vec((self.height, self.width, self.channels), out)
            .map_err(|e| Error::internal("image view", e))
    }
}

impl View for Array3<u8> {
    const TYPES: &'static [&'static str] = &["sensor_msgs/Image", "sensor_msgs/CompressedImage"];

    /// `[H, W, C]`: an 8-bit `Image` (BGR reordered to RGB), or a
    /// `CompressedImage` decoded to RGB.
    fn from_message(message: &Message) -> Result<Array3<u8>> {
        if message.type_name() == "sensor_msgs/CompressedImage" {
            return compressed(message);
        }
        raw(message, 1)?.pixels(|b, _| b[0])
    }
}

impl View for Array3<u16> {
    const TYPES: &'static [&'static str] = &["sensor_msgs/Image"];

    /// `[H, W, C]` of a 16-bit `Image` (mono16, 16UCn).
    fn from_message(message: &Message) -> Result<Array3<u16>> {
        raw(message, 2)?.pixels(|b, big| {
            let b = [b[0], b[1]];
            if big {
                u16::from_be_bytes(b)
            } else {
                u16::from_le_bytes(b)
            }
        })
    }
}

impl View for Array3<f32> {
    const TYPES: &'static [&'static str] = &["sensor_msgs/Image"];

    /// `[H, W, C]` of a float `Image` (32FCn: depth).
    fn from_message(message: &Message) -> Result<Array3<f32>> {
        raw(message, 4)?.pixels(|b, big| {
            let b = [b[0], b[1], b[2], b[3]];
            if big {
                f32::from_be_bytes(b)
            } else {
                f32::from_le_bytes(b)
            }
        })
    }
}

/// A `CompressedImage`'s JPEG or PNG, decoded to `[H, W, 3]` RGB.
fn compressed(message: &Message) -> Result<Array3<u8>> {
    let Numbers::U8(data) = message.numbers("data")? else {
        return Err(Error::invalid(
            "compressed image data",
            "it is not a uint8[]",
        ));
    };
    let decoding = Decoding {
        layout: ImageLayout::Hwc,
        factor: 1,
        strict: false,
    };
    let format = message.string("format").unwrap_or("");
    let fail =
        |why: String| Error::invalid(format_args!("compressed image (format `{format}`)"), why);
    let size = decoding.size(data).map_err(fail)?;
    let pixels = decoding
        .decode(data, size, &"this image", &mut Vec::new())
        .map_err(fail)?;
    Array3::from_shape_vec((size.0, size.1, 3), pixels)
        .map_err(|e| Error::internal("compressed image view", e))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ros::Value;

    fn image(encoding: &str, width: u32, height: u32, step: u32, data: Vec<u8>) -> Message {
        let names = [
            "height",
            "width",
            "encoding",
            "is_bigendian",
            "step",
            "data",
        ];
        Message {
            type_name: Arc::from("sensor_msgs/Image"),
            names: names.iter().map(|n| Arc::from(*n)).collect(),
            values: vec![
                Value::U32(height),
                Value::U32(width),
                Value::String(encoding.into()),
                Value::U8(0),
                Value::U32(step),
                Value::Array(Numbers::U8(data)),
            ],
        }
    }

    #[test]
    fn bgr_is_reordered_and_row_padding_skipped() {
        // 2 x 2 bgr8, rows of 6 bytes 8 apart.
        let data = vec![1, 2, 3, 4, 5, 6, 0, 0, 7, 8, 9, 10, 11, 12];
        let rgb = Array3::<u8>::from_message(&image("bgr8", 2, 2, 8, data)).unwrap();
        assert_eq!(
            rgb.into_raw_vec_and_offset().0,
            [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]
        );
    }

    #[test]
    fn too_few_bytes_or_an_unknown_encoding_is_an_error() {
        let err = Array3::<u8>::from_message(&image("rgb8", 2, 2, 6, vec![0; 11])).unwrap_err();
        assert!(err.to_string().contains("11 bytes"), "{err}");
        let err =
            Array3::<u8>::from_message(&image("bayer_rggb8", 2, 2, 2, vec![0; 4])).unwrap_err();
        assert!(err.to_string().contains("bayer_rggb8"), "{err}");
    }
}
