//! [`RoverSensor`]: a roverd sensor folder (`meta.json`, its channels and
//! `ts`) as an adl sensor whose sample is every chosen channel's frames.

use adl_core::storage::Storage;
use std::sync::Arc;

use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};

use super::array::ChannelArray;
use super::channel::Channel;
use super::element::Element;
use super::meta::{ChannelFormat, ChannelMeta, parse};
use crate::location::Location;

/// The name of a roverd sensor's timestamps channel.
const TIMESTAMPS: &str = "ts";

/// How a [`RoverSensor`] is opened: which channels, images shrunk by how
/// much, and how many frames around each sample.
///
/// ```
/// use adl::files::rover::RoverOptions;
///
/// let options = RoverOptions::default().channels(["rng", "ts"]).downscale(2).window(1, 0);
/// assert_eq!(options.window_len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoverOptions {
    channels: Option<Vec<String>>,
    downscale: usize,
    past: usize,
    future: usize,
}

impl Default for RoverOptions {
    fn default() -> Self {
        RoverOptions {
            channels: None,
            downscale: 1,
            past: 0,
            future: 0,
        }
    }
}

impl RoverOptions {
    /// Read only these channels, in this order (as roverd's `subset`):
    /// the others are neither opened nor read. By default every channel
    /// of `meta.json`, in its order (`ts` among them, as roverd reads it).
    pub fn channels<S: Into<String>>(self, names: impl IntoIterator<Item = S>) -> Self {
        RoverOptions {
            channels: Some(names.into_iter().map(Into::into).collect()),
            ..self
        }
    }

    /// Image channels (`mjpg`, `jpg`) shrunk by `factor`: 1 (none, the
    /// default), 2, 4 or 8, a side of `n` pixels becoming `ceil(n /
    /// factor)`; by libjpeg-turbo as it decodes where the feature
    /// `libjpeg-turbo` is on, else each pixel the mean of a box (see
    /// [`Images`](crate::Images)).
    pub fn downscale(self, factor: usize) -> Self {
        RoverOptions {
            downscale: factor,
            ..self
        }
    }

    /// Each sample the frames `index - past ..= index + future` (roverd's
    /// `past` and `future`); `(0, 0)`, one frame, by default.
    pub fn window(self, past: usize, future: usize) -> Self {
        RoverOptions {
            past,
            future,
            ..self
        }
    }

    /// The frames in a sample's window: `past + 1 + future` (saturating).
    pub fn window_len(&self) -> usize {
        self.past.saturating_add(1).saturating_add(self.future)
    }
}

/// A roverd sensor: a folder with `meta.json` (each channel's format,
/// type and shape), a file (or folder) per channel and the timestamps in
/// `ts`, read natively (no Python, no OpenCV): sample `i` is, for every
/// chosen channel, its frames around `i`, `[window, *shape]` in the
/// channel's element type: roverd's `DynamicSensor(path)[i]`.
///
/// **Channels.** `raw` (little-endian frames one after another, mapped or
/// read with ranged requests), `lzma` (the whole channel one xz stream,
/// decompressed once when the sensor is opened), `lzmaf` (each frame its
/// own xz stream, found by the `<name>_i` offsets, decompressed by liblzma
/// on read), `mjpg` (MJPEG in an AVI file, each frame's JPEG found by the
/// file's `idx1` index or its `movi` lists, decoded by adl's JPEG path
/// into RGB), `jpg` and `npz` (a folder with a file per frame,
/// `000000.jpg`, the `.npz` frame its array `data`). Image channels are
/// `uint8` `[H, W, 3]`, shrunk by [`RoverOptions::downscale`].
///
/// **Frame `i`.** A video's frame `i` is the `i`-th JPEG in the file;
/// roverd's `VideoChannel.read(start=i)` seeks OpenCV to `i - 1` and so
/// returns the file's frame `i - 1` for `i > 0` (and its `stream()` the
/// frames in order): adl reads the frame each timestamp belongs to.
///
/// **Checks.** At opening: `meta.json` parses (a JSON object of channels,
/// each with a known format and type, and a shape), every chosen channel
/// is there and holds at least a frame per timestamp (an `lzmaf`
/// channel's offsets increase and end inside its file, an AVI's index
/// stays inside it, an image's first frame is the declared size), the
/// timestamps are finite, sorted and advance. On each read: the frame's
/// bytes are there and decode to its size. Every refusal is an
/// [`Error::Source`] naming the file, the sensor, the sample where it is
/// one's, and the frame and bytes where it is a frame's.
///
/// ```
/// use adl::Sensor;
/// use adl::files::rover::{ChannelArray, RoverOptions, RoverSensor};
///
/// # let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/rover/trace");
/// // lidar/: meta.json, ts, rng and rng_i (lzmaf u2 [8, 16]), rfl and rfl_i
/// let lidar = RoverSensor::open(trace.join("lidar"), &RoverOptions::default().channels(["rng"]))?;
/// assert_eq!(lidar.name(), "lidar");
/// assert_eq!(lidar.len(), 5);
/// let sample = lidar.get(2)?;
/// let Some(ChannelArray::U16(rng)) = sample.get("rng") else { panic!("uint16") };
/// assert_eq!(rng.shape(), &[1, 8, 16]);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct RoverSensor {
    name: String,
    folder: Location,
    channels: Vec<Channel>,
    names: Vec<Arc<str>>,
    timestamps: Timestamps,
    past: usize,
    future: usize,
}

impl std::fmt::Debug for RoverSensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoverSensor")
            .field("name", &self.name)
            .field("folder", &self.folder)
            .field("samples", &self.timestamps.as_slice().len())
            .field("channels", &self.channels)
            .finish()
    }
}

/// A sample of a [`RoverSensor`]: each chosen channel's frames, by name,
/// in the sensor's order.
#[derive(Debug, Clone, PartialEq)]
pub struct RoverSample {
    channels: Vec<(Arc<str>, ChannelArray)>,
}

impl RoverSample {
    /// The frames of channel `name`, if the sample has it.
    pub fn get(&self, name: &str) -> Option<&ChannelArray> {
        self.channels
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, a)| a)
    }

    /// The channels' names and frames, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ChannelArray)> {
        self.channels.iter().map(|(n, a)| (&**n, a))
    }

    /// The channels' names and frames, taken.
    pub fn into_channels(self) -> Vec<(Arc<str>, ChannelArray)> {
        self.channels
    }
}

impl RoverSensor {
    /// The sensor folder `folder` (a path, or a folder in an object store
    /// with the feature `store`), named as the folder, opened as `options`
    /// say.
    pub fn open(folder: impl Into<Location>, options: &RoverOptions) -> Result<RoverSensor> {
        let folder = folder.into();
        let name = folder
            .file_name()
            .map(str::to_string)
            .ok_or_else(|| folder.error("a sensor folder needs a name"))?;
        Self::opened(&name, folder, options).map_err(|e| e.in_sensor(&name, None))
    }

    fn opened(name: &str, folder: Location, options: &RoverOptions) -> Result<RoverSensor> {
        if ![1, 2, 4, 8].contains(&options.downscale) {
            return Err(Error::invalid(
                format_args!("downscale of sensor `{name}`"),
                format!("{}; the factors are 1, 2, 4 and 8", options.downscale),
            ));
        }
        let meta_location = folder.join("meta.json");
        let text = match meta_location.as_path() {
            Some(path) => std::fs::read(path).map_err(|e| {
                meta_location.error_io("cannot read (a roverd sensor folder has a meta.json)", e)
            })?,
            None => meta_location.object()?.get()?.to_vec(),
        };
        let mut declared = parse(&meta_location, &text)?;

        // The timestamps: the `ts` channel, raw float64 seconds.
        if let Some(ts) = declared.iter().find(|c| c.name == TIMESTAMPS)
            && (ts.format != ChannelFormat::Raw
                || ts.element != Element::F64
                || !ts.shape.is_empty())
        {
            return Err(meta_location.error(format!(
                "channel `ts` is declared {} {} {:?}; a sensor's timestamps are raw f8 of shape []",
                ts.format.name(),
                ts.element,
                ts.shape
            )));
        }
        let timestamps = read_timestamps(name, &folder.join(TIMESTAMPS))?;
        let samples = timestamps.as_slice().len();
        let window = options
            .past
            .checked_add(options.future)
            .and_then(|n| n.checked_add(1))
            .filter(|&n| n <= samples);
        if window.is_none() {
            return Err(Error::invalid(
                format_args!("window of sensor `{name}`"),
                format!(
                    "{} past and {} future frames around each sample are more than its {samples} samples",
                    options.past, options.future
                ),
            ));
        }

        let chosen = match &options.channels {
            None => declared,
            Some(wanted) => {
                let all = declared
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut chosen: Vec<ChannelMeta> = Vec::with_capacity(wanted.len());
                for want in wanted {
                    if chosen.iter().any(|c| &c.name == want) {
                        return Err(meta_location.error(format!(
                            "channel `{}` is asked for twice",
                            want.escape_debug()
                        )));
                    }
                    let at = declared
                        .iter()
                        .position(|c| &c.name == want)
                        .ok_or_else(|| {
                            meta_location.error(format!(
                                "has no channel `{}`; its channels are [{all}]",
                                want.escape_debug(),
                            ))
                        })?;
                    chosen.push(declared.remove(at));
                }
                chosen
            }
        };
        let channels = chosen
            .into_iter()
            .map(|meta| {
                let channel = Channel::open(&folder, meta, options.downscale, samples)?;
                channel.check_frames(samples)?;
                Ok(channel)
            })
            .collect::<Result<Vec<_>>>()?;
        let names = channels.iter().map(|c| Arc::from(c.name())).collect();
        Ok(RoverSensor {
            name: name.to_string(),
            folder,
            channels,
            names,
            timestamps,
            past: options.past,
            future: options.future,
        })
    }

    /// The sensor's folder.
    pub fn folder(&self) -> &Location {
        &self.folder
    }

    /// The channels read, in a sample's order.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// The channel called `name`, if it is read.
    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name() == name)
    }

    /// The frames in a sample's window.
    pub fn window_len(&self) -> usize {
        self.past + 1 + self.future
    }
}

/// The timestamps of sensor `name` in its `ts` file at `location`: raw
/// little-endian float64 seconds, checked as [`Timestamps::new`] checks.
fn read_timestamps(name: &str, location: &Location) -> Result<Timestamps> {
    let file = crate::ranged::RangedFile::open(location)?;
    let bytes = file.read_all("the timestamps")?;
    if bytes.len() % 8 != 0 {
        return Err(location.error(format!(
            "holds {} bytes, not a whole number of float64 timestamps: truncated",
            bytes.len()
        )));
    }
    let values = bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    crate::timestamps::checked(name, location, values)
}

impl Sensor for RoverSensor {
    type Sample = RoverSample;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<RoverSample> {
        let len = self.timestamps.as_slice().len();
        if index >= len {
            return Err(Error::out_of_range(
                format_args!("sensor `{}`", self.name),
                index,
                len,
            ));
        }
        if index < self.past || index + self.future >= len {
            // (No overflow: past + 1 + future <= len, checked at opening.)
            return Err(Error::invalid(
                format_args!("index {index} of sensor `{}`", self.name),
                format!(
                    "its window of {} past and {} future frames runs outside the sensor's {len} samples (the first full window is at {}, the last at {})",
                    self.past,
                    self.future,
                    self.past,
                    len.saturating_sub(self.future + 1)
                ),
            ));
        }
        let first = index - self.past;
        let count = self.window_len();
        let channels = self
            .channels
            .iter()
            .zip(&self.names)
            .map(|(channel, name)| {
                let frames = channel
                    .read(first, count)
                    .map_err(|e| e.in_sensor(&self.name, Some(index)))?;
                Ok((Arc::clone(name), frames))
            })
            .collect::<Result<_>>()?;
        Ok(RoverSample { channels })
    }

    /// Where its samples are: see its [`Storage`] impl.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

/// Its samples are frames in its folder.
impl Storage for RoverSensor {
    type Origin = SensorOrigin;

    /// The sensor's folder, and the sample's frame in it.
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        Some(SensorOrigin::new(self.name.as_str(), index).in_file(&self.folder, Some(index)))
    }
}
