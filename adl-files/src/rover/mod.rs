//! roverd's on-disk format, read natively: the sensor folders of the
//! RadarML lab's red-rover recordings (the I/Q-1M dataset), as
//! [`RoverSensor`]s.
//!
//! A roverd sensor is a folder with a `meta.json` that declares each
//! channel (`{"iq": {"format": "raw", "type": "i2", "shape": [64, 3, 4,
//! 512]}, ...}`), a file per channel (or a folder, for blobs), and the
//! timestamps in the `ts` channel (raw float64 seconds). adl reads every
//! format roverd writes: `raw`, `lzma`, `lzmaf`, `mjpg` (MJPEG in AVI),
//! `jpg` and `npz` blobs, into arrays of each channel's element type
//! ([`ChannelArray`]), without Python: roverd's own readers use NumPy,
//! Python's `lzma` and OpenCV.
//!
//! - [`RoverSensor`]: the sensor, its sample each chosen channel's frames
//!   (a [`RoverSample`]); [`RoverOptions`]: which channels, images
//!   downscaled, a window of frames.
//! - [`Channel`]: one channel, read a window of frames at a time;
//!   [`ChannelMeta`], [`ChannelFormat`], [`Element`]: its `meta.json`
//!   entry.

mod array;
mod avi;
mod blobs;
mod channel;
mod element;
mod jpeg;
mod lzma;
mod lzma_frames;
mod meta;
mod raw;
mod sensor;
mod video;

pub use array::ChannelArray;
pub use channel::Channel;
pub use element::Element;
pub use meta::{ChannelFormat, ChannelMeta};
pub use sensor::{RoverOptions, RoverSample, RoverSensor};
