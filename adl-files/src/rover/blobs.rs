//! roverd's blob channels, `jpg` and `npz`: a folder with a file per
//! frame, named by its index (`000000.jpg`, `000001.jpg`, ...).

use adl_core::Result;

use super::element::Element;
use super::jpeg::JpegFrames;
use crate::location::Location;
use crate::npy_header::describe;
use crate::npy_header::header_fits;
use ndarray_npy::npy::header::Header;

/// The file of frame `index` in the blob folder `folder`: its index in
/// six digits (more where it needs them), then `.extension`.
fn blob(folder: &Location, index: usize, extension: &str) -> Location {
    folder.join(&format!("{index:06}.{extension}"))
}

/// The whole file at `location`.
fn read(location: &Location) -> Result<Vec<u8>> {
    match location.as_path() {
        Some(path) => std::fs::read(path).map_err(|e| location.error_io("cannot read", e)),
        None => Ok(location.object()?.get()?.to_vec()),
    }
}

/// A `jpg` channel: a JPEG file per frame.
pub(crate) struct JpegBlobChannel {
    folder: Location,
    jpeg: JpegFrames,
    first: String,
}

impl JpegBlobChannel {
    /// The folder `folder`, its first frame's header checked against the
    /// declared `shape` (`[H, W, 3]`), frames shrunk by `factor`.
    pub(crate) fn open(folder: &Location, shape: &[usize], factor: usize) -> Result<Self> {
        let first = blob(folder, 0, "jpg");
        let bytes = read(&first)?;
        let jpeg = JpegFrames::new(&bytes, shape, factor).map_err(|reason| first.error(reason))?;
        Ok(JpegBlobChannel {
            folder: folder.clone(),
            jpeg,
            first: first.to_string(),
        })
    }

    /// The shape of a decoded frame.
    pub(crate) fn shape(&self) -> [usize; 3] {
        self.jpeg.shape()
    }

    /// The file of frame `index`.
    pub(crate) fn file(&self, index: usize) -> Location {
        blob(&self.folder, index, "jpg")
    }

    /// Frame `index`, decoded: RGB `[H, W, 3]` values, downscaled.
    pub(crate) fn read(&self, index: usize) -> Result<Vec<u8>> {
        let file = self.file(index);
        let bytes = read(&file)?;
        self.jpeg
            .decode(&bytes, &self.first)
            .map_err(|reason| file.error(reason))
    }
}

/// An `npz` channel: an `.npz` archive per frame, the frame its array
/// `data`.
pub(crate) struct NpzBlobChannel {
    folder: Location,
    element: Element,
    shape: Vec<usize>,
}

impl NpzBlobChannel {
    /// The folder `folder` of archives holding arrays of `element`s of
    /// `shape`.
    pub(crate) fn open(folder: &Location, element: Element, shape: &[usize]) -> Self {
        NpzBlobChannel {
            folder: folder.clone(),
            element,
            shape: shape.to_vec(),
        }
    }

    /// The file of frame `index`.
    pub(crate) fn file(&self, index: usize) -> Location {
        blob(&self.folder, index, "npz")
    }

    /// Frame `index`'s bytes, into `out`: its archive's array `data`,
    /// which must be of the channel's type and shape, in C order (as
    /// `numpy.savez` writes a frame). Anything else is refused naming the
    /// file and what it holds.
    pub(crate) fn read_into(&self, index: usize, out: &mut [u8]) -> Result<()> {
        let file = self.file(index);
        let bytes = crate::npz::member(&file, "data")?;
        let refused = |reason: String| file.error(format!("array `data`: {reason}"));
        header_fits(&bytes, bytes.len() as u64).map_err(|e| refused(describe(&e)))?;
        let mut rest: &[u8] = &bytes;
        let header = Header::from_reader(&mut rest)
            .map_err(|e| refused(format!("not a NumPy array ({e})")))?;
        let data = rest;
        let descriptor = header.type_descriptor.to_string();
        if !descriptors(self.element).contains(&descriptor.trim_matches('\'')) {
            return Err(refused(format!(
                "holds elements of type {descriptor}; the channel's type is {} ({})",
                self.element,
                descriptors(self.element)[0]
            )));
        }
        if header.shape != self.shape {
            return Err(refused(format!(
                "is of shape {:?}; the channel's frames are {:?}",
                header.shape, self.shape
            )));
        }
        if header.layout.is_fortran() && self.shape.iter().filter(|&&n| n > 1).count() > 1 {
            return Err(refused(
                "is stored in Fortran order; frames are read in C order".into(),
            ));
        }
        if data.len() != out.len() {
            return Err(refused(format!(
                "holds {} bytes of data; a frame is {} bytes",
                data.len(),
                out.len()
            )));
        }
        out.copy_from_slice(data);
        Ok(())
    }
}

/// The `.npy` descriptors of little-endian `element`s (NumPy's own first).
fn descriptors(element: Element) -> &'static [&'static str] {
    match element {
        Element::U8 => &["|u1", "<u1"],
        Element::I8 => &["|i1", "<i1"],
        Element::U16 => &["<u2"],
        Element::I16 => &["<i2"],
        Element::U32 => &["<u4"],
        Element::I32 => &["<i4"],
        Element::U64 => &["<u8"],
        Element::I64 => &["<i8"],
        Element::F32 => &["<f4"],
        Element::F64 => &["<f8"],
        Element::C64 => &["<c8"],
        Element::C128 => &["<c16"],
    }
}
