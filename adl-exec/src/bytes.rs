//! Byte views: a batch's elements as the bytes a kernel reads and writes,
//! and those bytes as elements again, checked for alignment and length.
//!
//! Initialized bytes go through `bytemuck`'s `Pod` casts (every
//! [`Element`] is `Pod`: no padding, every bit pattern a value). Room not
//! yet written (`MaybeUninit`, which is never `Pod`) goes through the two
//! views below, this crate's only hand-written byte casts.

use std::mem::MaybeUninit;

use super::element::Element;
use crate::{KernelError, Result};

/// The error of bytes that cannot be viewed as elements of `T`: misaligned
/// for it, or not a whole number of them.
fn not_elements<T: Element>(len: usize) -> KernelError {
    KernelError::internal(
        "kernel::blocked",
        format!(
            "kernel block: {len} bytes at a misaligned address for {}",
            T::TYPE
        ),
    )
}

/// `bytes` as elements of `T`, if they are aligned for it and a whole
/// number of them.
#[inline]
pub fn typed<T: Element>(bytes: &[u8]) -> Result<&[T]> {
    bytemuck::try_cast_slice(bytes).map_err(|_| not_elements::<T>(bytes.len()))
}

/// `bytes` as room for elements of `T`, if they are aligned for it and a
/// whole number of them.
#[inline]
pub fn typed_mut<T: Element>(bytes: &mut [MaybeUninit<u8>]) -> Result<&mut [MaybeUninit<T>]> {
    let size = std::mem::size_of::<T>();
    if bytes.as_ptr().align_offset(std::mem::align_of::<T>()) != 0
        || !bytes.len().is_multiple_of(size)
    {
        return Err(not_elements::<T>(bytes.len()));
    }
    let len = bytes.len() / size;
    // SAFETY: aligned for `T` and a whole number of `T` (checked just
    // above), so the `len` elements cover exactly the same bytes; the slice
    // is borrowed mutably once, and nothing is read from it (it stays
    // `MaybeUninit`).
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<MaybeUninit<T>>(), len) })
}

/// Room for elements of `T` as room for their bytes.
#[inline]
pub(crate) fn uninit_bytes<T: Element>(room: &mut [MaybeUninit<T>]) -> &mut [MaybeUninit<u8>] {
    let len = std::mem::size_of_val(room);
    // SAFETY: `MaybeUninit<u8>` has size and alignment 1, so any memory
    // holds `len` of them; the bytes are those of `room`, borrowed mutably
    // once. Whatever is written through the result is bytes of `T`, and
    // every bit pattern is a value of an `Element` type.
    unsafe { std::slice::from_raw_parts_mut(room.as_mut_ptr().cast::<MaybeUninit<u8>>(), len) }
}

/// `input` and `output`, if they have as many elements (a block kernel
/// writes one output element per input element).
#[inline]
pub fn same_len<'i, 'o, A, B>(
    input: &'i [A],
    output: &'o mut [MaybeUninit<B>],
) -> Result<(&'i [A], &'o mut [MaybeUninit<B>])> {
    if input.len() == output.len() {
        Ok((input, output))
    } else {
        Err(KernelError::internal(
            "kernel::blocked",
            format!(
                "kernel block: {} input elements for {} output elements",
                input.len(),
                output.len()
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_elements_only_when_aligned_and_whole() {
        let words = [0x0403_0201u32, 0x0807_0605];
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        assert_eq!(typed::<u32>(bytes).unwrap(), &words);
        assert_eq!(
            typed::<u16>(&bytes[2..]).unwrap(),
            &[0x0403, 0x0605, 0x0807]
        );
        let err = typed::<u32>(&bytes[1..5]).unwrap_err().to_string();
        assert!(err.contains("misaligned address for uint"), "{err}");
        assert!(typed::<u32>(&bytes[..6]).is_err());
    }

    #[test]
    fn room_is_viewed_as_elements_and_back() {
        let mut room = [MaybeUninit::<u32>::uninit(); 2];
        let bytes = uninit_bytes(&mut room);
        assert_eq!(bytes.len(), 8);
        assert_eq!(typed_mut::<u32>(bytes).unwrap().len(), 2);
        assert_eq!(typed_mut::<u16>(&mut bytes[2..]).unwrap().len(), 3);
        assert!(typed_mut::<u32>(&mut uninit_bytes(&mut room)[..6]).is_err());
    }
}
