//! [`KernelInput`] and [`KernelOutput`]: the batch types a kernel node
//! takes and gives, and their bytes.

use ndarray::{Array, Array1, Dimension, RemoveAxis};

use crate::collate::Rows;

use super::element::{Element, ElementType, bytes_of};
use crate::{Error, Result};

/// A batch as a kernel reads it: row-major bytes (in one piece, or one
/// piece per sample), its shape (batch axis first), and per-sample flags
/// where the batch carries them.
#[derive(Debug, Clone, Copy)]
pub struct HostBatch<'a> {
    /// The elements, row-major, as bytes.
    pub data: HostData<'a>,
    /// Their type.
    pub element: ElementType,
    /// The shape, batch axis first.
    pub shape: &'a [usize],
    /// One byte per sample (0 or 1), where the batch has flags.
    pub flags: Option<&'a [u8]>,
}

/// Where a [`HostBatch`]'s bytes are.
#[derive(Debug, Clone, Copy)]
pub enum HostData<'a> {
    /// The whole batch, row-major, in one piece.
    Contiguous(&'a [u8]),
    /// One piece per sample, each still in the table it was gathered from
    /// (a [`Rows`](crate::collate::Rows) batch): sample `s` is the bytes
    /// `keys[s] * row .. (keys[s] + 1) * row` of `table`.
    Rows {
        /// The table's bytes, row-major.
        table: &'a [u8],
        /// Bytes per row (per sample).
        row: usize,
        /// The samples' rows, in batch order.
        keys: &'a [usize],
    },
}

impl<'a> HostData<'a> {
    /// The number of bytes in the batch.
    pub fn len(&self) -> usize {
        match *self {
            HostData::Contiguous(bytes) => bytes.len(),
            HostData::Rows { row, keys, .. } => row * keys.len(),
        }
    }

    /// Whether the batch has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of one row, `row` bytes of it: `index` counts rows of
    /// the batch, a sample's row for [`HostData::Rows`].
    pub fn row(&self, index: usize, row: usize) -> Result<&'a [u8]> {
        if let HostData::Rows { row: per_key, .. } = *self
            && per_key != row
        {
            return Err(Error::internal(
                "kernel::data",
                format!(
                    "kernel input: rows of {row} bytes asked of a batch whose samples are {per_key} bytes"
                ),
            ));
        }
        self.find(index, row)
            .ok_or_else(|| Error::out_of_range("kernel input row", index, self.len() / row.max(1)))
    }

    /// [`row`](HostData::row), or `None` (no error built: for hints and
    /// lookups past the end, on hot paths).
    pub(crate) fn find(&self, index: usize, row: usize) -> Option<&'a [u8]> {
        let (bytes, start) = match *self {
            HostData::Contiguous(bytes) => (bytes, index.checked_mul(row)?),
            HostData::Rows {
                table,
                row: per_key,
                keys,
            } if per_key == row => (table, keys.get(index)?.checked_mul(row)?),
            HostData::Rows { .. } => return None,
        };
        bytes.get(start..start.checked_add(row)?)
    }

    /// Ask the CPU to start fetching row `index` (a hint; nothing happens
    /// for a row out of range).
    pub fn prefetch_row(&self, index: usize, row: usize) {
        if let Some(bytes) = self.find(index, row) {
            crate::exec::prefetch(bytes);
        }
    }

    /// Copy the batch, row-major, into `out` (of exactly
    /// [`len`](HostData::len) bytes): at memcpy speed, each sample's row
    /// prefetched a few rows ahead.
    pub fn copy_to(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.len() {
            return Err(Error::internal(
                "kernel::data",
                format!(
                    "kernel input: a batch of {} bytes copied into {} bytes",
                    self.len(),
                    out.len()
                ),
            ));
        }
        match *self {
            HostData::Contiguous(bytes) => out.copy_from_slice(bytes),
            HostData::Rows { row, keys, .. } => {
                const AHEAD: usize = 4;
                for (s, into) in out
                    .chunks_exact_mut(row.max(1))
                    .enumerate()
                    .take(keys.len())
                {
                    self.prefetch_row(s + AHEAD, row);
                    into.copy_from_slice(self.row(s, row)?);
                }
            }
        }
        Ok(())
    }
}

impl HostBatch<'_> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A batch type a kernel node can take: an ndarray array of an
/// [`Element`] type, or an array with one flag per sample
/// (`(Array<T, D>, Array1<bool>)`, for nodes such as
/// [`FlipByFlag`](super::FlipByFlag)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of an OpenCL batch node",
    note = "a kernel node takes an ndarray array of u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64 (any shape, batch axis first), or such an array with an `Array1<bool>` of per-sample flags"
)]
pub trait KernelInput {
    /// The element type the kernel reads.
    type Element: Element;

    /// Call `f` with the batch's bytes: in place when the array is
    /// row-major and contiguous, else from a row-major copy.
    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R>;

    /// The shape of the main array, batch axis first.
    fn shape(&self) -> Vec<usize>;

    /// Whether its samples lie apart in memory (a
    /// [`Rows`](crate::collate::Rows) batch): a kernel node alone then
    /// still reads them block by block, rather than copying them into an
    /// array for its Rust body. The default is false.
    fn scattered(&self) -> bool {
        false
    }

    /// Done with: give its memory to the thread's buffer pool (the default
    /// drops it).
    fn release(self)
    where
        Self: Sized,
    {
    }
}

impl<T: Element, D: Dimension> KernelInput for Array<T, D> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let shape = self.shape().to_vec();
        match self.as_slice() {
            Some(values) => Ok(f(HostBatch {
                data: HostData::Contiguous(bytes_of(values)),
                element: T::TYPE,
                shape: &shape,
                flags: None,
            })),
            None => {
                let standard = self.as_standard_layout();
                let values = standard.as_slice().ok_or_else(|| {
                    Error::internal(
                        "kernel::data",
                        "kernel input: a standard-layout copy is not contiguous",
                    )
                })?;
                Ok(f(HostBatch {
                    data: HostData::Contiguous(bytes_of(values)),
                    element: T::TYPE,
                    shape: &shape,
                    flags: None,
                }))
            }
        }
    }

    fn shape(&self) -> Vec<usize> {
        Array::shape(self).to_vec()
    }

    fn release(self) {
        crate::exec::release(self);
    }
}

/// `batch` with `flags`, one per sample: `f` gets the batch's bytes and
/// the flags as bytes.
fn with_flags<B: KernelInput, R>(
    batch: &B,
    flags: &Array1<bool>,
    f: impl FnOnce(HostBatch<'_>) -> R,
) -> Result<R> {
    let shape = batch.shape();
    if shape.is_empty() || flags.len() != shape[0] {
        return Err(Error::invalid(
            "kernel input",
            format!(
                "{} per-sample flags for a batch of shape {shape:?}: one flag per sample is needed",
                flags.len(),
            ),
        ));
    }
    let flags: Vec<u8> = flags.iter().map(|&b| u8::from(b)).collect();
    batch.with_host(move |host| {
        f(HostBatch {
            flags: Some(&flags),
            ..host
        })
    })
}

impl<T: Element, D: Dimension> KernelInput for (Array<T, D>, Array1<bool>) {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        with_flags(&self.0, &self.1, f)
    }

    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }

    fn release(self) {
        crate::exec::release(self.0);
    }
}

/// The rows are read where they lie, in their table: no copy.
impl<T: Element, D: RemoveAxis> KernelInput for Rows<T, D> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let shape = Rows::shape(self);
        let (table, row) = self.table();
        Ok(f(HostBatch {
            data: HostData::Rows {
                table: bytes_of(table),
                row: row * std::mem::size_of::<T>(),
                keys: self.keys(),
            },
            element: T::TYPE,
            shape: &shape,
            flags: None,
        }))
    }

    fn shape(&self) -> Vec<usize> {
        Rows::shape(self)
    }

    fn scattered(&self) -> bool {
        true
    }
}

impl<T: Element, D: RemoveAxis> KernelInput for (Rows<T, D>, Array1<bool>) {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        with_flags(&self.0, &self.1, f)
    }

    fn shape(&self) -> Vec<usize> {
        self.0.shape()
    }

    fn scattered(&self) -> bool {
        true
    }
}

/// Where a kernel run writes its result: the output's bytes, appended in
/// order, exactly [`remaining`](Output::remaining) of them in all. The
/// memory is not zeroed first; each byte is written once.
pub struct Output<'a> {
    target: &'a mut dyn Append,
}

impl std::fmt::Debug for Output<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("remaining", &self.remaining())
            .finish()
    }
}

impl Output<'_> {
    /// Append `bytes` (a whole number of output elements).
    pub fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.target.append(bytes)
    }

    /// Append `len` bytes that `write` writes in place (a whole number of
    /// output elements): `write` gets the uninitialized room and must
    /// initialize all of it (the [`BlockKernel`](super::BlockKernel)
    /// contract).
    ///
    /// # Safety
    ///
    /// `write` returns `Ok` only after writing every byte it was given.
    pub unsafe fn append_in_place(
        &mut self,
        len: usize,
        write: impl FnOnce(&mut [std::mem::MaybeUninit<u8>]) -> Result<()>,
    ) -> Result<()> {
        let room = self.target.room(len)?;
        write(room)?;
        // SAFETY: `write` initialized all `len` bytes (the caller's
        // contract).
        unsafe { self.target.commit(len) }
    }

    /// The bytes still to write.
    pub fn remaining(&self) -> usize {
        self.target.remaining()
    }
}

/// A growing output buffer of some element type.
trait Append {
    fn append(&mut self, bytes: &[u8]) -> Result<()>;
    fn remaining(&self) -> usize;
    /// The next `len` bytes of room, uninitialized.
    fn room(&mut self, len: usize) -> Result<&mut [std::mem::MaybeUninit<u8>]>;
    /// Count the next `len` bytes of room as written.
    ///
    /// # Safety
    ///
    /// They were all initialized, through [`room`](Append::room).
    unsafe fn commit(&mut self, len: usize) -> Result<()>;
}

impl<T: Element> Append for Vec<T> {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let count = bytes.len() / size;
        if !bytes.len().is_multiple_of(size) || count > self.capacity() - self.len() {
            return Err(Error::internal(
                "kernel::data",
                format!(
                    "kernel output: {} bytes do not fit: room for {} more elements of {}",
                    bytes.len(),
                    self.capacity() - self.len(),
                    T::TYPE
                ),
            ));
        }
        // SAFETY: `count` elements fit in the spare capacity (checked);
        // the bytes are copied into it, and every bit pattern is a value of
        // an `Element` type, so the first `len + count` elements are
        // initialized values.
        unsafe {
            let end = self.as_mut_ptr().add(self.len()).cast::<u8>();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), end, bytes.len());
            self.set_len(self.len() + count);
        }
        Ok(())
    }

    fn remaining(&self) -> usize {
        (self.capacity() - self.len()) * std::mem::size_of::<T>()
    }

    fn room(&mut self, len: usize) -> Result<&mut [std::mem::MaybeUninit<u8>]> {
        let size = std::mem::size_of::<T>();
        if !len.is_multiple_of(size) || len > self.remaining() {
            return Err(Error::internal(
                "kernel::data",
                format!("kernel output: no room for {len} more bytes of {}", T::TYPE),
            ));
        }
        let spare = self.spare_capacity_mut();
        // SAFETY: the spare capacity holds at least `len` bytes (checked);
        // viewing `MaybeUninit<T>` as `MaybeUninit<u8>` bytes is sound.
        Ok(unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast(), len) })
    }

    unsafe fn commit(&mut self, len: usize) -> Result<()> {
        let count = len / std::mem::size_of::<T>();
        if count > self.capacity() - self.len() {
            return Err(Error::internal(
                "kernel::data",
                "kernel output: committed past the room",
            ));
        }
        // SAFETY: the caller initialized these bytes, and every bit pattern
        // is a value of an `Element` type.
        unsafe { self.set_len(self.len() + count) };
        Ok(())
    }
}

/// A batch type a kernel node can give: an ndarray array of an
/// [`Element`] type, of the input's shape.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of an OpenCL batch node",
    note = "a kernel node gives an ndarray array of u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64, of its input's shape"
)]
pub trait KernelOutput: Sized {
    /// The element type the kernel writes.
    type Element: Element;

    /// The batch of `shape` whose row-major elements `fill` writes (as
    /// bytes, into an [`Output`]); `None` when `fill` says it did not run.
    /// The memory comes from the thread's
    /// [`BufferPool`](crate::exec::BufferPool) when it has one.
    fn build(
        shape: &[usize],
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>>;
}

/// The elements `fill` writes for a batch of `shape`, or `None`.
fn filled<T: Element>(
    shape: &[usize],
    fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
) -> Result<Option<Vec<T>>> {
    let len: usize = shape.iter().product();
    let mut values: Vec<T> = crate::exec::buffer(len);
    let ran = {
        let mut output = Output {
            target: &mut LimitedVec {
                values: &mut values,
                len,
            },
        };
        fill(&mut output)?
    };
    if !ran {
        return Ok(None);
    }
    if values.len() != len {
        return Err(Error::internal(
            "kernel::data",
            format!(
                "kernel output: the kernel wrote {} of the batch's {len} elements",
                values.len()
            ),
        ));
    }
    Ok(Some(values))
}

/// A `Vec` that takes at most `len` elements, whatever its capacity.
struct LimitedVec<'a, T> {
    values: &'a mut Vec<T>,
    len: usize,
}

impl<T: Element> Append for LimitedVec<'_, T> {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() > self.remaining() {
            return Err(Error::internal(
                "kernel::data",
                format!(
                    "kernel output: {} bytes are more than the {} left of the batch",
                    bytes.len(),
                    self.remaining()
                ),
            ));
        }
        Append::append(&mut *self.values, bytes)
    }

    fn remaining(&self) -> usize {
        (self.len - self.values.len()) * std::mem::size_of::<T>()
    }

    fn room(&mut self, len: usize) -> Result<&mut [std::mem::MaybeUninit<u8>]> {
        if len > self.remaining() {
            return Err(Error::internal(
                "kernel::data",
                format!(
                    "kernel output: {len} bytes are more than the {} left of the batch",
                    self.remaining()
                ),
            ));
        }
        self.values.room(len)
    }

    unsafe fn commit(&mut self, len: usize) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.values.commit(len) }
    }
}

impl<T: Element, D: Dimension> KernelOutput for Array<T, D> {
    type Element = T;

    fn build(
        shape: &[usize],
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>> {
        let Some(values) = filled::<T>(shape, fill)? else {
            return Ok(None);
        };
        let dim = D::from_dimension(&ndarray::IxDyn(shape)).ok_or_else(|| {
            Error::invalid(
                "kernel output",
                format!(
                    "an array of {} axes cannot have the input's shape {shape:?}",
                    D::NDIM.map_or_else(|| "any number of".to_owned(), |n| n.to_string())
                ),
            )
        })?;
        Array::from_shape_vec(dim, values)
            .map(Some)
            .map_err(|e| Error::internal("kernel::data", format!("kernel output: {}", e)))
    }
}

/// A `Vec` is a batch of scalars (shape `[len]`).
impl<T: Element> KernelInput for Vec<T> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        Ok(f(HostBatch {
            data: HostData::Contiguous(bytes_of(self)),
            element: T::TYPE,
            shape: &[self.len()],
            flags: None,
        }))
    }

    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
}

/// A `Vec` is a batch of scalars (shape `[len]`).
impl<T: Element> KernelOutput for Vec<T> {
    type Element = T;

    fn build(
        shape: &[usize],
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>> {
        filled::<T>(shape, fill)
    }
}
