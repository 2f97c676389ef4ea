//! [`EncodedImages`]: a camera whose samples are its frames' files, not
//! yet decoded ([`EncodedImage`]), for a decoder that decodes only what
//! it keeps ([`CropDecoder`](crate::CropDecoder)).

use std::sync::Arc;

use adl_core::storage::{Fetched, Storage};
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use ndarray::Array3;

use crate::decode::Decoding;
use crate::images::{Images, decode_in_thread};
use crate::location::Location;
use crate::per_file::Contents;

/// One frame as its file holds it: a JPEG's or PNG's bytes, read but not
/// decoded, with where it came from (for the errors of its decoding) and
/// its sensor's settings. Cheap to clone (the bytes are shared).
#[derive(Clone)]
pub struct EncodedImage {
    bytes: Arc<Contents>,
    location: Location,
    sensor: Arc<str>,
    index: usize,
    size: (usize, usize),
    /// The sensor's first frame, whose size is every frame's (for the
    /// error of a frame of another size).
    first: Arc<Location>,
    decoding: Decoding,
}

impl std::fmt::Debug for EncodedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncodedImage")
            .field("location", &self.location)
            .field("sensor", &self.sensor)
            .field("index", &self.index)
            .field("bytes", &self.bytes.len())
            .field("size", &self.size)
            .finish()
    }
}

impl EncodedImage {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file: a path, or an object in a store.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The sensor it is a frame of.
    pub fn sensor(&self) -> &str {
        &self.sensor
    }

    /// Its index in the sensor.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its size in pixels, (height, width): the sensor's frame size (its
    /// first frame's), which decoding checks.
    pub fn size(&self) -> (usize, usize) {
        self.size
    }

    /// Whether its decoding is strict (as [`Images::strict`] set it).
    pub fn strict(&self) -> bool {
        self.decoding.strict
    }

    /// The frame decoded whole, as its sensor's `get` decodes it (its
    /// layout, downscale and strictness). A frame that does not decode is
    /// an [`Error::Source`] that names the file, the sensor and the
    /// sample.
    pub fn decode(&self) -> Result<Array3<u8>> {
        let values = self.decoded_with(self.decoding)?;
        let factor = self.decoding.factor;
        let shape = self.decoding.layout.shape(
            self.size.0.div_ceil(factor),
            self.size.1.div_ceil(factor),
            3,
        );
        Array3::from_shape_vec(shape, values).map_err(|e| Error::internal("EncodedImage", e))
    }

    /// The frame decoded whole, `[H, W, 3]` at full size, strict as its
    /// sensor is.
    pub(crate) fn decode_full(&self) -> Result<Array3<u8>> {
        let decoding = Decoding {
            layout: ImageLayout::Hwc,
            factor: 1,
            ..self.decoding
        };
        let values = self.decoded_with(decoding)?;
        Array3::from_shape_vec((self.size.0, self.size.1, 3), values)
            .map_err(|e| Error::internal("EncodedImage", e))
    }

    fn decoded_with(&self, decoding: Decoding) -> Result<Vec<u8>> {
        decode_in_thread(decoding, &self.bytes, self.size, &*self.first)
            .map_err(|reason| self.error(reason))
    }

    /// The error `reason` of this frame: naming its file, its sensor and
    /// its index.
    pub(crate) fn error(&self, reason: impl std::fmt::Display) -> Error {
        self.location
            .error(reason)
            .in_sensor(&self.sensor, Some(self.index))
    }
}

/// A camera whose samples are its frames' files, read (ahead, as
/// [`Images`]' are) but not decoded: [`Images::encoded`]. Its samples go
/// to a decoder that decodes only what it keeps,
/// [`CropDecoder`](crate::CropDecoder), or to
/// [`EncodedImage::decode`]; reading and decoding then happen in
/// different stages (the read stage and the workers').
///
/// ```
/// use adl::Sensor;
/// use adl::files::Images;
///
/// # let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
/// let camera = Images::in_folder(data.join("camera"))?;
/// let whole = camera.get(2)?;
/// let files = camera.encoded();
/// let frame = files.get(2)?;
/// assert_eq!(frame.size(), (24, 32));
/// assert!(frame.location().to_string().ends_with("frame_9.jpg"));
/// assert_eq!(frame.decode()?, whole);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct EncodedImages {
    images: Images,
    name: Arc<str>,
    first: Arc<Location>,
}

/// The encoded form of a camera, here beside [`EncodedImages`], so that
/// [`Images`] itself knows nothing of it.
impl Images {
    /// The same camera, its samples the frames' files read but not
    /// decoded ([`EncodedImages`]), for a decoder that decodes only the
    /// part it keeps ([`CropDecoder`](crate::CropDecoder)).
    pub fn encoded(self) -> EncodedImages {
        EncodedImages::new(self)
    }
}

impl EncodedImages {
    fn new(images: Images) -> Self {
        let name = Arc::from(images.name());
        // An `Images` has a frame at least (checked when it is opened).
        let first = Arc::new(images.frames()[0].clone());
        EncodedImages {
            images,
            name,
            first,
        }
    }

    /// The camera whose files these are.
    pub fn images(&self) -> &Images {
        &self.images
    }
}

impl Sensor for EncodedImages {
    type Sample = EncodedImage;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        self.images.metadata()
    }

    /// Frame `index`'s file, read now (a failure names the file, the
    /// sensor and the sample).
    fn get(&self, index: usize) -> Result<EncodedImage> {
        self.get_fetched(index, Fetched::Nothing)
    }

    /// Frame `index`'s file: read ahead (`fetched`), or read now.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<EncodedImage> {
        let (files, location, decoding) = self.images.files(index)?;
        Ok(EncodedImage {
            bytes: Arc::new(files.contents(index, fetched)?),
            location: location.clone(),
            sensor: Arc::clone(&self.name),
            index,
            size: self.images.frame_size(),
            first: Arc::clone(&self.first),
            decoding,
        })
    }

    /// As [`Images`]: a file per sample, read whole ahead of the `get`.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.images.storage()
    }
}
