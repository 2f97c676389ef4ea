//! Byte views: a batch's elements as the bytes a kernel reads and writes,
//! and those bytes as elements again, checked for alignment and length.

use std::mem::MaybeUninit;

use super::element::Element;
use crate::{Error, Result};

/// The bytes of `values`.
pub(crate) fn bytes_of<E: Element>(values: &[E]) -> &[u8] {
    // SAFETY: `Element` is sealed to primitive numbers: no padding, no
    // invalid bit patterns; the length is the slice's size in bytes.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// How many elements of `T` the `len` bytes at `ptr` hold, if they can
/// be viewed as them: aligned, and a whole number of them.
fn elements<T: Element>(ptr: *const u8, len: usize) -> Result<usize> {
    let size = std::mem::size_of::<T>();
    if ptr.align_offset(std::mem::align_of::<T>()) != 0 || !len.is_multiple_of(size) {
        return Err(Error::internal(
            "kernel::blocked",
            format!(
                "kernel block: {len} bytes at a misaligned address for {}",
                T::TYPE
            ),
        ));
    }
    Ok(len / size)
}

/// `bytes` as elements of `T`, if they are aligned for it.
pub(crate) fn typed<T: Element>(bytes: &[u8]) -> Result<&[T]> {
    let len = elements::<T>(bytes.as_ptr(), bytes.len())?;
    // SAFETY: aligned and a whole number of elements (checked), and every
    // bit pattern is a value of an `Element` type.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// `bytes` as room for elements of `T`, if they are aligned for it.
pub(crate) fn typed_mut<T: Element>(
    bytes: &mut [MaybeUninit<u8>],
) -> Result<&mut [MaybeUninit<T>]> {
    let len = elements::<T>(bytes.as_ptr().cast(), bytes.len())?;
    // SAFETY: aligned and a whole number of elements (checked); the slice
    // is borrowed mutably once, and nothing is read from it.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<MaybeUninit<T>>(), len) })
}

/// `input` and `output`, if they have as many elements (a block kernel
/// writes one output element per input element).
pub(crate) fn same_len<'i, 'o, A, B>(
    input: &'i [A],
    output: &'o mut [MaybeUninit<B>],
) -> Result<(&'i [A], &'o mut [MaybeUninit<B>])> {
    if input.len() == output.len() {
        Ok((input, output))
    } else {
        Err(Error::internal(
            "kernel::blocked",
            format!(
                "kernel block: {} input elements for {} output elements",
                input.len(),
                output.len()
            ),
        ))
    }
}

/// Initialized bytes, as room to write.
///
/// # Safety
///
/// Whoever writes through the result stores values only (never
/// `MaybeUninit::uninit()`), since the bytes are read as `u8` afterwards.
pub(crate) unsafe fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps
    // the bytes initialized.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len()) }
}

/// The bytes of `words`, to write.
pub(crate) fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding; any byte pattern is valid for it.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
}

/// The bytes of `words`.
pub(crate) fn bytemuck_bytes_ref(words: &[u64]) -> &[u8] {
    // SAFETY: as above, read only.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
}
