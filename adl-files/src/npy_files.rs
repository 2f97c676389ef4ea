//! [`NpyFiles`]: a sensor over a sequence of NumPy `.npy` files, a file
//! per sample.

use adl_core::storage::{Fetched, Storage};
use adl_core::{Result, Sensor, SensorOrigin, Timestamps};
use ndarray::{Array, Dimension, IxDyn};

use crate::location::Location;
use crate::npy::refusal;
use crate::npy_element::NpyElement;
use crate::npy_header::read_layout;
use crate::per_file::Files;
use crate::timestamps::sensor_folder;

/// A sensor whose samples are whole NumPy `.npy` files, one per timestamp:
/// sample `i` is the array in file `i`, of element type `T` and `D` axes
/// (`IxDyn` for any), its shape the file's own. For data whose size
/// changes from one sample to the next, such as lidar scans of `[n_i, 4]`
/// points, kept as a file per scan. (A sensor whose samples all have one
/// shape is better kept in one file, read by [`Npy`](crate::Npy).)
///
/// **Files.** From a folder ([`open`](NpyFiles::open),
/// [`in_folder`](NpyFiles::in_folder)), the files named `*.npy` (in any
/// case; hidden files and the timestamps files of
/// [`TIMESTAMP_FILES`](crate::TIMESTAMP_FILES) passed over), in the natural order of their names:
/// numbers compare as numbers, so `scan_9.npy` comes before
/// `scan_10.npy`, and zero-padded names keep their order. Or a list of
/// files, in its order ([`from_files`](NpyFiles::from_files)). A folder
/// or file may be a [`Location`] in an object store (a URL such as
/// `s3://bucket/drive/lidar/`, feature `store`): the folder is the objects
/// under its prefix (not in its subfolders), listed once when it is
/// opened, its files chosen and ordered as a local folder's. A plain HTTP
/// server cannot list a folder: give it the files.
///
/// **Reads.** A file is read whole (an object with one GET), then its
/// values are copied once into the sample's array. The sensor reads ahead (its [`Sensor::storage`] does
/// [`Ahead::Reads`](adl_core::storage::Ahead::Reads)): in a
/// loader with a read stage the file's bytes are read by the stage's
/// readers and kept until the sample's [`get`](Sensor::get) parses them;
/// a `get` without a fetch reads the file itself.
///
/// **Checks.** At opening: a file per timestamp, and the first file's
/// array. On each read: the file is a NumPy array (magic, header), of
/// element type `T`, in native byte order, in C order, of `D`'s number of
/// axes, with all the bytes its header describes and no more, as
/// [`Npy`](crate::Npy) checks its file. Every failure is an
/// [`Error::Source`](adl_core::Error::Source) that names the file (an
/// object's URL), the sensor and, for a sample's file, the sample.
///
/// ```
/// use adl::Sensor;
/// use adl::files::NpyFiles;
/// use adl::ndarray::{Array2, Ix2};
///
/// # let dir = tempfile::tempdir()?;
/// # let folder = dir.path().join("lidar");
/// # std::fs::create_dir(&folder)?;
/// # for (k, n) in [3usize, 5, 2].into_iter().enumerate() {
/// #     ndarray_npy::write_npy(folder.join(format!("{k:06}.npy")), &Array2::<f32>::from_elem((n, 4), k as f32))?;
/// # }
/// # ndarray_npy::write_npy(folder.join("ts.npy"), &adl::ndarray::array![0.0, 0.1, 0.2])?;
/// // lidar/: 000000.npy, 000001.npy, 000002.npy (float32 [n, 4]) and ts.npy
/// let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(&folder)?;
/// assert_eq!(lidar.name(), "lidar");
/// assert_eq!(lidar.len(), 3);
/// assert_eq!(lidar.get(1)?, Array2::from_elem((5, 4), 1.0));
/// assert_eq!(lidar.get(2)?.shape(), &[2, 4]);
///
/// let err = NpyFiles::<f64, Ix2>::in_folder(&folder).unwrap_err();
/// assert!(err.to_string().ends_with("000000.npy (sensor `lidar`, sample 0): holds elements of type '<f4', not f64"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct NpyFiles<T, D = IxDyn> {
    name: String,
    /// The files, and those read ahead ([`Sensor::read_ahead`]) not yet parsed.
    files: Files,
    timestamps: Timestamps,
    /// A file's bytes as a sample: [`parse`] for `T` and `D`, taken where
    /// the sensor is opened, so that `T` is checked to be an
    /// [`NpyElement`] there, once, and not wherever the sensor is used.
    parse: ParseFile<T, D>,
}

/// How a file's bytes become a sample, or what is wrong with them, in
/// words.
type ParseFile<T, D> = fn(&[u8]) -> Result<Array<T, D>, String>;

impl<T, D> Clone for NpyFiles<T, D> {
    fn clone(&self) -> Self {
        NpyFiles {
            name: self.name.clone(),
            files: self.files.clone(),
            timestamps: self.timestamps.clone(),
            parse: self.parse,
        }
    }
}

impl<T, D> std::fmt::Debug for NpyFiles<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpyFiles")
            .field("name", &self.name)
            .field("files", &self.files.locations().len())
            .field("first", &self.files.locations().first())
            .finish()
    }
}

impl<T: NpyElement, D: Dimension> NpyFiles<T, D> {
    /// Sensor `name` over the `.npy` files in the folder `dir` (a path, or
    /// a folder in an object store; see [`NpyFiles`]: in natural order,
    /// its timestamps files passed over), a file per timestamp of
    /// `timestamps`.
    pub fn open(name: &str, dir: impl Into<Location>, timestamps: Timestamps) -> Result<Self> {
        let dir = dir.into();
        let files = Files::in_folder(name, &dir, &["npy"], "arrays")?;
        Self::checked(name, &dir, files, timestamps)
    }

    /// Sensor `name` over the `.npy` files `files` (paths, or URLs of
    /// objects in a store), in that order, a file per timestamp of
    /// `timestamps`.
    pub fn from_files<L: Into<Location>>(
        name: &str,
        files: impl IntoIterator<Item = L>,
        timestamps: Timestamps,
    ) -> Result<Self> {
        let (place, files) = Files::given(name, files, "files")?;
        Self::checked(name, &place, files, timestamps)
    }

    /// The sensor of the folder `dir` (a path, or a folder in an object
    /// store), in the layout of a sensor per folder: named as the folder,
    /// its samples the folder's `.npy` files (as [`open`](NpyFiles::open)
    /// finds them), its timestamps in the first of
    /// [`TIMESTAMP_FILES`](crate::TIMESTAMP_FILES) that is there (read by
    /// [`read_timestamps`](crate::read_timestamps)).
    pub fn in_folder(dir: impl Into<Location>) -> Result<Self> {
        let dir = dir.into();
        let (name, timestamps) = sensor_folder(&dir)?;
        Self::open(&name, dir, timestamps)
    }

    /// Checked: a file per timestamp, the first file's array of the
    /// sensor's type. `place` is where the files are, for the messages.
    fn checked(
        name: &str,
        place: &Location,
        files: Vec<Location>,
        timestamps: Timestamps,
    ) -> Result<Self> {
        let files = Files::new(name, place, files, timestamps.as_slice().len(), "arrays")?;
        let sensor = NpyFiles {
            name: name.to_string(),
            files,
            timestamps,
            parse: parse::<T, D>,
        };
        sensor.read(0, Fetched::Nothing)?;
        Ok(sensor)
    }
}

impl<T, D: Dimension> NpyFiles<T, D> {
    /// The files, a sample's in its place: paths, or objects in a store.
    pub fn files(&self) -> &[Location] {
        self.files.locations()
    }

    /// Sample `index`'s array, from its file's bytes read ahead
    /// (`fetched`) or read now.
    fn read(&self, index: usize, fetched: Fetched) -> Result<Array<T, D>> {
        let location = self.files.location(index)?;
        let bytes = self.files.contents(index, fetched)?;
        (self.parse)(&bytes)
            .map_err(|reason| location.error(reason).in_sensor(&self.name, Some(index)))
    }
}

/// The array of the `.npy` file whose bytes are `bytes`, checked as the
/// sensor's sample: its element type, byte order, order and number of
/// axes, and its length; or what is wrong with it, in words.
fn parse<T: NpyElement, D: Dimension>(bytes: &[u8]) -> Result<Array<T, D>, String> {
    let layout = read_layout::<T>(bytes, bytes.len() as u64).map_err(|e| refusal::<T>(&e))?;
    let c_order = layout.c_order();
    let shape = layout.shape;
    if let Some(ndim) = D::NDIM
        && shape.len() != ndim
    {
        return Err(format!(
            "holds an array of shape {shape:?}; a sample of this sensor has {ndim} axes"
        ));
    }
    if !c_order {
        return Err(
            "is stored in Fortran order; arrays are read in C order (save it with numpy.ascontiguousarray)"
                .into(),
        );
    }
    // One copy, into memory aligned for `T` (the bytes read need not be).
    let values: Vec<T> = bytemuck::pod_collect_to_vec(&bytes[layout.offset..]);
    Array::from_shape_vec(IxDyn(&shape), values)
        .and_then(|array| array.into_dimensionality::<D>())
        .map_err(|e| format!("holds an array of shape {shape:?} that cannot be read: {e}"))
}

impl<T, D: Dimension> Sensor for NpyFiles<T, D> {
    type Sample = Array<T, D>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Array<T, D>> {
        self.read(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Array<T, D>> {
        self.read(index, fetched)
    }

    /// A file per sample (its origin: the file, no row), read whole ahead
    /// of the `get` that decodes it.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(&self.files)
    }
}
