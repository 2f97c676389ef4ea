//! [`Images`]: a sensor over a sequence of JPEG or PNG frames.

use std::cell::RefCell;
use std::io::Read;

use adl_core::storage::{Fetched, Storage};
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use ndarray::Array3;

use crate::decode::Decoding;
use crate::location::Location;
use crate::per_file::{Contents, Files};
use crate::timestamps::sensor_folder;

/// The file name extensions of frames in a folder (in any case).
pub const IMAGE_EXTENSIONS: [&str; 3] = ["jpg", "jpeg", "png"];

/// A camera: a sensor whose samples are the frames of a sequence of JPEG
/// or PNG files, one per timestamp, decoded in Rust (zune-jpeg,
/// zune-png), or JPEGs by libjpeg-turbo (feature `libjpeg-turbo`), into RGB `Array3<u8>`, `[H, W, 3]` (the default) or `[3, H,
/// W]` ([`layout`](Images::layout)).
///
/// **Frames.** From a folder ([`open`](Images::open),
/// [`in_folder`](Images::in_folder)), the files named `*.jpg`, `*.jpeg`
/// or `*.png` (in any case, hidden files passed over), in the natural
/// order of their names: numbers compare as numbers, so `frame_9.jpg`
/// comes before `frame_10.jpg`, and zero-padded names keep their order.
/// Or a list of files, in its order ([`from_files`](Images::from_files)).
/// A file is decoded as what its first bytes say it is, whatever its
/// extension.
///
/// **Object stores.** A folder or file may be a [`Location`] in an object
/// store (a URL such as `s3://bucket/drive/camera/`, or a location from
/// `Store::at`; feature `store`): the folder is the objects under its
/// prefix (not in its subfolders), listed once when it is opened, and
/// its frames chosen and ordered as a local folder's files; a frame is
/// read whole with one GET, by the read stage's fetch or by the `get`
/// itself. A plain HTTP server cannot list a folder: give it the files.
///
/// **Pixels.** A PNG's gray is repeated over R, G and B, its alpha
/// dropped (Pillow's `convert("RGB")`), a palette expanded, 16-bit
/// samples reduced to their high byte (as Pillow reads 16-bit RGB; for
/// 16-bit gray Pillow clips instead). A JPEG is decoded to RGB (gray and
/// CMYK converted); its EXIF orientation is not applied (nor by Pillow's
/// `Image.open`). Against Pillow's libjpeg-turbo, zune-jpeg's pixels
/// differ by at most a few values (its IDCT and chroma upsampling are its
/// own): 4 at most on 640 x 480 photographs at quality 90. With the
/// feature `libjpeg-turbo` (the system's library: Debian's
/// `libturbojpeg0-dev`), JPEGs are decoded by libjpeg-turbo with its
/// defaults, Pillow's: the same pixels as Pillow, at its speed. A frame
/// it cannot decode cleanly (a CMYK JPEG, a corrupt one) goes to
/// zune-jpeg, whose verdict stands: the frames accepted and the errors
/// are the same with the feature and without, but for valid JPEGs that
/// sample chroma more finely than luma in scans of one component (rare:
/// cjpeg writes them when asked), which zune-jpeg cannot decode; without
/// the feature they are refused with that reason. A JPEG with a second
/// frame is refused either way (libjpeg refuses it too).
///
/// **Downscaling** by 2, 4 or 8 ([`downscale`](Images::downscale)): a
/// side of `n` pixels becomes `ceil(n / factor)` (libjpeg's scaled size).
/// With libjpeg-turbo, a JPEG is scaled as it is decoded (in the DCT
/// domain, as Pillow's `draft`: the same pixels), which saves most of the
/// decoding too. Otherwise (zune-jpeg, and PNG) a frame is decoded whole
/// and each output pixel is the mean of a box of `factor` x `factor`
/// pixels, in the pass that writes the sample, the last row and column of
/// boxes taking what is left: it saves the memory and the work of every
/// later step, not the decoding.
///
/// **Buffers.** A frame is decoded straight into the buffer that becomes
/// its array (one allocation per frame, no copy after decoding) when it is
/// what the decoder gives: an RGB `[H, W, 3]` frame, not downscaled (with
/// libjpeg-turbo, also downscaled).
/// Otherwise it is decoded into a scratch buffer kept by each thread and
/// written into the array in one pass (gray to RGB, box downscale, `[3, H,
/// W]`). Each thread also keeps the buffer a local file is read into:
/// after reading, a thread holds one file and, where used, one decoded
/// frame.
///
/// **Checks.** At opening: frames there are, one per timestamp, and the
/// first frame's header, whose size is every frame's (so that
/// [`sample_shape`](Images::sample_shape) is known). On each read: the
/// file is a JPEG or a PNG, of that size, and decodes. Every failure is an
/// [`Error::Source`] that names the file (an object's URL), the sensor
/// and, for a frame's, the sample. By default the decoders are strict: a
/// truncated JPEG (one whose last scan does not reach its end-of-image
/// marker), or one with junk between its markers, is refused where
/// libjpeg would warn and fill in gray, as Pillow refuses a truncated file
/// ([`strict`](Images::strict) to change it). A decoder that
/// panics on a corrupt file (none was seen to) is caught and reported as
/// that file's error.
///
/// ```
/// use adl::Sensor;
/// use adl::files::Images;
/// use adl::transform::ImageLayout;
///
/// # let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
/// // camera/: frame_1.jpg, frame_2.jpg, frame_9.jpg, frame_10.jpg (32 x 24) and ts.txt
/// let camera = Images::in_folder(data.join("camera"))?;
/// assert_eq!(camera.name(), "camera");
/// assert_eq!(camera.len(), 4);
/// assert_eq!(camera.frames()[3].file_name(), Some("frame_10.jpg"));
/// assert_eq!(camera.get(3)?.shape(), &[24, 32, 3]);
///
/// let small = camera.layout(ImageLayout::Chw).downscale(2)?;
/// assert_eq!(small.sample_shape(), [3, 12, 16]);
/// assert_eq!(small.get(0)?.shape(), &[3, 12, 16]);
///
/// let times = adl::Timestamps::new("camera", vec![0.0, 0.1, 0.2])?;
/// let err = Images::open("camera", data.join("camera"), times).unwrap_err();
/// assert!(err.to_string().ends_with("camera (sensor `camera`): holds 4 frames for 3 timestamps"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The same camera from an object store (`AWS_*` variables set):
///
/// ```no_run
/// # use adl::files::Images;
/// let camera = Images::in_folder("s3://recordings/drive-07/camera/")?;
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Clone)]
pub struct Images {
    name: String,
    /// The frames' files, and those read ahead ([`Sensor::read_ahead`]) not
    /// yet decoded.
    frames: Files,
    timestamps: Timestamps,
    /// Every frame's size in its file, (height, width): the first's.
    size: (usize, usize),
    decoding: Decoding,
}

impl std::fmt::Debug for Images {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Images")
            .field("name", &self.name)
            .field("frames", &self.frames.locations().len())
            .field("first", &self.frames.locations().first())
            .field("sample_shape", &self.sample_shape())
            .field("decoding", &self.decoding)
            .finish()
    }
}

/// What a thread keeps between reads: the buffer a file is read into and
/// the one a frame is decoded into before it is converted.
#[derive(Default)]
struct Scratch {
    file: Vec<u8>,
    pixels: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The frame `bytes` (`size` pixels; `first` the sensor's first frame)
/// decoded as `decoding` says, with this thread's scratch buffer, a
/// decoder's panic caught: for a frame whose bytes are in hand
/// ([`EncodedImage`](crate::EncodedImage)).
pub(crate) fn decode_in_thread(
    decoding: Decoding,
    bytes: &[u8],
    size: (usize, usize),
    first: &dyn std::fmt::Display,
) -> std::result::Result<Vec<u8>, String> {
    SCRATCH
        .with_borrow_mut(|scratch| decoding.decode_caught(bytes, size, first, &mut scratch.pixels))
}

impl Images {
    /// Sensor `name` over the frames in the folder `dir` (a path, or a
    /// folder in an object store; see [`Images`]: its JPEG and PNG files
    /// in natural order), a frame per timestamp of `timestamps`.
    pub fn open(name: &str, dir: impl Into<Location>, timestamps: Timestamps) -> Result<Self> {
        let dir = dir.into();
        let frames = Files::in_folder(name, &dir, &IMAGE_EXTENSIONS, "frames")?;
        Self::checked(name, &dir, frames, timestamps)
    }

    /// Sensor `name` over the image files `files` (paths, or URLs of
    /// objects in a store), in that order, a frame per timestamp of
    /// `timestamps`.
    pub fn from_files<L: Into<Location>>(
        name: &str,
        files: impl IntoIterator<Item = L>,
        timestamps: Timestamps,
    ) -> Result<Self> {
        let (place, frames) = Files::given(name, files, "frames")?;
        Self::checked(name, &place, frames, timestamps)
    }

    /// The sensor of the folder `dir` (a path, or a folder in an object
    /// store), in the layout of a sensor per folder: named as the folder,
    /// its frames the folder's JPEG and PNG files (as
    /// [`open`](Images::open) finds them), its timestamps in the first of
    /// [`TIMESTAMP_FILES`](crate::TIMESTAMP_FILES) that is there (read by
    /// [`read_timestamps`](crate::read_timestamps)).
    pub fn in_folder(dir: impl Into<Location>) -> Result<Self> {
        let dir = dir.into();
        let (name, timestamps) = sensor_folder(&dir)?;
        Self::open(&name, dir, timestamps)
    }

    /// Checked: a frame per timestamp, the first frame's size read from its
    /// header. `place` is where the frames are, for the messages.
    fn checked(
        name: &str,
        place: &Location,
        frames: Vec<Location>,
        timestamps: Timestamps,
    ) -> Result<Self> {
        let decoding = Decoding {
            layout: ImageLayout::Hwc,
            factor: 1,
            strict: true,
        };
        let frames = Files::new(name, place, frames, timestamps.as_slice().len(), "frames")?;
        let first = frames.location(0)?;
        let size = decoding
            .size(&frames.read(0)?)
            .map_err(|reason| first.error(reason).in_sensor(name, Some(0)))?;
        Ok(Images {
            name: name.to_string(),
            frames,
            timestamps,
            size,
            decoding,
        })
    }

    /// Samples in `layout`: `[H, W, 3]` ([`ImageLayout::Hwc`], the default)
    /// or `[3, H, W]` ([`ImageLayout::Chw`]), written in the pass after
    /// decoding.
    pub fn layout(self, layout: ImageLayout) -> Self {
        Images {
            decoding: Decoding {
                layout,
                ..self.decoding
            },
            ..self
        }
    }

    /// Samples shrunk by `factor`, 1 (none, the default), 2, 4 or 8: each
    /// pixel the rounded mean of a box of `factor` x `factor` (see
    /// [`Images`]). Another factor is an [`Error::InvalidParameter`] (the
    /// factors of libjpeg's decode-time scaling, so that a decoder with it
    /// gives the same shapes).
    pub fn downscale(self, factor: usize) -> Result<Self> {
        if ![1, 2, 4, 8].contains(&factor) {
            return Err(Error::invalid(
                format_args!("downscale of sensor `{}`", self.name),
                format!("{factor}; the factors are 1, 2, 4 and 8"),
            ));
        }
        Ok(Images {
            decoding: Decoding {
                factor,
                ..self.decoding
            },
            ..self
        })
    }

    /// Whether the decoders refuse what they would otherwise decode with a
    /// warning: a truncated JPEG (its missing part filled in gray; also
    /// one cut in its last row of blocks, which adl checks itself), junk
    /// between a JPEG's markers, a PNG's chunk of a wrong length. Strict
    /// (`true`) by default.
    pub fn strict(self, strict: bool) -> Self {
        Images {
            decoding: Decoding {
                strict,
                ..self.decoding
            },
            ..self
        }
    }

    /// Frame `index`'s files, its location and how it is decoded.
    pub(crate) fn files(&self, index: usize) -> Result<(&Files, &Location, Decoding)> {
        Ok((&self.frames, self.frames.location(index)?, self.decoding))
    }

    /// The frames' files, a sample's in its place: paths, or objects in a
    /// store.
    pub fn frames(&self) -> &[Location] {
        self.frames.locations()
    }

    /// The size of every frame in its file, (height, width), as the first
    /// frame's header says.
    pub fn frame_size(&self) -> (usize, usize) {
        self.size
    }

    /// The shape of a sample: `[H, W, 3]` or `[3, H, W]`, after the
    /// downscale.
    pub fn sample_shape(&self) -> [usize; 3] {
        let factor = self.decoding.factor;
        self.decoding.layout.shape(
            self.size.0.div_ceil(factor),
            self.size.1.div_ceil(factor),
            3,
        )
    }

    /// Frame `index`'s values, decoded from its file's bytes read ahead
    /// (`fetched`) or read now, with this thread's scratch buffers, a
    /// decoder's panic caught. The error of a frame that does not decode
    /// names its file, the sensor and the sample.
    fn decode(&self, index: usize, fetched: Option<Contents>) -> Result<Vec<u8>> {
        let location = self.frames.location(index)?;
        SCRATCH.with_borrow_mut(|Scratch { file, pixels }| {
            let read;
            let bytes: &[u8] = match (&fetched, location.as_path()) {
                (Some(bytes), _) => bytes,
                // A local file, read into this thread's buffer.
                (None, Some(path)) => {
                    file.clear();
                    std::fs::File::open(path)
                        .and_then(|mut f| f.read_to_end(file))
                        .map_err(|e| {
                            location
                                .error_io("cannot read", e)
                                .in_sensor(&self.name, Some(index))
                        })?;
                    file
                }
                // An object, in the buffer its answer came in.
                (None, None) => {
                    read = self.frames.read(index)?;
                    &read
                }
            };
            self.decoding
                .decode_caught(bytes, self.size, &self.frames.locations()[0], pixels)
                .map_err(|reason| location.error(reason).in_sensor(&self.name, Some(index)))
        })
    }
}

impl Sensor for Images {
    type Sample = Array3<u8>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Array3<u8>> {
        self.get_fetched(index, Fetched::Nothing)
    }

    /// The frame decoded from its file read ahead (`fetched`), or read now.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Array3<u8>> {
        let values = self.decode(index, fetched.take::<Contents>())?;
        Array3::from_shape_vec(self.sample_shape(), values)
            .map_err(|e| Error::internal("Images::get", e))
    }

    /// A file per sample (its origin: the file, no row), read whole ahead
    /// of the `get` that decodes it.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(&self.frames)
    }
}
