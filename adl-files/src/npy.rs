//! [`Npy`]: a sensor over a memory-mapped NumPy `.npy` array.

use adl_core::storage::{Ahead, Fetched, Storage};
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use memmap2::Mmap;
use ndarray::{Array, ArrayViewD, Dimension, IxDyn};
use ndarray_npy::{ViewNpyError, ViewNpyExt};

use crate::location::Location;
use crate::mapped::map;
use crate::npy_element::NpyElement;
use crate::npy_header::{describe, header_fits, header_len, read_layout};
use crate::object::{Data, Object};
use crate::timestamps::sensor_folder;

/// How many bytes of a `.npy` object are read to find its header: NumPy's
/// headers are padded to 64 bytes and rarely longer than 128; a longer
/// one is read with a second request.
const HEADER_READ: u64 = 4096;

/// A sensor whose samples are the rows of a NumPy `.npy` array: sample `i`
/// is `array[i]`, an array of `D` (one axis fewer than the file's; `IxDyn`
/// for any). A local file is memory-mapped: opening it reads its header, a
/// sample's read copies that sample's bytes out of the page cache. A file
/// in an object store (a [`Location`] that is a URL) is read with ranged
/// requests: one for the header when it is opened, one per sample for its
/// row.
///
/// The file is checked when it is opened: a NumPy array (magic, header),
/// of element type `T`, in C order, native byte order, with all the bytes
/// its header describes and no more, with one row per timestamp (for an
/// object in a store, from its header and its size). Each failure is an
/// [`Error::Source`] that names the file and the sensor; a sample that
/// cannot be read from a store names the sample too.
///
/// ```
/// use adl::Sensor;
/// use adl::files::Npy;
/// use adl::ndarray::{Ix1, array};
///
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("imu.npy");
/// # ndarray_npy::write_npy(&path, &adl::ndarray::array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]])?;
/// // imu.npy: float64 [3, 2]
/// let times = adl::Timestamps::new("imu", vec![0.0, 0.01, 0.02])?;
/// let imu: Npy<f64, Ix1> = Npy::open("imu", &path, times)?;
/// assert_eq!(imu.get(2)?, array![5.0, 6.0]);
///
/// let err = Npy::<f32, Ix1>::open("imu", &path, imu.metadata().clone()).unwrap_err();
/// assert!(err.to_string().contains("(sensor `imu`): holds elements of type '<f8', not f32"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Npy<T, D = IxDyn> {
    name: String,
    location: Location,
    rows: Rows,
    /// Where the data starts in the file (after the header).
    offset: usize,
    /// The shape of one sample.
    sample_shape: D,
    /// Elements per sample.
    sample_len: usize,
    timestamps: Timestamps,
    /// A row's bytes as elements: bytemuck's copy for `T`, taken where
    /// the sensor is opened, so that `T` is checked to be an
    /// [`NpyElement`] there, once, and not wherever the sensor is used.
    row_elements: fn(&[u8]) -> Vec<T>,
}

impl<T, D: std::fmt::Debug> std::fmt::Debug for Npy<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Npy")
            .field("name", &self.name)
            .field("location", &self.location)
            .field("samples", &self.timestamps.as_slice().len())
            .field("sample_shape", &self.sample_shape)
            .finish()
    }
}

impl<T: NpyElement, D: Dimension> Npy<T, D> {
    /// Sensor `name` over the array in the `.npy` file at `location` (a
    /// path, or a URL in an object store), a row per timestamp of
    /// `timestamps`.
    pub fn open(name: &str, location: impl Into<Location>, timestamps: Timestamps) -> Result<Self> {
        let location = location.into();
        Self::open_checked(name, location, timestamps).map_err(|e| e.in_sensor(name, None))
    }

    /// The sensor of the folder `dir` (a path, or a folder URL in an object
    /// store), in the layout of a sensor per folder: named as the folder,
    /// its array in `data.npy`, its timestamps in the first of
    /// [`TIMESTAMP_FILES`](crate::TIMESTAMP_FILES) that is there (read by
    /// [`read_timestamps`](crate::read_timestamps); a folder in a store is
    /// listed once to find it, a folder on a plain HTTP server asked for
    /// each name in turn).
    pub fn in_folder(dir: impl Into<Location>) -> Result<Self> {
        let dir = dir.into();
        let (name, timestamps) = sensor_folder(&dir)?;
        Self::open(&name, dir.join("data.npy"), timestamps)
    }

    fn open_checked(name: &str, location: Location, timestamps: Timestamps) -> Result<Self> {
        let words = |e: ViewNpyError| refusal::<T>(&e);
        let (rows, shape, offset, c_order) = match location.as_path() {
            Some(path) => {
                let mapped = map(path)?;
                let view = header_fits(&mapped, mapped.len() as u64)
                    .and_then(|()| ArrayViewD::<T>::view_npy(&mapped))
                    .map_err(|e| location.error(words(e)))?;
                let shape = view.shape().to_vec();
                let c_order = view.is_standard_layout();
                let offset = mapped.len() - view.len() * size_of::<T>();
                (Rows::Mapped(mapped), shape, offset, c_order)
            }
            None => {
                let object = location.object()?;
                let (mut start, size) = object.get_start(HEADER_READ)?;
                if let Some(len) = header_len(&start)
                    && len > start.len()
                    && len as u64 <= size
                {
                    start = object.get_range(0..len as u64)?;
                }
                let layout =
                    read_layout::<T>(&start, size).map_err(|e| location.error(words(e)))?;
                let c_order = layout.c_order();
                (Rows::Remote(object), layout.shape, layout.offset, c_order)
            }
        };
        Self::checked(name, location, rows, shape, offset, c_order, timestamps)
    }

    /// Sensor `name` over the array `array` of the NumPy `.npz` archive at
    /// `location` (a path or a URL), a row per timestamp of `timestamps`.
    /// An `.npz` member is compressed or not, but not mappable in place:
    /// the array is read out whole when the sensor is opened (its rows are
    /// then copied from memory), and checked as an `.npy` file is.
    ///
    /// ```
    /// use adl::Sensor;
    /// use adl::files::Npy;
    /// use adl::ndarray::{Ix1, array};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("rig.npz");
    /// # let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rig.npz");
    /// # std::fs::copy(fixture, &path)?;
    /// // rig.npz, from numpy.savez_compressed(path, imu=float32 [3, 2], gps=...)
    /// let times = adl::Timestamps::new("imu", vec![0.0, 0.01, 0.02])?;
    /// let imu: Npy<f32, Ix1> = Npy::from_npz("imu", &path, "imu", times.clone())?;
    /// assert_eq!(imu.get(1)?, array![2.0f32, 3.0]);
    ///
    /// let err = Npy::<f32, Ix1>::from_npz("imu", &path, "lidar", times).unwrap_err();
    /// assert!(err.to_string().ends_with("rig.npz (sensor `imu`): has no array `lidar`; its arrays are [imu, gps]"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_npz(
        name: &str,
        location: impl Into<Location>,
        array: &str,
        timestamps: Timestamps,
    ) -> Result<Self> {
        let location = location.into();
        let opened = crate::npz::member(&location, array).and_then(|bytes| {
            let layout = read_layout::<T>(&bytes, bytes.len() as u64)
                .map_err(|e| location.error(format!("array `{array}`: {}", refusal::<T>(&e))))?;
            let c_order = layout.c_order();
            let (shape, offset) = (layout.shape, layout.offset);
            Self::checked(
                name,
                location.clone(),
                Rows::Memory(bytes),
                shape,
                offset,
                c_order,
                timestamps,
            )
        });
        opened.map_err(|e| e.in_sensor(name, None))
    }

    /// A sensor over `rows`, once its header was read: the checks every
    /// file passes, whatever it is read from.
    fn checked(
        name: &str,
        location: Location,
        rows: Rows,
        shape: Vec<usize>,
        offset: usize,
        c_order: bool,
        timestamps: Timestamps,
    ) -> Result<Self> {
        if shape.is_empty() {
            return Err(location.error(
                "holds a single value (a 0-dimensional array); a sensor's file has its samples along the first axis",
            ));
        }
        if let Some(ndim) = D::NDIM
            && shape.len() != ndim + 1
        {
            return Err(location.error(
                format!(
                    "holds an array of shape {shape:?}; a sample of this sensor has {ndim} axes, so its file needs {} (samples first)",
                    ndim + 1
                ),
            ));
        }
        if !c_order {
            return Err(location.error(
                "is stored in Fortran order; rows are read in C order (save it with numpy.ascontiguousarray)",
            ));
        }
        let samples = shape[0];
        if samples != timestamps.as_slice().len() {
            return Err(location.error(format!(
                "holds {samples} samples (shape {shape:?}) for {} timestamps",
                timestamps.as_slice().len()
            )));
        }
        let sample_shape = D::from_dimension(&IxDyn(&shape[1..]))
            .ok_or_else(|| Error::internal("Npy::open", "sample shape of the checked rank"))?;
        let sample_len = shape[1..].iter().product::<usize>();
        Ok(Npy {
            name: name.to_string(),
            location,
            rows,
            offset,
            sample_shape,
            sample_len,
            timestamps,
            row_elements: bytemuck::pod_collect_to_vec::<u8, T>,
        })
    }
}

impl<T, D: Dimension> Npy<T, D> {
    /// The file the samples are read from.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The shape of one sample (the file's shape without its first axis).
    pub fn sample_shape(&self) -> &[usize] {
        self.sample_shape.slice()
    }
}

impl<T, D: Dimension> Sensor for Npy<T, D> {
    type Sample = Array<T, D>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    /// Where its samples are: see its [`Storage`] impl.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }

    fn get(&self, index: usize) -> Result<Array<T, D>> {
        self.read(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Array<T, D>> {
        self.read(index, fetched)
    }
}

impl<T, D: Dimension> Npy<T, D> {
    /// Where row `index` lies in the file, in bytes.
    fn row(&self, index: usize) -> std::ops::Range<usize> {
        let bytes = self.sample_len * size_of::<T>();
        let start = self.offset + index * bytes;
        start..start + bytes
    }

    /// The bytes of row `index` of an object, read now.
    fn remote_row(&self, object: &Object, index: usize) -> Result<Data> {
        let row = self.row(index);
        object
            .get_range(row.start as u64..row.end as u64)
            .map_err(|e| e.in_sensor(&self.name, Some(index)))
    }

    /// Sample `index`, from the row read ahead for it (`fetched`, a row of
    /// an object) or else read now.
    fn read(&self, index: usize, fetched: Fetched) -> Result<Array<T, D>> {
        let len = self.timestamps.as_slice().len();
        if index >= len {
            return Err(Error::out_of_range(
                format_args!("sensor `{}`", self.name),
                index,
                len,
            ));
        }
        let range = self.row(index);
        let bytes = range.len();
        let values: Vec<T> = match &self.rows {
            Rows::Mapped(mapped) => {
                let row = mapped.get(range).ok_or_else(|| {
                    Error::internal("Npy::get", "a checked row past the mapped file")
                })?;
                // One copy out of the page cache, into memory aligned for `T`.
                (self.row_elements)(row)
            }
            Rows::Memory(memory) => {
                let row = memory.get(range).ok_or_else(|| {
                    Error::internal("Npy::get", "a checked row past the array in memory")
                })?;
                (self.row_elements)(row)
            }
            Rows::Remote(_) if bytes == 0 => Vec::new(),
            Rows::Remote(object) => {
                let row = match fetched.take::<Data>() {
                    Some(row) => row,
                    None => self.remote_row(object, index)?,
                };
                if row.len() != bytes {
                    return Err(self.location.error(format!(
                        "sample {index}: {} bytes read of its {bytes} (the object changed since it was opened?)",
                        row.len()
                    )).in_sensor(&self.name, Some(index)));
                }
                // One copy, into memory aligned for `T`.
                (self.row_elements)(&row[..])
            }
        };
        Array::from_shape_vec(self.sample_shape.clone(), values)
            .map_err(|e| Error::internal("Npy::get", e))
    }
}

/// Its samples are rows of one file; in object storage each row is read
/// ahead (a ranged read) of the `get` that makes it an array, as a file
/// per sample is.
impl<T, D: Dimension> Storage for Npy<T, D> {
    type Origin = SensorOrigin;

    /// The file, and the row of its first axis.
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        Some(SensorOrigin::new(self.name.as_str(), index).in_file(&self.location, Some(index)))
    }

    fn ahead(&self) -> Ahead {
        match self.rows {
            Rows::Remote(_) => Ahead::Reads,
            _ => Ahead::Nothing,
        }
    }

    /// Row `index`'s bytes, for an object's rows (nothing for a mapped
    /// file or an array in memory, an empty row, or an index out of
    /// range).
    fn fetch(&self, index: usize) -> Result<Fetched> {
        match &self.rows {
            Rows::Remote(object)
                if index < self.timestamps.as_slice().len() && !self.row(index).is_empty() =>
            {
                let row = self.remote_row(object, index)?;
                let n = row.len() as u64;
                Ok(Fetched::read(row, n))
            }
            _ => Ok(Fetched::Nothing),
        }
    }
}

/// Where a sensor's rows are read from.
enum Rows {
    /// A local file, mapped.
    Mapped(Mmap),
    /// An object in a store, read a row at a time.
    Remote(Object),
    /// An array read out whole (an `.npz` archive's member): its `.npy`
    /// bytes, header first.
    Memory(Vec<u8>),
}

/// A `.npy` file's failure to be read as an array of `T`, in words: as
/// [`describe`] says it, an element type that is not `T` naming both.
pub(crate) fn refusal<T>(error: &ViewNpyError) -> String {
    match error {
        ViewNpyError::WrongDescriptor(found) => {
            format!(
                "holds elements of type {found}, not {}",
                std::any::type_name::<T>()
            )
        }
        _ => describe(error),
    }
}
