//! Decoding frames of a [`VideoFile`] with FFmpeg's libavcodec: each
//! thread keeps its own decoders (never shared between threads, nor across
//! a `fork`), a few files' worth, bounded in bytes; the frames asked for
//! are decoded a group of pictures at a time, each group once for all the
//! frames of it that are wanted, continuing where the thread's decoder
//! stopped when that is on the way.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Once;

use adl_core::{Error, Result};
use ffmpeg_next as ff;

use super::file::{VideoFile, byte_span};
use super::mp4::{Codec, MOST_SAMPLE_BYTES, Track};

/// The most bytes of decoders a thread keeps open (as estimated by
/// [`estimated_bytes`]): past it, the least recently used are closed. One
/// decoder is always kept, whatever its size.
const MOST_DECODER_BYTES: usize = 128 << 20;

/// A decoder of one file, as a thread keeps it between calls.
struct Open {
    /// The file's [`VideoFile::id`].
    file: u64,
    decoder: ff::decoder::Video,
    /// The next sample (in decode order) to send it.
    next: usize,
    /// The presentation time of the last frame it gave, since it was
    /// last flushed.
    shown: Option<i64>,
    /// Whether it was told the stream ended (it must be flushed before it
    /// takes another packet).
    drained: bool,
    /// When it was last used, by the thread's clock of calls.
    used: u64,
    /// Its estimated size.
    bytes: usize,
}

/// A thread's decoders.
struct Decoders {
    /// The process they were made in: after a `fork`, the child's copy of
    /// a decoder is never used (nor closed, which could wait on threads
    /// that the child does not have): it is left, and a new one made.
    pid: u32,
    open: Vec<Open>,
    clock: u64,
}

thread_local! {
    static DECODERS: RefCell<Decoders> = RefCell::new(Decoders {
        pid: std::process::id(),
        open: Vec::new(),
        clock: 0,
    });
}

/// A frame wanted: its sample (in decode order), its presentation time,
/// and the positions of the output it goes to.
struct Wanted {
    sample: usize,
    pts: i64,
    positions: Vec<usize>,
}

/// Decode frames `frames` (indices in the file's presentation order, in
/// any order, repeats allowed) of `file`, calling `sink(positions, frame)`
/// once for each distinct frame as it is decoded, with the positions in
/// `frames` where it was asked for. A frame index out of range, a sample
/// that does not decode, or a frame the decoder never gives is an error
/// naming the file and the frame; `sink`'s error stops the decoding and
/// is returned.
pub(crate) fn decode(
    file: &VideoFile,
    frames: &[usize],
    sink: &mut dyn FnMut(&[usize], &ff::frame::Video) -> Result<()>,
) -> Result<()> {
    let track = file.track();
    let mut wanted: BTreeMap<usize, Wanted> = BTreeMap::new();
    for (position, &frame) in frames.iter().enumerate() {
        let Some(&sample) = track.frames.get(frame) else {
            return Err(Error::out_of_range(
                format_args!("frames of {}", file.location()),
                frame,
                track.frames.len(),
            ));
        };
        let sample = sample as usize;
        wanted
            .entry(sample)
            .or_insert_with(|| Wanted {
                sample,
                pts: track.samples[sample].pts,
                positions: Vec::new(),
            })
            .positions
            .push(position);
    }
    // Grouped by the sync sample decoding starts at, in file order.
    let mut groups: BTreeMap<usize, Vec<Wanted>> = BTreeMap::new();
    for (sample, want) in wanted {
        groups
            .entry(track.group_start(sample))
            .or_default()
            .push(want);
    }
    with_decoder(file, |open| {
        for (start, mut group) in groups {
            group.sort_by_key(|w| w.pts);
            decode_group(file, open, start, &group, sink)?;
        }
        Ok(())
    })
}

/// Run `body` with this thread's decoder of `file` (made where there is
/// none), the thread's other decoders closed past [`MOST_DECODER_BYTES`].
fn with_decoder<T>(file: &VideoFile, body: impl FnOnce(&mut Open) -> Result<T>) -> Result<T> {
    DECODERS.with_borrow_mut(|decoders| {
        let pid = std::process::id();
        if decoders.pid != pid {
            for open in decoders.open.drain(..) {
                std::mem::forget(open);
            }
            decoders.pid = pid;
        }
        decoders.clock += 1;
        let clock = decoders.clock;
        let at = match decoders.open.iter().position(|o| o.file == file.id()) {
            Some(at) => at,
            None => {
                let decoder = open_decoder(file.track())
                    .map_err(|reason| file.error(format!("cannot decode it: {reason}")))?;
                decoders.open.push(Open {
                    file: file.id(),
                    decoder,
                    next: 0,
                    shown: None,
                    drained: false,
                    used: clock,
                    bytes: estimated_bytes(file.track()),
                });
                decoders.open.len() - 1
            }
        };
        decoders.open[at].used = clock;
        // Close the least recently used others while over the bound.
        while decoders.open.len() > 1
            && decoders.open.iter().map(|o| o.bytes).sum::<usize>() > MOST_DECODER_BYTES
        {
            let oldest = (0..decoders.open.len())
                .filter(|&i| decoders.open[i].file != file.id())
                .min_by_key(|&i| decoders.open[i].used);
            match oldest {
                Some(i) => drop(decoders.open.swap_remove(i)),
                None => break,
            }
        }
        let at = decoders
            .open
            .iter()
            .position(|o| o.file == file.id())
            .ok_or_else(|| Error::internal("video::decode", "the decoder just kept is gone"))?;
        let result = body(&mut decoders.open[at]);
        if result.is_err() {
            // Its state after a failure is not worth keeping.
            decoders.open.swap_remove(at);
        }
        result
    })
}

/// A guess of a decoder's memory: a mebibyte of its own, and its pictures
/// (in 4:2:0: the references and those being output, a dozen). Measured
/// by resident memory over 200 decoders of 64 x 48 pictures each: AV1
/// (libdav1d) 0.50 MiB, H.264 0.89 MiB, HEVC 0.20 MiB, VP9 under 0.01 MiB
/// (adl-files/tests/data/video, FFmpeg 5.1).
fn estimated_bytes(track: &Track) -> usize {
    let picture = track.width as usize * track.height as usize * 3 / 2;
    (1 << 20) + picture.saturating_mul(12)
}

/// Decode the frames `group` (sorted by presentation time) of the group
/// of pictures that starts at sample `start`, with `open`.
fn decode_group(
    file: &VideoFile,
    open: &mut Open,
    start: usize,
    group: &[Wanted],
    sink: &mut dyn FnMut(&[usize], &ff::frame::Video) -> Result<()>,
) -> Result<()> {
    let track = file.track();
    let first_pts = group[0].pts;
    // Where the decoder is: at this group's start, or inside it with
    // none of the wanted frames given yet, it goes on from there; else it
    // starts the group again.
    let on_the_way = !open.drained
        && (open.next == start
            || (open.next > start
                && track.group_start(open.next - 1) == start
                && open.shown.is_none_or(|shown| shown < first_pts)));
    if !on_the_way {
        open.decoder.flush();
        open.next = start;
        open.shown = None;
        open.drained = false;
    }
    let mut found = vec![false; group.len()];
    let mut left = group.len();
    let mut frame = ff::frame::Video::empty();
    // The bytes of the group of pictures being sent, read with one read.
    let mut span: Option<(std::ops::Range<usize>, crate::ranged::Piece<'_>, u64)> = None;
    loop {
        // Take every frame the decoder has ready.
        loop {
            match open.decoder.receive_frame(&mut frame) {
                Ok(()) => {}
                Err(ff::Error::Other {
                    errno: ff::error::EAGAIN,
                })
                | Err(ff::Error::Eof) => break,
                Err(e) => return Err(undecodable(file, group, open.next, e)),
            }
            let Some(pts) = frame.pts().or_else(|| frame.timestamp()) else {
                continue;
            };
            open.shown = Some(pts);
            if let Ok(i) = group.binary_search_by_key(&pts, |w| w.pts)
                && !found[i]
            {
                sink(&group[i].positions, &frame)?;
                found[i] = true;
                left -= 1;
            }
        }
        if left == 0 {
            return Ok(());
        }
        if open.next < track.samples.len() {
            let sample = open.next;
            open.next += 1;
            let s = track.samples[sample];
            if s.size == 0 {
                continue;
            }
            if s.size > MOST_SAMPLE_BYTES {
                return Err(file.error(format!(
                    "sample {sample} has {} bytes, more than the {MOST_SAMPLE_BYTES} adl reads",
                    s.size
                )));
            }
            if !span
                .as_ref()
                .is_some_and(|(range, ..)| range.contains(&sample))
            {
                // The rest of its group of pictures in one read, or this
                // sample alone where their bytes are spread wide.
                let group_end = (sample + 1..track.samples.len())
                    .find(|&i| track.samples[i].sync)
                    .unwrap_or(track.samples.len());
                let spread = byte_span(&track.samples[sample..group_end]);
                let end = if spread.end - spread.start <= MOST_SPAN_BYTES {
                    group_end
                } else {
                    sample + 1
                };
                let (piece, base) = file.read_samples(sample..end)?;
                span = Some((sample..end, piece, base));
            }
            let Some((_, piece, base)) = &span else {
                return Err(Error::internal("video::decode", "no bytes read"));
            };
            let from = (s.offset - base) as usize;
            let Some(bytes) = piece.get(from..from + s.size as usize) else {
                return Err(Error::internal(
                    "video::decode",
                    "a sample outside its span",
                ));
            };
            let mut packet = ff::Packet::copy(bytes);
            packet.set_pts(Some(s.pts));
            packet.set_dts(Some(s.dts));
            if s.sync {
                packet.set_flags(ff::packet::Flags::KEY);
            }
            if let Err(e) = open.decoder.send_packet(&packet) {
                return Err(undecodable(file, group, sample, e));
            }
        } else if !open.drained {
            open.drained = true;
            open.decoder
                .send_eof()
                .map_err(|e| undecodable(file, group, track.samples.len(), e))?;
        } else {
            let missing: Vec<String> = group
                .iter()
                .zip(&found)
                .filter(|(_, found)| !**found)
                .map(|(w, _)| frame_name(file, w.sample))
                .collect();
            return Err(file.error(format!(
                "the {} decoder gave no picture for {}, decoding from sample {start} to the \
                 last, {}",
                track.codec.name(),
                missing.join(", "),
                track.samples.len() - 1
            )));
        }
    }
}

/// The most bytes read at once for a group of pictures: 64 MiB; a group
/// whose samples lie further apart is read a sample at a time.
const MOST_SPAN_BYTES: u64 = 64 << 20;

/// "frame 7 (0.7 s)", for the frame that sample `sample` is.
fn frame_name(file: &VideoFile, sample: usize) -> String {
    let track = file.track();
    match track.frames.iter().position(|&s| s as usize == sample) {
        Some(frame) => format!("frame {frame} ({} s)", file.times()[frame]),
        None => format!("sample {sample}"),
    }
}

/// The error of a group that does not decode: the decoder's reason for
/// sample `at`.
fn undecodable(file: &VideoFile, group: &[Wanted], at: usize, e: ff::Error) -> Error {
    let wanted: Vec<String> = group.iter().map(|w| frame_name(file, w.sample)).collect();
    file.error(format!(
        "{} does not decode: the {} decoder refused sample {at}: {e}",
        wanted.join(", "),
        file.track().codec.name()
    ))
}

/// A decoder for `track`'s pictures, with its configuration record, on
/// the calling thread alone (no threads of its own: a loader's workers
/// decode side by side, and a decoder without threads is one a forked
/// process can leave behind safely).
fn open_decoder(track: &Track) -> std::result::Result<ff::decoder::Video, String> {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // Registers nothing in FFmpeg 4 and later; kept for older ones.
        let _ = ff::init();
        // FFmpeg's notes and warnings (on stderr) quietened to its errors
        // where the process left its level at FFmpeg's default: a decoding
        // that fails is adl's error too, naming the file and frame.
        if ff::util::log::get_level() == Ok(ff::util::log::Level::Info) {
            ff::util::log::set_level(ff::util::log::Level::Error);
        }
    });
    let codec = match track.codec {
        // dav1d, FFmpeg's fastest AV1 decoder; its native one needs a GPU
        // in FFmpeg 5.
        Codec::Av1 => {
            ff::decoder::find_by_name("libdav1d").or_else(|| ff::decoder::find(ff::codec::Id::AV1))
        }
        Codec::H264 => ff::decoder::find(ff::codec::Id::H264),
        Codec::Hevc => ff::decoder::find(ff::codec::Id::HEVC),
        Codec::Vp9 => ff::decoder::find(ff::codec::Id::VP9),
    }
    .ok_or_else(|| {
        format!(
            "this FFmpeg has no {} decoder (for AV1, libavcodec built with libdav1d)",
            track.codec.name()
        )
    })?;
    let mut context = ff::codec::Context::new_with_codec(codec);
    let timescale = i32::try_from(track.timescale)
        .map_err(|_| format!("its time scale {} is too large", track.timescale))?;
    let (width, height) = (
        i32::try_from(track.width).map_err(|_| "its width is too large")?,
        i32::try_from(track.height).map_err(|_| "its height is too large")?,
    );
    let config_len = i32::try_from(track.config.len())
        .map_err(|_| "its codec configuration is too large".to_string())?;
    // SAFETY: `context` is a live, unopened codec context that this
    // function owns; the extradata is a new buffer of av_mallocz (as
    // FFmpeg requires, so that avcodec_free_context frees it), padded with
    // AV_INPUT_BUFFER_PADDING_SIZE zero bytes, of which `config_len` are
    // written from a slice of that length.
    unsafe {
        let ctx = context.as_mut_ptr();
        let padding = ff::ffi::AV_INPUT_BUFFER_PADDING_SIZE as usize;
        let extradata = ff::ffi::av_mallocz(track.config.len() + padding).cast::<u8>();
        if extradata.is_null() {
            return Err("out of memory for its codec configuration".into());
        }
        std::ptr::copy_nonoverlapping(track.config.as_ptr(), extradata, track.config.len());
        (*ctx).extradata = extradata;
        (*ctx).extradata_size = config_len;
        (*ctx).width = width;
        (*ctx).height = height;
        (*ctx).pkt_timebase = ff::ffi::AVRational {
            num: 1,
            den: timescale,
        };
    }
    context.set_threading(ff::codec::threading::Config {
        kind: ff::codec::threading::Type::None,
        count: 1,
        ..Default::default()
    });
    context
        .decoder()
        .open_as(codec)
        .and_then(|opened| opened.video())
        .map_err(|e| format!("the {} decoder would not open: {e}", codec.name()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::location::Location;

    fn test_file() -> std::sync::Arc<VideoFile> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/video/av1.mp4");
        VideoFile::open(&Location::from(path.as_path())).unwrap()
    }

    fn open_decoders() -> Vec<u64> {
        DECODERS.with_borrow(|d| d.open.iter().map(|o| o.file).collect())
    }

    #[test]
    fn a_thread_keeps_decoders_within_its_bound_closing_the_least_recently_used() {
        let first = test_file();
        let bytes = estimated_bytes(first.track());
        let fit = MOST_DECODER_BYTES / bytes;
        // Files opened apart are decoded apart: each one's decoder.
        let files: Vec<_> = (0..fit + 20).map(|_| test_file()).collect();
        let mut sink = |_: &[usize], _: &ff::frame::Video| Ok(());
        decode(&first, &[0], &mut sink).unwrap();
        for file in &files {
            decode(file, &[1], &mut sink).unwrap();
        }
        let open = open_decoders();
        assert!(open.len() <= fit, "{} decoders kept, {fit} fit", open.len());
        assert!(
            !open.contains(&first.id()),
            "the least recently used was kept"
        );
        assert!(open.contains(&files.last().unwrap().id()));
        // Used again, a closed file's decoder is made again.
        decode(&first, &[0], &mut sink).unwrap();
        assert!(open_decoders().contains(&first.id()));
    }

    #[test]
    fn a_decoder_made_before_a_fork_is_left_to_the_parent() {
        let file = test_file();
        let mut sink = |_: &[usize], _: &ff::frame::Video| Ok(());
        decode(&file, &[0], &mut sink).unwrap();
        // As the child of a fork sees its copy: another process's.
        DECODERS.with_borrow_mut(|d| d.pid = d.pid.wrapping_add(1));
        decode(&file, &[1], &mut sink).unwrap();
        DECODERS.with_borrow(|d| {
            assert_eq!(d.pid, std::process::id());
            assert_eq!(
                d.open.len(),
                1,
                "the copies were left, one new decoder made"
            );
        });
    }
}
