//! [`Output`]: where a kernel run appends its result's bytes, and the
//! batch memory it fills.

use std::mem::MaybeUninit;

use super::buffers::Buffers;
use super::bytes::uninit_bytes;
use super::element::Element;
use crate::{KernelError, Result};

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
    /// initialize all of it (the [`BlockKernel`](super::BlockKernel) contract).
    ///
    /// # Safety
    ///
    /// `write` returns `Ok` only after writing every byte it was given.
    pub unsafe fn append_in_place(
        &mut self,
        len: usize,
        write: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<()>,
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
    fn room(&mut self, len: usize) -> Result<&mut [MaybeUninit<u8>]>;
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
            return Err(KernelError::internal(
                "kernel::data",
                format!(
                    "kernel output: {} bytes do not fit: room for {} more elements of {}",
                    bytes.len(),
                    self.capacity() - self.len(),
                    T::TYPE
                ),
            ));
        }
        // `count` elements fit in the spare capacity (checked): no
        // reallocation. Bytes aligned for `T` (a device's mapped memory)
        // are copied at once; others element by element.
        match bytemuck::try_cast_slice::<u8, T>(bytes) {
            Ok(values) => self.extend_from_slice(values),
            Err(_) => self.extend(
                bytes
                    .chunks_exact(size)
                    .map(bytemuck::pod_read_unaligned::<T>),
            ),
        }
        Ok(())
    }

    fn remaining(&self) -> usize {
        (self.capacity() - self.len()) * std::mem::size_of::<T>()
    }

    fn room(&mut self, len: usize) -> Result<&mut [MaybeUninit<u8>]> {
        let size = std::mem::size_of::<T>();
        if !len.is_multiple_of(size) || len > self.remaining() {
            return Err(KernelError::internal(
                "kernel::data",
                format!("kernel output: no room for {len} more bytes of {}", T::TYPE),
            ));
        }
        // The spare capacity holds at least `len` bytes (checked).
        Ok(&mut uninit_bytes(self.spare_capacity_mut())[..len])
    }

    unsafe fn commit(&mut self, len: usize) -> Result<()> {
        let count = len / std::mem::size_of::<T>();
        if count > self.capacity() - self.len() {
            return Err(KernelError::internal(
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

/// The elements `fill` writes for a batch of `shape`, or `None` where
/// `fill` says it did not run; their memory from `buffers`. `fill`'s error
/// (the caller's own, a device's failure say) is given as it is; a batch
/// that `fill` left short is a [`KernelError`] in it.
pub fn filled_vec<T: Element, E: From<KernelError>>(
    shape: &[usize],
    buffers: Buffers<'_>,
    fill: impl FnOnce(&mut Output<'_>) -> Result<bool, E>,
) -> Result<Option<Vec<T>>, E> {
    let len: usize = shape.iter().product();
    let mut values: Vec<T> = buffers.take(len);
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
        return Err(KernelError::internal(
            "kernel::data",
            format!(
                "kernel output: the kernel wrote {} of the batch's {len} elements",
                values.len()
            ),
        )
        .into());
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
            return Err(KernelError::internal(
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

    fn room(&mut self, len: usize) -> Result<&mut [MaybeUninit<u8>]> {
        if len > self.remaining() {
            return Err(KernelError::internal(
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
