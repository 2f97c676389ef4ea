//! [`Npy`]: a sensor over a memory-mapped NumPy `.npy` array.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use adl_core::{Error, Result, Sensor, Timestamps};
use memmap2::Mmap;
use ndarray::{Array, ArrayViewD, Dimension, IxDyn};
use ndarray_npy::{ViewElement, ViewNpyError, ViewNpyExt};

use crate::mapped::map;
use crate::timestamps::sensor_folder;

/// An element type an [`Npy`] sensor reads: the NumPy types with a Rust
/// twin of the same bytes (`u8`..`u64`, `i8`..`i64`, `f32`, `f64`).
pub trait NpyElement: ViewElement + bytemuck::Pod + Send + Sync {}

impl<T: ViewElement + bytemuck::Pod + Send + Sync> NpyElement for T {}

/// A sensor whose samples are the rows of a NumPy `.npy` array: sample `i`
/// is `array[i]`, an array of `D` (one axis fewer than the file's; `IxDyn`
/// for any). The file is memory-mapped: opening it reads its header, a
/// sample's read copies that sample's bytes out of the page cache.
///
/// The file is checked when it is opened: a NumPy array (magic, header),
/// of element type `T`, in C order, native byte order, with all the bytes
/// its header describes and no more, with one row per timestamp. Each
/// failure is an [`Error::Source`] that names the file and the sensor.
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
    path: PathBuf,
    mapped: Mmap,
    /// Where the data starts in the file (after the header).
    offset: usize,
    /// The shape of one sample.
    sample_shape: D,
    /// Elements per sample.
    sample_len: usize,
    timestamps: Timestamps,
    element: PhantomData<fn() -> T>,
}

impl<T, D: std::fmt::Debug> std::fmt::Debug for Npy<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Npy")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("samples", &self.timestamps.as_slice().len())
            .field("sample_shape", &self.sample_shape)
            .finish()
    }
}

impl<T: NpyElement, D: Dimension> Npy<T, D> {
    /// Sensor `name` over the array in the `.npy` file at `path`, a row
    /// per timestamp of `timestamps`.
    pub fn open(name: &str, path: impl AsRef<Path>, timestamps: Timestamps) -> Result<Self> {
        let path = path.as_ref();
        Self::open_checked(name, path, timestamps).map_err(|e| e.in_sensor(name, None))
    }

    /// The sensor of the folder `dir`, in the layout of a sensor per
    /// folder: named as the folder, its array in `data.npy`, its
    /// timestamps in the first of [`TIMESTAMP_FILES`](crate::TIMESTAMP_FILES) that is there (read
    /// by [`read_timestamps`](crate::read_timestamps)).
    pub fn in_folder(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let (name, timestamps) = sensor_folder(dir)?;
        Self::open(&name, dir.join("data.npy"), timestamps)
    }

    fn open_checked(name: &str, path: &Path, timestamps: Timestamps) -> Result<Self> {
        let mapped = map(path)?;
        let view = ArrayViewD::<T>::view_npy(&mapped).map_err(|e| {
            let expected = std::any::type_name::<T>();
            let words = match &e {
                ViewNpyError::WrongDescriptor(found) => {
                    format!("holds elements of type {found}, not {expected}")
                }
                _ => describe(&e),
            };
            Error::file(path, words)
        })?;
        let shape = view.shape().to_vec();
        if shape.is_empty() {
            return Err(Error::file(
                path,
                "holds a single value (a 0-dimensional array); a sensor's file has its samples along the first axis",
            ));
        }
        if let Some(ndim) = D::NDIM
            && shape.len() != ndim + 1
        {
            return Err(Error::file(
                path,
                format!(
                    "holds an array of shape {shape:?}; a sample of this sensor has {ndim} axes, so its file needs {} (samples first)",
                    ndim + 1
                ),
            ));
        }
        if !view.is_standard_layout() {
            return Err(Error::file(
                path,
                "is stored in Fortran order; rows are read in C order (save it with numpy.ascontiguousarray)",
            ));
        }
        let rows = shape[0];
        if rows != timestamps.as_slice().len() {
            return Err(Error::file(
                path,
                format!(
                    "holds {rows} samples (shape {shape:?}) for {} timestamps",
                    timestamps.as_slice().len()
                ),
            ));
        }
        let sample_shape = D::from_dimension(&IxDyn(&shape[1..]))
            .ok_or_else(|| Error::internal("Npy::open", "sample shape of the checked rank"))?;
        let sample_len = shape[1..].iter().product::<usize>();
        let data_bytes = view.len() * std::mem::size_of::<T>();
        let offset = mapped.len() - data_bytes;
        Ok(Npy {
            name: name.to_string(),
            path: path.to_path_buf(),
            mapped,
            offset,
            sample_shape,
            sample_len,
            timestamps,
            element: PhantomData,
        })
    }

    /// The file the samples are read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The shape of one sample (the file's shape without its first axis).
    pub fn sample_shape(&self) -> &[usize] {
        self.sample_shape.slice()
    }
}

impl<T: NpyElement, D: Dimension> Sensor for Npy<T, D> {
    type Sample = Array<T, D>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Array<T, D>> {
        let len = self.timestamps.as_slice().len();
        if index >= len {
            return Err(Error::out_of_range(
                format_args!("sensor `{}`", self.name),
                index,
                len,
            ));
        }
        let bytes = self.sample_len * std::mem::size_of::<T>();
        let start = self.offset + index * bytes;
        let row = self
            .mapped
            .get(start..start + bytes)
            .ok_or_else(|| Error::internal("Npy::get", "a checked row past the mapped file"))?;
        // One copy out of the page cache, into memory aligned for `T`.
        let values: Vec<T> = bytemuck::pod_collect_to_vec(row);
        Array::from_shape_vec(self.sample_shape.clone(), values)
            .map_err(|e| Error::internal("Npy::get", e))
    }
}

/// A `.npy` file's failure, in words.
pub(crate) fn describe(error: &ViewNpyError) -> String {
    match error {
        ViewNpyError::Io(e) => format!("cannot read: {e}"),
        ViewNpyError::ParseHeader(e) => format!("not a NumPy .npy file ({e})"),
        ViewNpyError::InvalidData(e) => format!("holds values invalid for the element type: {e}"),
        ViewNpyError::LengthOverflow => "its header describes an array too large to address".into(),
        ViewNpyError::WrongNdim(_, found) => format!("holds a {found}-dimensional array"),
        ViewNpyError::WrongDescriptor(found) => format!("holds elements of type {found}"),
        ViewNpyError::NonNativeEndian => {
            "its elements are in the other byte order (save it in native order, e.g. with array.astype('<f4'))"
                .into()
        }
        ViewNpyError::MisalignedData => {
            "its data does not start at an address aligned for the element type".into()
        }
        ViewNpyError::MissingBytes(n) => {
            format!("truncated: {n} bytes of the data its header describes are missing")
        }
        ViewNpyError::ExtraBytes(n) => format!("{n} bytes follow the data its header describes"),
        other => other.to_string(),
    }
}
