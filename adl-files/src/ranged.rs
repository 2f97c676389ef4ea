//! [`RangedFile`]: a file read by byte ranges (a roverd channel's, an
//! MP4 video's): a local file mapped into memory or read a range at a
//! time, or an object in a store read with ranged requests.

use std::ops::{Deref, Range};

use adl_core::Result;
use memmap2::Mmap;

use crate::location::Location;
use crate::mapped::map;
use crate::object::{Data, Object};

/// A file, open for reads of byte ranges.
pub(crate) struct RangedFile {
    location: Location,
    bytes: Bytes,
    len: u64,
}

/// Where a file's bytes are read from.
enum Bytes {
    /// A local file, mapped.
    Mapped(Mmap),
    /// A local file, opened and read at each read: no mapping and no file
    /// descriptor held between reads (see [`RangedFile::open_unmapped`]).
    #[cfg_attr(not(feature = "video"), allow(dead_code))]
    Unmapped(std::path::PathBuf),
    /// A local file that is empty (which cannot be mapped).
    Empty,
    /// An object in a store, read a range at a time.
    Remote(Object),
}

/// Bytes read from a file: borrowed from the mapped file, or an
/// object's answer.
pub(crate) enum Piece<'a> {
    Borrowed(&'a [u8]),
    Owned(Data),
}

impl Deref for Piece<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Piece::Borrowed(bytes) => bytes,
            Piece::Owned(bytes) => bytes,
        }
    }
}

impl RangedFile {
    /// The file at `location`, opened (a local file mapped, an object asked
    /// its size). A file that is not there or cannot be read is refused
    /// naming it; an empty file is opened, with no bytes.
    pub(crate) fn open(location: &Location) -> Result<RangedFile> {
        let (bytes, len) = match location.as_path() {
            Some(path) => {
                let len = std::fs::metadata(path)
                    .map_err(|e| location.error_io("cannot open", e))?
                    .len();
                if len == 0 {
                    (Bytes::Empty, 0)
                } else {
                    let mapped = map(path)?;
                    let len = mapped.len() as u64;
                    (Bytes::Mapped(mapped), len)
                }
            }
            None => {
                let object = location.object()?;
                let (_, len) = object.get_start(1)?;
                (Bytes::Remote(object), len)
            }
        };
        Ok(RangedFile {
            location: location.clone(),
            bytes,
            len,
        })
    }

    /// The file at `location`, as [`open`](RangedFile::open) opens it, but
    /// a local file read at each read, not mapped: for readers that keep
    /// thousands of files open (a dataset's videos), whose mappings would
    /// count every page read in the process's resident memory and whose
    /// file descriptors would run out.
    #[cfg_attr(not(feature = "video"), allow(dead_code))]
    pub(crate) fn open_unmapped(location: &Location) -> Result<RangedFile> {
        match location.as_path() {
            Some(path) => {
                let len = std::fs::metadata(path)
                    .map_err(|e| location.error_io("cannot open", e))?
                    .len();
                Ok(RangedFile {
                    location: location.clone(),
                    bytes: Bytes::Unmapped(path.to_path_buf()),
                    len,
                })
            }
            None => RangedFile::open(location),
        }
    }

    /// Where the file is.
    pub(crate) fn location(&self) -> &Location {
        &self.location
    }

    /// The file's size in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The bytes `range` of the file; a range past its end is refused,
    /// naming the file, the range and the size (`what` says whose bytes
    /// they are: "frame 3").
    pub(crate) fn read(&self, range: Range<u64>, what: &str) -> Result<Piece<'_>> {
        if range.start > range.end || range.end > self.len {
            return Err(self.location.error(format!(
                "{what}: bytes {}..{} are past the file's end ({} bytes): truncated",
                range.start, range.end, self.len
            )));
        }
        if range.is_empty() {
            return Ok(Piece::Borrowed(&[]));
        }
        match &self.bytes {
            Bytes::Mapped(mapped) => Ok(Piece::Borrowed(
                &mapped[range.start as usize..range.end as usize],
            )),
            Bytes::Empty => Ok(Piece::Borrowed(&[])),
            Bytes::Unmapped(path) => {
                use std::io::{Read, Seek, SeekFrom};
                let want = (range.end - range.start) as usize;
                let mut got = vec![0u8; want];
                std::fs::File::open(path)
                    .and_then(|mut file| {
                        file.seek(SeekFrom::Start(range.start))?;
                        file.read_exact(&mut got)
                    })
                    .map_err(|e| {
                        self.location.error_io(
                            format_args!(
                                "{what}: bytes {}..{} cannot be read (the file changed since it \
                                 was opened?)",
                                range.start, range.end
                            ),
                            e,
                        )
                    })?;
                Ok(Piece::Owned(Data::from(got)))
            }
            Bytes::Remote(object) => {
                let want = range.end - range.start;
                let got = object.get_range(range.clone())?;
                if got.len() as u64 != want {
                    return Err(self.location.error(format!(
                        "{what}: {} bytes read of {}..{} (the object changed since it was opened?)",
                        got.len(),
                        range.start,
                        range.end
                    )));
                }
                Ok(Piece::Owned(got))
            }
        }
    }

    /// The whole file.
    pub(crate) fn read_all(&self, what: &str) -> Result<Piece<'_>> {
        self.read(0..self.len, what)
    }
}
