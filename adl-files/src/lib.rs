//! File-backed sensors: the data of a recording read from the files a team
//! keeps, checked as it is opened, with errors that name the file, the
//! sensor and the sample.
//!
//! - [`Npy`]: a NumPy `.npy` array, memory-mapped, one sample per row of
//!   its first axis (radar frames, lidar scans of a fixed size, features).
//! - [`read_timestamps`]: a sensor's timestamps from a `.npy` array of
//!   float64 seconds or a text file of one number per line.
//! - [`Npy::in_folder`]: the layout of a sensor per folder, its data in
//!   `data.npy` and its timestamps beside it.
//! - [`NpyFiles`]: a folder of `.npy` files, a whole file per sample, for
//!   samples whose size varies (lidar scans of `[n_i, 4]` points).
//! - [`Table`]: a CSV table of timestamped rows (an IMU, a GPS), a sample
//!   per row.
//! - [`Latency`]: a sensor whose reads wait, as behind a remote store (for
//!   tests and benchmarks of a loader's read stage).
//! - [`Location`]: where a sensor's file or folder is. Each sensor opens a
//!   local path or, with object storage (feature `store`, or one cloud:
//!   `s3`, `gcs`, `azure`, `http`), the URL of an object: `s3://`, `gs://`,
//!   `az://`, `http(s)://`, read through a `Store` with credentials from
//!   the standard environment variables, transient failures retried
//!   (`RetryPolicy`) and counted (`StoreStats`).
//! - [`Images`]: a camera, a folder of JPEG or PNG frames decoded in Rust
//!   into RGB `[H, W, 3]` or `[3, H, W]` `u8` arrays, optionally
//!   downscaled; a frame per timestamp. (Its augmentations are adl's
//!   built-in sample nodes `adl::transform::RandomResizedCrop` and
//!   `RandomFlip`.)
//! - [`rover`]: roverd's format (the red-rover recordings, I/Q-1M): a
//!   sensor folder with `meta.json` and its `raw`, `lzma`, `lzmaf`,
//!   `mjpg`, `jpg` and `npz` channels, as a
//!   [`RoverSensor`](rover::RoverSensor).
//! - `px4` (feature `px4`): PX4 flight logs (ULog), one sensor per logged
//!   topic, read by adl's own bounded ULog reader.
//! - `Video` (feature `video`): a camera recorded as an MP4 video (H.264,
//!   HEVC, AV1, VP9), its frames decoded by FFmpeg's libraries, a group of
//!   pictures at a time.
//! - `lerobot` (feature `lerobot`): LeRobot datasets (v3.0 and v2.1), their
//!   Parquet tables and videos, as lerobot's `LeRobotDataset` reads them.
//!
//! Reached from the facade as `adl::files` (feature `files`, on by
//! default; object storage with the facade's feature `store`).
//!
//! ```
//! use adl::Sensor;
//! use adl::files::Npy;
//! use adl::ndarray::Array2;
//!
//! # let dir = tempfile::tempdir()?;
//! # let radar = dir.path().join("radar");
//! # std::fs::create_dir(&radar)?;
//! # ndarray_npy::write_npy(radar.join("data.npy"), &adl::ndarray::Array3::<f32>::from_elem((3, 2, 4), 0.5))?;
//! # std::fs::write(radar.join("ts.txt"), "0.00\n0.05\n0.10\n")?;
//! // radar/data.npy: float32 [3, 2, 4]; radar/ts.txt: 3 lines of seconds
//! let sensor: Npy<f32, adl::ndarray::Ix2> = Npy::in_folder(&radar)?;
//! assert_eq!(sensor.name(), "radar");
//! assert_eq!(sensor.len(), 3);
//! let frame: Array2<f32> = sensor.get(1)?;
//! assert_eq!(frame.shape(), &[2, 4]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same sensor from an object store (`AWS_*` variables set):
//!
//! ```no_run
//! # use adl::files::Npy;
//! let sensor: Npy<f32, adl::ndarray::Ix2> = Npy::in_folder("s3://recordings/drive-07/radar")?;
//! # Ok::<(), adl::Error>(())
//! ```

mod crop_decoder;
mod decode;
mod encoded;
mod images;
mod jpeg_decoder;
#[cfg(feature = "libjpeg-turbo")]
mod jpeg_region;
mod latency;
#[cfg(feature = "lerobot")]
pub mod lerobot;
#[cfg(feature = "libjpeg-turbo")]
mod libjpeg_turbo;
mod location;
mod mapped;
mod natural;
mod npy;
mod npy_element;
mod npy_files;
mod npy_header;
mod npz;
mod object;
mod per_file;
mod pixels;
#[cfg(feature = "px4")]
pub mod px4;
mod ranged;
#[cfg(feature = "_object-store")]
mod retry;
#[cfg(feature = "ros")]
pub mod ros;
pub mod rover;
#[cfg(feature = "_object-store")]
mod runtime;
#[cfg(feature = "_object-store")]
mod store;
mod table;
mod timestamps;
#[cfg(feature = "video")]
pub mod video;

pub use crop_decoder::CropDecoder;
pub use encoded::{EncodedImage, EncodedImages};
pub use images::{IMAGE_EXTENSIONS, Images};
pub use jpeg_decoder::{JPEG_DECODER_VARIABLE, libjpeg_turbo_decodes};
pub use latency::Latency;
pub use location::Location;
pub use npy::Npy;
pub use npy_element::NpyElement;
pub use npy_files::NpyFiles;
#[cfg(feature = "_object-store")]
pub use retry::RetryPolicy;
#[cfg(feature = "_object-store")]
pub use store::{Store, StoreOptions, StoreStats};
pub use table::Table;
pub use timestamps::{TIMESTAMP_FILES, read_timestamps};
#[cfg(feature = "video")]
pub use video::Video;
