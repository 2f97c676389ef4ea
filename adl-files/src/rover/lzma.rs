//! roverd's `lzma` channels (the whole channel one compressed stream,
//! decoded once when the channel is opened), and the decoder both lzma
//! formats share: liblzma's, for `.xz` and `.lzma` streams as Python's
//! `lzma` module reads them.

use std::panic::{AssertUnwindSafe, catch_unwind};

use adl_core::Result;
use liblzma::stream::{Action, CONCATENATED, Status, Stream};

use crate::location::Location;
use crate::ranged::RangedFile;

/// A `lzma` channel's frames, decompressed whole when it is opened (roverd
/// writes such a channel as one stream, which cannot be read from the
/// middle): a frame's read copies its bytes.
pub(crate) struct LzmaChannel {
    location: Location,
    values: Vec<u8>,
    frame_bytes: usize,
}

impl LzmaChannel {
    /// The channel file at `location`, decompressed, frames of
    /// `frame_bytes` bytes, its first `needed` frames (one per timestamp)
    /// kept: the rest is checked, not kept, so that a small damaged file
    /// cannot claim gigabytes of memory.
    pub(crate) fn open(
        location: &Location,
        frame_bytes: usize,
        needed: usize,
    ) -> Result<LzmaChannel> {
        let file = RangedFile::open(location)?;
        let compressed = file.read_all("the channel")?;
        let limit = frame_bytes.checked_mul(needed).ok_or_else(|| {
            location.error(format!(
                "{needed} frames of {frame_bytes} bytes are more than adl can address"
            ))
        })?;
        let (values, total) = decompress_all(&compressed, limit)
            .map_err(|reason| location.error(format!("cannot decompress the channel: {reason}")))?;
        if frame_bytes > 0 && total % frame_bytes as u64 != 0 {
            return Err(location.error(format!(
                "decompresses to {total} bytes, not a whole number of frames of {frame_bytes} bytes: truncated, or not this channel's type and shape"
            )));
        }
        Ok(LzmaChannel {
            location: location.clone(),
            values,
            frame_bytes,
        })
    }

    /// The number of whole frames.
    pub(crate) fn frames(&self) -> usize {
        self.values.len().checked_div(self.frame_bytes).unwrap_or(0)
    }

    /// Frame `index`'s bytes, into `out`.
    pub(crate) fn read_into(&self, index: usize, out: &mut [u8]) -> Result<()> {
        let start = index * self.frame_bytes;
        let bytes = self
            .values
            .get(start..start + self.frame_bytes)
            .ok_or_else(|| {
                self.location.error(format!(
                    "frame {index}: past the channel's {} frames",
                    self.frames()
                ))
            })?;
        out.copy_from_slice(bytes);
        Ok(())
    }
}

/// A decoder of `.xz` or `.lzma` data (told by their first bytes, as
/// Python's `lzma.decompress` does), streams one after another read as
/// one (as roverd's appends write them).
fn decoder() -> Result<Stream, String> {
    Stream::new_auto_decoder(u64::MAX, CONCATENATED)
        .map_err(|e| format!("liblzma cannot make a decoder: {e}"))
}

/// The compressed `input`, decompressed: its first `limit` bytes kept
/// (all of it, if shorter), the rest decoded into a small buffer and
/// dropped, so that its integrity is checked to the end of its streams
/// while a small damaged file that claims gigabytes takes no more memory;
/// with the whole decompressed length.
fn decompress_all(input: &[u8], limit: usize) -> Result<(Vec<u8>, u64), String> {
    guarded(|| {
        let mut stream = decoder()?;
        let mut out = Vec::with_capacity(input.len().saturating_mul(4).min(limit).max(16));
        let mut scratch = Vec::new();
        loop {
            let read = stream.total_in() as usize;
            let kept = out.len() < limit;
            let buffer = if kept {
                if out.len() == out.capacity() {
                    // Grown by doubling, no further than the limit
                    // (liblzma writes into the spare capacity, at most).
                    out.reserve_exact(out.capacity().max(4096).min(limit - out.len()));
                }
                &mut out
            } else {
                scratch.clear();
                scratch.reserve_exact(64 << 10);
                &mut scratch
            };
            let status = stream
                .process_vec(&input[read..], buffer, Action::Finish)
                .map_err(|e| words(e, stream.total_in()))?;
            let room = buffer.len() < buffer.capacity();
            match status {
                Status::StreamEnd => {
                    let total = stream.total_out();
                    out.truncate(limit);
                    return Ok((out, total));
                }
                // No progress with room to write: the input ended first.
                Status::MemNeeded if room => {
                    return Err(format!(
                        "the compressed data end at byte {} inside a stream, after {} bytes: truncated",
                        input.len(),
                        stream.total_out()
                    ));
                }
                _ => {}
            }
        }
    })
}

/// The compressed `input`, decompressed into `out`, which it must fill
/// exactly: one that decompresses to fewer or more bytes is refused,
/// saying how many.
pub(crate) fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<(), String> {
    guarded(|| {
        let mut stream = decoder()?;
        loop {
            let (read, written) = (stream.total_in() as usize, stream.total_out() as usize);
            let status = stream
                .process(&input[read..], &mut out[written..], Action::Finish)
                .map_err(|e| words(e, stream.total_in()))?;
            let written = stream.total_out() as usize;
            match status {
                Status::StreamEnd if written == out.len() => return Ok(()),
                Status::StreamEnd => {
                    return Err(format!(
                        "decompresses to {written} bytes; a frame is {} bytes",
                        out.len()
                    ));
                }
                _ if written == out.len() => {
                    // Full: whatever more the data hold is too much.
                    let mut more = [0u8; 1];
                    let read = stream.total_in() as usize;
                    let status = stream
                        .process(&input[read..], &mut more, Action::Finish)
                        .map_err(|e| words(e, stream.total_in()))?;
                    if stream.total_out() as usize > written {
                        return Err(format!(
                            "decompresses to more than the {} bytes of a frame",
                            out.len()
                        ));
                    }
                    if status == Status::StreamEnd {
                        return Ok(());
                    }
                    return Err(format!(
                        "the compressed data end at byte {} inside a stream: truncated",
                        input.len()
                    ));
                }
                Status::MemNeeded => {
                    return Err(format!(
                        "the compressed data end at byte {} inside a stream, after {written} of the frame's {} bytes: truncated",
                        input.len(),
                        out.len()
                    ));
                }
                _ => {}
            }
        }
    })
}

/// liblzma's error `e`, met at compressed byte `at`, in words.
fn words(e: liblzma::stream::Error, at: u64) -> String {
    use liblzma::stream::Error as E;
    let what = match e {
        E::Data => "corrupt data (an integrity check or the coded data do not hold)".to_string(),
        E::Format => "not xz or lzma data (its first bytes are neither format's)".to_string(),
        E::Options => "a stream header with options liblzma does not decode".to_string(),
        other => other.to_string(),
    };
    format!("{what}, at compressed byte {at}")
}

/// `work`, a panic inside it (liblzma's binding panics on a return code it
/// does not know) made an error.
fn guarded<T>(work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|_| Err("liblzma's binding panicked on it".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data` compressed as Python's `lzma.compress` does it (xz, CRC64).
    fn xz(data: &[u8]) -> Vec<u8> {
        let mut stream = Stream::new_easy_encoder(0, liblzma::stream::Check::Crc64).unwrap();
        let mut out = Vec::with_capacity(data.len() + 1024);
        stream.process_vec(data, &mut out, Action::Finish).unwrap();
        out
    }

    #[test]
    fn a_frame_decompresses_into_exactly_its_bytes() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let packed = xz(&data);
        let mut out = vec![0u8; 1000];
        decompress_into(&packed, &mut out).unwrap();
        assert_eq!(out, data);

        let mut short = vec![0u8; 999];
        let err = decompress_into(&packed, &mut short).unwrap_err();
        assert!(err.contains("more than the 999 bytes"), "{err}");
        let mut long = vec![0u8; 1001];
        let err = decompress_into(&packed, &mut long).unwrap_err();
        assert!(err.contains("decompresses to 1000 bytes"), "{err}");

        let err = decompress_into(&packed[..packed.len() - 10], &mut out).unwrap_err();
        assert!(
            err.contains("truncated") || err.contains("corrupt"),
            "{err}"
        );
        let mut bad = packed.clone();
        let middle = bad.len() / 2;
        bad[middle] ^= 0x55;
        let err = decompress_into(&bad, &mut out).unwrap_err();
        assert!(err.contains("corrupt data"), "{err}");
        let err = decompress_into(b"not compressed at all", &mut out).unwrap_err();
        assert!(err.contains("not xz or lzma data"), "{err}");
    }

    #[test]
    fn a_channel_is_decompressed_no_further_than_its_frames() {
        // 64 MiB of zeros, a few KiB compressed: 1000 bytes are taken.
        let packed = xz(&vec![0u8; 64 << 20]);
        assert!(packed.len() < 64 << 10);
        let (values, total) = decompress_all(&packed, 1000).unwrap();
        assert_eq!((values.len(), total), (1000, 64 << 20));
        assert!(values.capacity() <= 1000 + 4096);
        assert_eq!(decompress_all(&packed, 0).unwrap(), (Vec::new(), 64 << 20));
        assert_eq!(decompress_all(&xz(b""), 0).unwrap(), (Vec::new(), 0));
        // Damaged past the kept bytes: refused all the same.
        let err = decompress_all(&packed[..packed.len() - 20], 1000).unwrap_err();
        assert!(
            err.contains("truncated") || err.contains("corrupt"),
            "{err}"
        );
    }

    #[test]
    fn streams_one_after_another_decompress_as_one() {
        let mut two = xz(b"abc");
        two.extend(xz(b"def"));
        assert_eq!(decompress_all(&two, 100).unwrap(), (b"abcdef".to_vec(), 6));
        assert_eq!(decompress_all(&two, 6).unwrap(), (b"abcdef".to_vec(), 6));
        assert_eq!(decompress_all(&two, 4).unwrap(), (b"abcd".to_vec(), 6));
        let mut out = [0u8; 6];
        decompress_into(&two, &mut out).unwrap();
        assert_eq!(&out, b"abcdef");
        let err = decompress_all(&two[..two.len() - 5], 100).unwrap_err();
        assert!(
            err.contains("truncated") || err.contains("corrupt"),
            "{err}"
        );
    }
}
