//! MP4 video (feature `video`): [`Video`], a camera recorded as video,
//! its frames decoded by FFmpeg's libavcodec (Debian's `libavcodec-dev`,
//! `libavformat-dev`, `libswscale-dev`), converted to RGB by libswscale.
//!
//! The parts, each in a file of its own:
//! - `mp4`: the file's index (its `moov` box) read into the video track's
//!   sample table: where each picture is, its times, its key frames, the
//!   codec's record. adl's own reader, so that a file's frames and times are
//!   known when it is opened without decoding, and an object in a store is
//!   read by byte ranges (the index once, then the pictures a read needs);
//!   it is fuzzed as adl's other parsers are.
//! - `file`: an opened file: its bytes (mapped, or an object's) and its
//!   sample table.
//! - `decoder`: each thread's FFmpeg decoders, and the decoding of a set of
//!   frames a group of pictures at a time.
//! - `convert`: a decoded picture to RGB, by libswscale, into its array.
//! - `sensor`: [`Video`], the sensor.
//! - `frames`: [`Frames`], frames in a sample decoded by the collate, a
//!   batch's grouped by file and group of pictures.

mod convert;
mod decoder;
mod file;
mod frames;
mod mp4;
mod sensor;

pub use frames::{Frames, FramesBuilder};
pub use sensor::Video;
