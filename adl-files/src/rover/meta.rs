//! A roverd sensor's `meta.json`: its channels, each with a format, an
//! element type and a frame shape, parsed with serde and checked.

use adl_core::Result;
use serde::Deserialize;

use super::element::Element;
use crate::location::Location;

/// How a roverd channel is stored: the `format` of its entry in
/// `meta.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelFormat {
    /// `raw`: the frames one after another, little-endian, uncompressed.
    Raw,
    /// `lzma`: the whole channel as one xz (or `.lzma`) stream.
    Lzma,
    /// `lzmaf`: each frame its own xz stream, with a `<name>_i` file of
    /// `uint64` offsets (the start of each frame, then the end of the
    /// last).
    LzmaFrames,
    /// `mjpg`: MJPEG video in an AVI file, a JPEG per frame.
    Mjpeg,
    /// `npz`: a folder of `.npz` files (`000000.npz`, ...), a frame per
    /// file in its array `data`.
    NpzBlobs,
    /// `jpg`: a folder of `.jpg` files (`000000.jpg`, ...), a frame per
    /// file.
    JpegBlobs,
}

impl ChannelFormat {
    /// The format named `name` in `meta.json`, if roverd has it.
    pub fn parse(name: &str) -> Option<ChannelFormat> {
        Some(match name {
            "raw" => ChannelFormat::Raw,
            "lzma" => ChannelFormat::Lzma,
            "lzmaf" => ChannelFormat::LzmaFrames,
            "mjpg" => ChannelFormat::Mjpeg,
            "npz" => ChannelFormat::NpzBlobs,
            "jpg" => ChannelFormat::JpegBlobs,
            _ => return None,
        })
    }

    /// The name `meta.json` gives it.
    pub fn name(self) -> &'static str {
        match self {
            ChannelFormat::Raw => "raw",
            ChannelFormat::Lzma => "lzma",
            ChannelFormat::LzmaFrames => "lzmaf",
            ChannelFormat::Mjpeg => "mjpg",
            ChannelFormat::NpzBlobs => "npz",
            ChannelFormat::JpegBlobs => "jpg",
        }
    }
}

/// One channel's entry in `meta.json`, checked: a known format and
/// element type, and a shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelMeta {
    /// The channel's name: its file's (or folder's) name in the sensor
    /// folder.
    pub name: String,
    /// How it is stored.
    pub format: ChannelFormat,
    /// The element type of its values.
    pub element: Element,
    /// The shape of one frame (without the frames' axis).
    pub shape: Vec<usize>,
    /// Its description (`desc`, or `description`), if it has one.
    pub description: Option<String>,
}

impl ChannelMeta {
    /// The bytes of one frame.
    pub fn frame_bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.element.size()
    }
}

/// A channel's entry as written: what serde reads before it is checked
/// (other keys, such as a channel's `args`, are passed over).
#[derive(Deserialize)]
struct Entry {
    format: String,
    #[serde(rename = "type")]
    element: String,
    shape: Vec<usize>,
    #[serde(default)]
    desc: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

/// The channels of the `meta.json` whose text is `text`, read from
/// `location`, in the file's order. A file that is not JSON, not an
/// object of channels, or with an entry that lacks a key or has a format
/// or type roverd does not write, is refused naming the file, the channel
/// and what is wrong (serde's line and column for a syntax error).
pub(crate) fn parse(location: &Location, text: &[u8]) -> Result<Vec<ChannelMeta>> {
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(text).map_err(|e| {
            location.error(format!(
                "not a roverd meta.json (a JSON object of channels): {e}"
            ))
        })?;
    object
        .into_iter()
        .map(|(name, value)| {
            let entry: Entry = serde_json::from_value(value).map_err(|e| {
                location.error(format!(
                    "channel `{name}`: {e} (a channel has a format, a type and a shape)"
                ))
            })?;
            let format = ChannelFormat::parse(&entry.format).ok_or_else(|| {
                location.error(format!(
                    "channel `{name}`: unknown format `{}`; roverd's formats are raw, lzma, lzmaf, mjpg, npz and jpg",
                    entry.format.escape_debug()
                ))
            })?;
            let element = Element::parse(&entry.element).ok_or_else(|| {
                location.error(format!(
                    "channel `{name}`: type `{}` is not one adl reads; the types are {} (NumPy's codes, little-endian)",
                    entry.element.escape_debug(),
                    Element::codes()
                ))
            })?;
            let bytes = entry
                .shape
                .iter()
                .try_fold(element.size(), |n, &axis| n.checked_mul(axis))
                .filter(|&n| n <= isize::MAX as usize);
            if bytes.is_none() {
                return Err(location.error(format!(
                    "channel `{name}`: a frame of shape {:?} of {element} is too large to address",
                    entry.shape
                )));
            }
            Ok(ChannelMeta {
                name,
                format,
                element,
                shape: entry.shape,
                description: entry.desc.or(entry.description),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<ChannelMeta>> {
        parse(&Location::from("radar/meta.json"), text.as_bytes())
    }

    #[test]
    fn channels_are_read_in_the_files_order_with_their_types() {
        let channels = parsed(
            r#"{"ts": {"format": "raw", "type": "f8", "shape": []},
                "iq": {"format": "raw", "type": "i2", "shape": [64, 3, 4, 512], "desc": "I/Q"},
                "rng": {"format": "lzmaf", "type": "u2", "shape": [64, 2048], "args": {"x": 1}}}"#,
        )
        .unwrap();
        let names: Vec<&str> = channels.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["ts", "iq", "rng"]);
        assert_eq!(channels[1].element, Element::I16);
        assert_eq!(channels[1].frame_bytes(), 64 * 3 * 4 * 512 * 2);
        assert_eq!(channels[1].description.as_deref(), Some("I/Q"));
        assert_eq!(channels[2].format, ChannelFormat::LzmaFrames);
    }

    #[test]
    fn a_bad_entry_is_refused_naming_the_channel() {
        let err = parsed(r#"{"iq": {"format": "hdf5", "type": "i2", "shape": [2]}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("radar/meta.json: channel `iq`: unknown format `hdf5`"),
            "{err}"
        );
        let err = parsed(r#"{"iq": {"format": "raw", "type": ">i2", "shape": [2]}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("channel `iq`: type `>i2` is not one adl reads"),
            "{err}"
        );
        let err = parsed(r#"{"iq": {"format": "raw", "shape": [2]}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("channel `iq`: missing field `type`"), "{err}");
        let err = parsed("{\"iq\": ").unwrap_err().to_string();
        assert!(
            err.contains("not a roverd meta.json") && err.contains("line 1"),
            "{err}"
        );
        let err =
            parsed(r#"{"iq": {"format": "raw", "type": "f8", "shape": [4294967296, 4294967296]}}"#)
                .unwrap_err()
                .to_string();
        assert!(err.contains("channel `iq`: a frame of shape"), "{err}");
        let err = parsed("[1, 2]").unwrap_err().to_string();
        assert!(err.contains("not a roverd meta.json"), "{err}");
    }
}
