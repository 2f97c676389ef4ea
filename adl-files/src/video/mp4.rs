//! The sample table of an MP4 file's video track, read from its `moov`
//! box: where each coded picture (a sample) is in the file, its size, its
//! decode and presentation times, whether a decoder can start at it, and
//! the codec's configuration record. Nothing else of the file is read:
//! the pictures themselves are read later, a group of pictures at a time,
//! by byte range.
//!
//! What is read (ISO/IEC 14496-12): the top-level boxes' headers (the
//! `mdat` skipped by its size), `moov/trak/{tkhd,edts/elst,mdia/{mdhd,
//! hdlr,minf/stbl/{stsd,stts,ctts,stss,stsz,stz2,stsc,stco,co64}}}`, and in
//! the visual sample entry its size and `colr` (`nclx`) box and the codec's
//! record (`avcC`, `hvcC`, `av1C`, `vpcC`). A fragmented file (`mvex`,
//! `moof`) is refused, as is an edit list of more than one stretch of
//! media. Every count is checked against the bytes that hold it before
//! anything is allocated for it, and every failure is a reason in words
//! (the caller names the file): the parser is fuzzed (`adl-fuzz`'s
//! `video` target).

use std::ops::Range;

/// The most bytes a `moov` box may have (its sample tables): 256 MiB; a
/// larger one is refused rather than read.
const MOST_MOOV_BYTES: u64 = 256 << 20;

/// The most samples a track may have: 2^24, over six days at 30 frames a
/// second; a table of more is refused before anything is allocated for it
/// (its samples' table would take over half a gigabyte).
const MOST_SAMPLES: usize = 1 << 24;

/// The most pixels of a picture: 2^26 (an 8192 x 8192 picture; 8K video
/// has half as many). A frame of RGB is then at most 192 MiB.
pub(crate) const MOST_PIXELS: usize = 1 << 26;

/// The largest sample read: 256 MiB (a picture of 8K video at the
/// highest bit rates is a few megabytes).
pub(crate) const MOST_SAMPLE_BYTES: u32 = 256 << 20;

/// A coding format adl decodes, from the sample entry's four-character
/// code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    /// H.264 / AVC (`avc1`, `avc3`; record `avcC`).
    H264,
    /// H.265 / HEVC (`hvc1`, `hev1`; record `hvcC`).
    Hevc,
    /// AV1 (`av01`; record `av1C`).
    Av1,
    /// VP9 (`vp09`; record `vpcC`).
    Vp9,
}

impl Codec {
    /// The codec of sample entry `fourcc`, and the box its record is in.
    fn of_entry(fourcc: [u8; 4]) -> Option<(Codec, [u8; 4])> {
        match &fourcc {
            b"avc1" | b"avc3" => Some((Codec::H264, *b"avcC")),
            b"hvc1" | b"hev1" => Some((Codec::Hevc, *b"hvcC")),
            b"av01" => Some((Codec::Av1, *b"av1C")),
            b"vp09" => Some((Codec::Vp9, *b"vpcC")),
            _ => None,
        }
    }

    /// The codec's usual name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Codec::H264 => "H.264",
            Codec::Hevc => "HEVC",
            Codec::Av1 => "AV1",
            Codec::Vp9 => "VP9",
        }
    }
}

/// The colour description of a `colr` box of type `nclx` (ISO/IEC 23091-2
/// code points), where the file has one; the bitstream's own, where it has
/// one, comes with each decoded picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Colour {
    /// The matrix coefficients (1: BT.709, 5 and 6: BT.601, 9: BT.2020).
    pub(crate) matrix: u16,
    /// Whether the values use the full range (0-255 for 8 bits) rather
    /// than the limited one (16-235).
    pub(crate) full_range: bool,
}

/// One coded picture of the track, in decode order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sample {
    /// Its first byte in the file.
    pub(crate) offset: u64,
    /// Its size in bytes.
    pub(crate) size: u32,
    /// Its decode time, in the track's time scale.
    pub(crate) dts: i64,
    /// Its presentation time, in the track's time scale, the edit list
    /// applied (the time players and FFmpeg's demuxer give it).
    pub(crate) pts: i64,
    /// Whether decoding can start at it (a sync sample: a key frame).
    pub(crate) sync: bool,
}

/// A video track's sample table.
#[derive(Debug, Clone)]
pub(crate) struct Track {
    /// Its coding format.
    pub(crate) codec: Codec,
    /// The codec's configuration record (the body of `avcC`, `hvcC`,
    /// `av1C` or `vpcC`): the decoder's "extradata".
    pub(crate) config: Vec<u8>,
    /// The width in pixels, as the sample entry says.
    pub(crate) width: u32,
    /// The height in pixels, as the sample entry says.
    pub(crate) height: u32,
    /// Ticks per second of its times.
    pub(crate) timescale: u32,
    /// The colour description of the sample entry, where there is one.
    pub(crate) colour: Option<Colour>,
    /// Every sample, in decode order.
    pub(crate) samples: Vec<Sample>,
    /// The frames, in presentation order: the sample each one is. A sample
    /// that the edit list leaves out (one before the edit's start) is
    /// decoded where a later one needs it but is no frame.
    pub(crate) frames: Vec<u32>,
}

impl Track {
    /// The sample table of the first video track of the MP4 file whose
    /// bytes `read` gives (`read(range)`: those bytes of the file, or the
    /// reason they cannot be read), `len` bytes long.
    pub(crate) fn read<E>(
        len: u64,
        mut read: impl FnMut(Range<u64>) -> Result<Vec<u8>, E>,
    ) -> Result<Track, Failure<E>> {
        let moov = find_moov(len, &mut read)?;
        parse_moov(&moov).map_err(Failure::Format)
    }

    /// The presentation time of frame `frame`, in seconds.
    pub(crate) fn frame_time(&self, frame: usize) -> f64 {
        self.samples[self.frames[frame] as usize].pts as f64 / f64::from(self.timescale)
    }

    /// The sample at which decoding must start for sample `sample` (in
    /// decode order): the last sync sample before it in decode order that
    /// is not after it in presentation order. (A picture shown before the
    /// key frame it is decoded after, in an open group of pictures, may
    /// refer to the group before: decoding starts at that group's.)
    pub(crate) fn group_start(&self, sample: usize) -> usize {
        let pts = self.samples[sample].pts;
        (0..=sample)
            .rev()
            .find(|&s| self.samples[s].sync && self.samples[s].pts <= pts)
            .unwrap_or(0)
    }
}

/// Why a sample table could not be read: the file's bytes could not be
/// read (`Read`, the reader's own error), or they are not an MP4 adl reads
/// (`Format`, in words).
#[derive(Debug)]
pub(crate) enum Failure<E> {
    /// A read of the file failed.
    Read(E),
    /// The file is not an MP4 file with a video track adl reads.
    Format(String),
}

/// The `moov` box's body: the top-level boxes walked by their headers
/// until it is found.
fn find_moov<E>(
    len: u64,
    read: &mut impl FnMut(Range<u64>) -> Result<Vec<u8>, E>,
) -> Result<Vec<u8>, Failure<E>> {
    let mut at = 0u64;
    let mut seen = Vec::new();
    while at < len {
        let head_len = (len - at).min(16);
        if head_len < 8 {
            break;
        }
        let head = read(at..at + head_len).map_err(Failure::Read)?;
        let mut cursor = Cursor::new(&head);
        let header = cursor
            .box_header(u64::MAX)
            .map_err(|reason| Failure::Format(format!("the box at byte {at}: {reason}")))?;
        let header = match header.size {
            u64::MAX => BoxHeader {
                size: len - at,
                ..header
            },
            size if size > len - at => {
                return Err(Failure::Format(format!(
                    "it is cut short: its {} box at byte {at} has {size} bytes, but the file                      ends {} bytes after its start (truncated?)",
                    fourcc_text(header.kind),
                    len - at
                )));
            }
            _ => header,
        };
        let body = at + header.header_len..at + header.size;
        match &header.kind {
            b"moov" => {
                if body.end - body.start > MOST_MOOV_BYTES {
                    return Err(Failure::Format(format!(
                        "its moov box has {} bytes, more than the {MOST_MOOV_BYTES} adl reads",
                        body.end - body.start
                    )));
                }
                return read(body).map_err(Failure::Read);
            }
            b"moof" => {
                return Err(Failure::Format(
                    "it is a fragmented MP4 (a moof box before any moov), which adl does not \
                     read: remux it whole (ffmpeg -i in.mp4 -c copy out.mp4)"
                        .into(),
                ));
            }
            kind => seen.push(fourcc_text(*kind)),
        }
        at = body.end;
    }
    let what = if seen.is_empty() {
        "no box".to_string()
    } else {
        format!("boxes {}", seen.join(", "))
    };
    Err(Failure::Format(format!(
        "no moov box in its {len} bytes ({what}): not an MP4 file, or one cut short before its \
         index"
    )))
}

/// A box's header.
struct BoxHeader {
    kind: [u8; 4],
    /// The header's own length (8, or 16 with a 64-bit size).
    header_len: u64,
    /// The whole box's size, header included.
    size: u64,
}

/// Boxes as their kind and body, in order.
type Boxes<'a> = Vec<([u8; 4], &'a [u8])>;

/// A reader of big-endian fields over bytes, every read checked.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.left() {
            return Err(format!(
                "{n} bytes wanted at byte {} of {}, past its end",
                self.at,
                self.bytes.len()
            ));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    fn skip(&mut self, n: usize) -> Result<(), String> {
        self.take(n).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// A full box's version (its flags skipped).
    fn version(&mut self) -> Result<u8, String> {
        let version = self.u8()?;
        self.skip(3)?;
        Ok(version)
    }

    /// A count of entries of `entry` bytes each, checked against the bytes
    /// left, so that nothing is allocated for entries that are not there.
    fn count(&mut self, entry: usize, what: &str) -> Result<usize, String> {
        let count = self.u32()? as usize;
        if count.saturating_mul(entry) > self.left() {
            return Err(format!(
                "{what} says {count} entries of {entry} bytes, but {} bytes are left",
                self.left()
            ));
        }
        Ok(count)
    }

    /// The header of the box at the cursor, whose size may be at most
    /// `room` bytes (what is left of its parent or of the file).
    fn box_header(&mut self, room: u64) -> Result<BoxHeader, String> {
        let size = u64::from(self.u32()?);
        let kind = self.array::<4>()?;
        let (header_len, size) = match size {
            0 => (8, room),
            1 => (16, self.u64()?),
            size => (8, size),
        };
        if size < header_len || size > room {
            return Err(format!(
                "box {} says it has {size} bytes, with {room} left for it",
                fourcc_text(kind)
            ));
        }
        Ok(BoxHeader {
            kind,
            header_len,
            size,
        })
    }

    /// The boxes from the cursor to the end, each as its kind and body.
    fn boxes(mut self) -> Result<Boxes<'a>, String> {
        let mut boxes = Vec::new();
        while self.left() >= 8 {
            let start = self.at;
            let header = self.box_header(self.left() as u64)?;
            let end = start + header.size as usize;
            boxes.push((
                header.kind,
                &self.bytes[start + header.header_len as usize..end],
            ));
            self.at = end;
        }
        Ok(boxes)
    }
}

/// The body of the first box of `kind` among `boxes`.
fn child<'a>(boxes: &[([u8; 4], &'a [u8])], kind: &[u8; 4]) -> Option<&'a [u8]> {
    boxes.iter().find(|(k, _)| k == kind).map(|(_, body)| *body)
}

/// The body of the box of `kind` that must be among `boxes`.
fn required<'a>(
    boxes: &[([u8; 4], &'a [u8])],
    kind: &[u8; 4],
    within: &str,
) -> Result<&'a [u8], String> {
    child(boxes, kind).ok_or_else(|| format!("its {within} has no {} box", fourcc_text(*kind)))
}

/// A four-character code as text (unprintable bytes escaped).
fn fourcc_text(kind: [u8; 4]) -> String {
    kind.iter()
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect()
}

/// The first video track of a `moov` box's body.
fn parse_moov(moov: &[u8]) -> Result<Track, String> {
    let boxes = Cursor::new(moov).boxes()?;
    if child(&boxes, b"mvex").is_some() {
        return Err(
            "it is a fragmented MP4 (its moov has an mvex box), which adl does not \
                    read: remux it whole (ffmpeg -i in.mp4 -c copy out.mp4)"
                .into(),
        );
    }
    let movie_timescale = match child(&boxes, b"mvhd") {
        Some(mvhd) => movie_timescale(mvhd)?,
        None => 0,
    };
    let mut other_tracks = Vec::new();
    for (kind, body) in &boxes {
        if kind != b"trak" {
            continue;
        }
        let trak = Cursor::new(body).boxes()?;
        let mdia = Cursor::new(required(&trak, b"mdia", "track")?).boxes()?;
        let handler = handler(required(&mdia, b"hdlr", "track's mdia")?)?;
        if &handler != b"vide" {
            other_tracks.push(fourcc_text(handler));
            continue;
        }
        return parse_video_track(&trak, &mdia, movie_timescale)
            .map_err(|reason| format!("its video track: {reason}"));
    }
    Err(if other_tracks.is_empty() {
        "it has no track".to_string()
    } else {
        format!(
            "it has no video track (its tracks: {})",
            other_tracks.join(", ")
        )
    })
}

/// A movie header's time scale (that of the edit lists' durations).
fn movie_timescale(mvhd: &[u8]) -> Result<u32, String> {
    let mut c = Cursor::new(mvhd);
    match c.version()? {
        1 => c.skip(16)?,
        _ => c.skip(8)?,
    }
    c.u32()
}

/// A handler box's type (`vide`, `soun`...).
fn handler(hdlr: &[u8]) -> Result<[u8; 4], String> {
    let mut c = Cursor::new(hdlr);
    c.version()?;
    c.skip(4)?;
    c.array()
}

/// A video track from its `trak` and `mdia` boxes.
fn parse_video_track(
    trak: &[([u8; 4], &[u8])],
    mdia: &[([u8; 4], &[u8])],
    movie_timescale: u32,
) -> Result<Track, String> {
    let timescale = media_timescale(required(mdia, b"mdhd", "mdia")?)?;
    let minf = Cursor::new(required(mdia, b"minf", "mdia")?).boxes()?;
    let stbl = Cursor::new(required(&minf, b"stbl", "minf")?).boxes()?;
    let entry = sample_entry(required(&stbl, b"stsd", "stbl")?)?;
    let sizes = match (child(&stbl, b"stsz"), child(&stbl, b"stz2")) {
        (Some(stsz), _) => sample_sizes(stsz)?,
        (None, Some(stz2)) => compact_sample_sizes(stz2)?,
        (None, None) => return Err("its stbl has no stsz or stz2 box".into()),
    };
    let count = sizes.len();
    let dts = decode_times(required(&stbl, b"stts", "stbl")?, count)?;
    let offsets = match child(&stbl, b"ctts") {
        Some(ctts) => composition_offsets(ctts, count)?,
        None => vec![0; count],
    };
    let sync = match child(&stbl, b"stss") {
        Some(stss) => sync_samples(stss, count)?,
        None => vec![true; count],
    };
    let chunks = match (child(&stbl, b"stco"), child(&stbl, b"co64")) {
        (Some(stco), _) => chunk_offsets(stco, false)?,
        (None, Some(co64)) => chunk_offsets(co64, true)?,
        (None, None) => return Err("its stbl has no stco or co64 box".into()),
    };
    let positions = sample_offsets(required(&stbl, b"stsc", "stbl")?, &chunks, &sizes)?;
    let edit = match child(trak, b"edts") {
        Some(edts) => match child(&Cursor::new(edts).boxes()?, b"elst") {
            Some(elst) => edit(elst, movie_timescale, timescale)?,
            None => Edit::NONE,
        },
        None => Edit::NONE,
    };
    let samples: Vec<Sample> = (0..count)
        .map(|i| {
            let pts = dts[i]
                .checked_add(offsets[i])
                .and_then(|pts| pts.checked_add(edit.shift))
                .ok_or_else(|| format!("sample {i}'s presentation time overflows"))?;
            Ok(Sample {
                offset: positions[i],
                size: sizes[i],
                dts: dts[i],
                pts,
                sync: sync[i],
            })
        })
        .collect::<Result<_, String>>()?;
    if !samples.iter().any(|s| s.sync) && !samples.is_empty() {
        return Err(
            "none of its samples is a sync sample (a key frame) to start decoding at".into(),
        );
    }
    let mut frames: Vec<u32> = (0..count as u32)
        .filter(|&i| edit.shows(samples[i as usize].pts))
        .collect();
    frames.sort_by_key(|&i| (samples[i as usize].pts, i));
    if let Some(pair) = frames
        .windows(2)
        .find(|pair| samples[pair[0] as usize].pts == samples[pair[1] as usize].pts)
    {
        return Err(format!(
            "samples {} and {} have the same presentation time ({} ticks)",
            pair[0], pair[1], samples[pair[0] as usize].pts
        ));
    }
    Ok(Track {
        codec: entry.codec,
        config: entry.config,
        width: entry.width,
        height: entry.height,
        timescale,
        colour: entry.colour,
        samples,
        frames,
    })
}

/// A media header's time scale, not zero.
fn media_timescale(mdhd: &[u8]) -> Result<u32, String> {
    let mut c = Cursor::new(mdhd);
    match c.version()? {
        1 => c.skip(16)?,
        _ => c.skip(8)?,
    }
    match c.u32()? {
        0 => Err("its mdhd gives a time scale of 0 ticks per second".into()),
        timescale => Ok(timescale),
    }
}

/// What a visual sample entry says.
struct Entry {
    codec: Codec,
    config: Vec<u8>,
    width: u32,
    height: u32,
    colour: Option<Colour>,
}

/// The first sample entry of a `stsd` box: a visual one of a codec adl
/// decodes.
fn sample_entry(stsd: &[u8]) -> Result<Entry, String> {
    let mut c = Cursor::new(stsd);
    c.version()?;
    if c.u32()? == 0 {
        return Err("its stsd has no sample entry".into());
    }
    let header = c.box_header(c.left() as u64)?;
    let body = c.take((header.size - header.header_len) as usize)?;
    let Some((codec, record)) = Codec::of_entry(header.kind) else {
        return Err(format!(
            "its pictures are coded as `{}`, which adl does not decode (it decodes H.264, HEVC, \
             AV1 and VP9)",
            fourcc_text(header.kind)
        ));
    };
    // The visual sample entry's fields (ISO/IEC 14496-12, 12.1.3), then
    // its boxes.
    let mut fields = Cursor::new(body);
    fields.skip(24)?;
    let width = u32::from(fields.u16()?);
    let height = u32::from(fields.u16()?);
    fields.skip(50)?;
    let boxes = fields.boxes()?;
    let config = required(&boxes, &record, "sample entry")?.to_vec();
    let colour = match child(&boxes, b"colr") {
        Some(colr) => colour(colr)?,
        None => None,
    };
    if width == 0 || height == 0 {
        return Err(format!(
            "its sample entry gives a size of {width} x {height} pixels"
        ));
    }
    if width as usize * height as usize > MOST_PIXELS {
        return Err(format!(
            "its pictures are {width} x {height} pixels, more than the {MOST_PIXELS} adl decodes \
             (8K video is 33,177,600)"
        ));
    }
    Ok(Entry {
        codec,
        config,
        width,
        height,
        colour,
    })
}

/// A `colr` box's description, where it is of type `nclx` (the others,
/// ICC profiles, say nothing of the matrix).
fn colour(colr: &[u8]) -> Result<Option<Colour>, String> {
    let mut c = Cursor::new(colr);
    if &c.array::<4>()? != b"nclx" {
        return Ok(None);
    }
    let _primaries = c.u16()?;
    let _transfer = c.u16()?;
    let matrix = c.u16()?;
    let full_range = c.u8()? & 0x80 != 0;
    Ok(Some(Colour { matrix, full_range }))
}

/// `count` samples, or the error of a table of more than adl reads.
fn sample_count(count: usize, box_name: &str) -> Result<usize, String> {
    if count > MOST_SAMPLES {
        return Err(format!(
            "its {box_name} says {count} samples, more than the {MOST_SAMPLES} adl reads in a track"
        ));
    }
    Ok(count)
}

/// Every sample's size, from a `stsz` box.
fn sample_sizes(stsz: &[u8]) -> Result<Vec<u32>, String> {
    let mut c = Cursor::new(stsz);
    c.version()?;
    let size = c.u32()?;
    if size != 0 {
        // One size for all: the count is bounded by nothing in the box.
        let count = sample_count(c.u32()? as usize, "stsz")?;
        return Ok(vec![size; count]);
    }
    let count = sample_count(c.count(4, "its stsz")?, "stsz")?;
    (0..count).map(|_| c.u32()).collect()
}

/// Every sample's size, from a compact `stz2` box.
fn compact_sample_sizes(stz2: &[u8]) -> Result<Vec<u32>, String> {
    let mut c = Cursor::new(stz2);
    c.version()?;
    c.skip(3)?;
    let bits = c.u8()?;
    let count = sample_count(c.u32()? as usize, "stz2")?;
    let bytes = match bits {
        4 => count.div_ceil(2),
        8 => count,
        16 => count.saturating_mul(2),
        other => return Err(format!("its stz2 has sizes of {other} bits (4, 8 or 16)")),
    };
    let packed = c.take(bytes)?;
    Ok((0..count)
        .map(|i| match bits {
            4 => u32::from(if i % 2 == 0 {
                packed[i / 2] >> 4
            } else {
                packed[i / 2] & 0xF
            }),
            8 => u32::from(packed[i]),
            _ => u32::from(u16::from_be_bytes([packed[2 * i], packed[2 * i + 1]])),
        })
        .collect())
}

/// Every sample's decode time, from a `stts` box, for `count` samples.
fn decode_times(stts: &[u8], count: usize) -> Result<Vec<i64>, String> {
    let mut c = Cursor::new(stts);
    c.version()?;
    let entries = c.count(8, "its stts")?;
    let mut times = Vec::with_capacity(count);
    let mut time = 0i64;
    for _ in 0..entries {
        let run = c.u32()? as usize;
        let delta = i64::from(c.u32()?);
        for _ in 0..run.min(count - times.len()) {
            times.push(time);
            time = time.checked_add(delta).ok_or("its decode times overflow")?;
        }
    }
    if times.len() < count {
        return Err(format!(
            "its stts gives times for {} of its {count} samples",
            times.len()
        ));
    }
    Ok(times)
}

/// Every sample's composition offset, from a `ctts` box (signed, in both
/// versions, as FFmpeg reads them).
fn composition_offsets(ctts: &[u8], count: usize) -> Result<Vec<i64>, String> {
    let mut c = Cursor::new(ctts);
    c.version()?;
    let entries = c.count(8, "its ctts")?;
    let mut offsets = Vec::with_capacity(count);
    for _ in 0..entries {
        let run = c.u32()? as usize;
        let offset = i64::from(c.u32()? as i32);
        let run = run.min(count - offsets.len());
        offsets.extend(std::iter::repeat_n(offset, run));
    }
    if offsets.len() < count {
        return Err(format!(
            "its ctts gives offsets for {} of its {count} samples",
            offsets.len()
        ));
    }
    Ok(offsets)
}

/// Which of `count` samples are sync samples, from a `stss` box.
fn sync_samples(stss: &[u8], count: usize) -> Result<Vec<bool>, String> {
    let mut c = Cursor::new(stss);
    c.version()?;
    let entries = c.count(4, "its stss")?;
    let mut sync = vec![false; count];
    for _ in 0..entries {
        let number = c.u32()? as usize;
        match number.checked_sub(1).and_then(|i| sync.get_mut(i)) {
            Some(flag) => *flag = true,
            None => {
                return Err(format!(
                    "its stss names sample {number} of {count} (numbered from 1)"
                ));
            }
        }
    }
    Ok(sync)
}

/// Every chunk's offset, from a `stco` (32-bit) or `co64` box.
fn chunk_offsets(stco: &[u8], wide: bool) -> Result<Vec<u64>, String> {
    let mut c = Cursor::new(stco);
    c.version()?;
    let count = c.count(if wide { 8 } else { 4 }, "its chunk offset box")?;
    (0..count)
        .map(|_| {
            if wide {
                c.u64()
            } else {
                c.u32().map(u64::from)
            }
        })
        .collect()
}

/// Every sample's offset in the file: the chunks' offsets, the samples of
/// each chunk from a `stsc` box, and their sizes.
fn sample_offsets(stsc: &[u8], chunks: &[u64], sizes: &[u32]) -> Result<Vec<u64>, String> {
    let mut c = Cursor::new(stsc);
    c.version()?;
    let entries = c.count(12, "its stsc")?;
    let mut runs = Vec::with_capacity(entries);
    for _ in 0..entries {
        let first_chunk = c.u32()? as usize;
        let per_chunk = c.u32()? as usize;
        c.skip(4)?;
        if first_chunk == 0 || runs.last().is_some_and(|&(last, _)| first_chunk <= last) {
            return Err(format!(
                "its stsc's runs of chunks are not in order from 1 (chunk {first_chunk})"
            ));
        }
        runs.push((first_chunk, per_chunk));
    }
    let mut offsets = Vec::with_capacity(sizes.len());
    for (r, &(first_chunk, per_chunk)) in runs.iter().enumerate() {
        let end_chunk = runs.get(r + 1).map_or(chunks.len() + 1, |&(next, _)| next);
        for chunk in first_chunk..end_chunk {
            let Some(&start) = chunks.get(chunk - 1) else {
                return Err(format!(
                    "its stsc names chunk {chunk}, but there are {} chunks",
                    chunks.len()
                ));
            };
            let mut at = start;
            for _ in 0..per_chunk {
                let Some(&size) = sizes.get(offsets.len()) else {
                    return Ok(offsets);
                };
                offsets.push(at);
                at = at
                    .checked_add(u64::from(size))
                    .ok_or("its samples' offsets overflow")?;
            }
        }
    }
    if offsets.len() < sizes.len() {
        return Err(format!(
            "its chunks hold {} of its {} samples",
            offsets.len(),
            sizes.len()
        ));
    }
    Ok(offsets)
}

/// The stretch of media an edit list shows: presentation times are
/// shifted by `shift`, and those in `start..end` (after the shift) shown.
#[derive(Debug, Clone, Copy)]
struct Edit {
    shift: i64,
    start: i64,
    end: Option<i64>,
}

impl Edit {
    /// No edit list: every sample shown at its own time.
    const NONE: Edit = Edit {
        shift: 0,
        start: i64::MIN,
        end: None,
    };

    fn shows(&self, pts: i64) -> bool {
        pts >= self.start && self.end.is_none_or(|end| pts < end)
    }
}

/// An `elst` box's edit: empty edits at its start delay the media, then
/// one stretch of media from `media_time` is shown for its duration. More
/// than one stretch (a file cut and spliced by its edit list) is refused.
fn edit(elst: &[u8], movie_timescale: u32, timescale: u32) -> Result<Edit, String> {
    let mut c = Cursor::new(elst);
    let version = c.version()?;
    let entry = if version == 1 { 20 } else { 12 };
    let entries = c.count(entry, "its elst")?;
    // The durations are in the movie's time scale; converted to the
    // track's.
    let to_media = |duration: u64| -> Result<i64, String> {
        if movie_timescale == 0 {
            return Err("its edit list has durations but the movie has no time scale".into());
        }
        let ticks = u128::from(duration) * u128::from(timescale) / u128::from(movie_timescale);
        i64::try_from(ticks).map_err(|_| "its edit list's durations overflow".to_string())
    };
    let mut delay = 0i64;
    let mut shown: Option<Edit> = None;
    for _ in 0..entries {
        let (duration, media_time) = if version == 1 {
            (c.u64()?, c.u64()? as i64)
        } else {
            (u64::from(c.u32()?), i64::from(c.u32()? as i32))
        };
        c.skip(4)?; // the rate
        if media_time == -1 {
            if shown.is_some() {
                return Err("its edit list has an empty edit after its media".into());
            }
            delay = delay
                .checked_add(to_media(duration)?)
                .ok_or("its edit list's delay overflows")?;
            continue;
        }
        if shown.is_some() {
            return Err(
                "its edit list shows more than one stretch of its media, which adl does not \
                 follow: remux it (ffmpeg -i in.mp4 -c copy out.mp4)"
                    .into(),
            );
        }
        let shift = delay
            .checked_sub(media_time)
            .ok_or("its edit list's start overflows")?;
        // A duration of 0 (some muxers) shows the media to its end.
        let end = match duration {
            0 => None,
            _ => Some(
                delay
                    .checked_add(to_media(duration)?.max(1))
                    .ok_or("its edit list's end overflows")?,
            ),
        };
        shown = Some(Edit {
            shift,
            start: delay,
            end,
        });
    }
    Ok(shown.unwrap_or(Edit {
        shift: delay,
        start: i64::MIN,
        end: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box of `kind` around `body`.
    fn mp4_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }

    /// A full box (version 0, no flags) of `kind` with `fields`.
    fn full_box(kind: &[u8; 4], fields: &[u32]) -> Vec<u8> {
        let mut body = vec![0, 0, 0, 0];
        for f in fields {
            body.extend_from_slice(&f.to_be_bytes());
        }
        mp4_box(kind, &body)
    }

    /// A visual sample entry `avc1` of 64 x 48 with an `avcC` record.
    fn avc1() -> Vec<u8> {
        let mut body = vec![0u8; 24];
        body.extend_from_slice(&64u16.to_be_bytes());
        body.extend_from_slice(&48u16.to_be_bytes());
        body.extend_from_slice(&[0u8; 50]);
        body.extend(mp4_box(b"avcC", &[1, 100, 0, 30, 0xFF]));
        let mut colr = b"nclx".to_vec();
        colr.extend_from_slice(&[0, 1, 0, 1, 0, 1, 0x80]);
        body.extend(mp4_box(b"colr", &colr));
        mp4_box(b"avc1", &body)
    }

    /// A file of five samples of 10 bytes in two chunks, a key frame every
    /// three, times of 512 ticks out of 12,800 (25 frames/s), B-frame
    /// offsets, and an edit list starting the media at 1,024 ticks.
    fn file() -> Vec<u8> {
        let stsd = {
            let mut body = vec![0, 0, 0, 0, 0, 0, 0, 1];
            body.extend(avc1());
            mp4_box(b"stsd", &body)
        };
        let stbl = [
            stsd,
            full_box(b"stts", &[1, 5, 512]),
            full_box(b"ctts", &[4, 1, 1024, 1, 2560, 2, 1024, 1, 2048]),
            full_box(b"stss", &[2, 1, 4]),
            full_box(b"stsz", &[0, 5, 10, 10, 10, 10, 10]),
            full_box(b"stsc", &[2, 1, 3, 1, 2, 2, 1]),
            full_box(b"stco", &[2, 1000, 2000]),
        ]
        .concat();
        let minf = mp4_box(b"minf", &mp4_box(b"stbl", &stbl));
        let mdia = [
            full_box(b"mdhd", &[0, 0, 12_800, 2560, 0]),
            full_box(b"hdlr", &[0, u32::from_be_bytes(*b"vide"), 0, 0, 0]),
            minf,
        ]
        .concat();
        let edts = mp4_box(b"edts", &full_box(b"elst", &[1, 200, 1024, 0x0001_0000]));
        let trak = mp4_box(b"trak", &[edts, mp4_box(b"mdia", &mdia)].concat());
        let moov = mp4_box(
            b"moov",
            &[full_box(b"mvhd", &[0, 0, 1000, 200]), trak].concat(),
        );
        [
            mp4_box(b"ftyp", b"isom\0\0\0\0"),
            mp4_box(b"mdat", &[0; 64]),
            moov,
        ]
        .concat()
    }

    fn read(bytes: &[u8]) -> Result<Track, Failure<String>> {
        Track::read(bytes.len() as u64, |range: Range<u64>| {
            bytes
                .get(range.start as usize..range.end as usize)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "past the end".to_string())
        })
    }

    fn reason(bytes: &[u8]) -> String {
        match read(bytes) {
            Err(Failure::Format(reason)) => reason,
            other => panic!("expected a format failure, got {other:?}"),
        }
    }

    #[test]
    fn the_sample_table_gives_offsets_times_and_key_frames() {
        let track = read(&file()).unwrap();
        assert_eq!(track.codec, Codec::H264);
        assert_eq!(track.config, [1, 100, 0, 30, 0xFF]);
        assert_eq!(
            (track.width, track.height, track.timescale),
            (64, 48, 12_800)
        );
        assert_eq!(
            track.colour,
            Some(Colour {
                matrix: 1,
                full_range: true
            })
        );
        let offsets: Vec<u64> = track.samples.iter().map(|s| s.offset).collect();
        assert_eq!(offsets, [1000, 1010, 1020, 2000, 2010]);
        let pts: Vec<i64> = track.samples.iter().map(|s| s.pts).collect();
        // dts 0, 512, ... plus the offsets, less the edit's 1,024.
        assert_eq!(pts, [0, 2048, 1024, 1536, 3072]);
        let sync: Vec<bool> = track.samples.iter().map(|s| s.sync).collect();
        assert_eq!(sync, [true, false, false, true, false]);
        // Presentation order; the edit shows 200 ms = 2,560 ticks, so the
        // sample at 3,072 is left out.
        assert_eq!(track.frames, [0, 2, 3, 1]);
        assert_eq!(track.frame_time(1), 1024.0 / 12_800.0);
        assert_eq!(track.group_start(2), 0);
        assert_eq!(track.group_start(4), 3);
    }

    #[test]
    fn damaged_tables_are_refused_in_words() {
        let good = file();
        let cut = reason(&good[..good.len() - 20]);
        assert!(
            cut.starts_with("it is cut short: its moov box at byte 88 has")
                && cut.ends_with("(truncated?)"),
            "{cut}"
        );
        assert!(reason(b"not an mp4 at all, just text").contains("cut short"));
        assert_eq!(
            reason(&good[..16]),
            "no moov box in its 16 bytes (boxes ftyp): not an MP4 file, or one cut short before \
             its index"
        );
        let mut wrong_codec = good.clone();
        let at = wrong_codec.windows(4).position(|w| w == b"avc1").unwrap();
        wrong_codec[at..at + 4].copy_from_slice(b"mjpa");
        assert!(reason(&wrong_codec).contains("coded as `mjpa`"));
        let mut huge_count = good.clone();
        let at = huge_count.windows(4).position(|w| w == b"stsz").unwrap();
        huge_count[at + 12..at + 16].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(reason(&huge_count).contains("entries of 4 bytes"));
        let mut no_video = good.clone();
        let at = no_video.windows(4).position(|w| w == b"vide").unwrap();
        no_video[at..at + 4].copy_from_slice(b"soun");
        assert_eq!(
            reason(&no_video),
            "it has no video track (its tracks: soun)"
        );
    }

    #[test]
    fn a_table_of_too_many_samples_is_refused_before_it_is_allocated() {
        // One size for all samples, and a count of 369 million: what the
        // fuzzer found allocated over a gigabyte.
        let mut huge = file();
        let at = huge.windows(4).position(|w| w == b"stsz").unwrap();
        huge[at + 8..at + 12].copy_from_slice(&10u32.to_be_bytes());
        huge[at + 12..at + 16].copy_from_slice(&369_098_752u32.to_be_bytes());
        assert_eq!(
            reason(&huge),
            "its video track: its stsz says 369098752 samples, more than the 16777216 adl reads \
             in a track"
        );
    }

    #[test]
    fn pictures_larger_than_8192_x_8192_are_refused() {
        // 49083 x 45495: a frame of 6.7 GB, which the fuzzer's second
        // finding allocated.
        let mut huge = file();
        let at = huge.windows(4).position(|w| w == b"avc1").unwrap();
        huge[at + 28..at + 30].copy_from_slice(&49083u16.to_be_bytes());
        huge[at + 30..at + 32].copy_from_slice(&45495u16.to_be_bytes());
        let reason = reason(&huge);
        assert!(
            reason.ends_with(
                "its pictures are 49083 x 45495 pixels, more than the 67108864 adl decodes (8K \
                 video is 33,177,600)"
            ),
            "{reason}"
        );
    }

    #[test]
    fn a_failed_read_is_the_readers_error() {
        let failed = Track::read(1000, |_| Err::<Vec<u8>, _>("the store went away"));
        assert!(matches!(failed, Err(Failure::Read("the store went away"))));
    }
}
