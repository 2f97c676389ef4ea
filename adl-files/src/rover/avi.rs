//! The frames of an MJPEG video in an AVI (RIFF) file: where each frame's
//! JPEG bytes are, from the file's `idx1` index, or from its `movi`
//! lists where there is no index (and in OpenDML's `AVIX` parts, which
//! files past 1 GiB continue in).

use std::ops::Range;

use crate::ranged::RangedFile;

/// The largest `hdrl` list read whole (its stream headers; ffmpeg's and
/// OpenCV's are a few KiB).
const MAX_HEADER: u64 = 1 << 20;

/// Where the JPEG bytes of each frame of the AVI `file` are, in order:
/// the chunks of its first video stream (`00dc`, `01db`, ...). A file that
/// is not an AVI, without a video stream or a `movi` list, or whose index
/// or chunks run past its end, is refused, the reason saying at which
/// byte.
pub(crate) fn frames(file: &RangedFile) -> Result<Vec<Range<u64>>, String> {
    let len = file.len();
    let head = bytes(file, 0..12.min(len))?;
    if head.len() < 12 || &head[0..4] != b"RIFF" || &head[8..12] != b"AVI " {
        let start: Vec<String> = head.iter().take(12).map(|b| format!("{b:02x}")).collect();
        return Err(format!(
            "not an AVI file (it starts with bytes {}; an AVI starts with `RIFF`, its size, `AVI `)",
            start.join(" ")
        ));
    }
    let riff_end = (8 + u64::from(le32(&head[4..8]))).min(len);

    // The first RIFF's chunks: the headers, the frames, their index.
    let mut header = None;
    let mut movi = None;
    let mut idx1 = None;
    for chunk in chunks(file, 12, riff_end)? {
        let chunk = chunk?;
        match (&chunk.id, chunk.list.as_ref()) {
            (b"LIST", Some(b"hdrl")) => header = Some(chunk.data.clone()),
            (b"LIST", Some(b"movi")) => movi = Some(chunk.data.clone()),
            (b"idx1", None) => idx1 = Some(chunk.data.clone()),
            _ => {}
        }
    }
    let header = header.ok_or("no `hdrl` list of stream headers in its first RIFF chunk")?;
    if header.end - header.start > MAX_HEADER {
        return Err(format!(
            "its `hdrl` list is {} bytes long; adl reads headers of up to {MAX_HEADER}",
            header.end - header.start
        ));
    }
    let stream = video_stream(&bytes(file, header.clone())?, header.start)?;
    let ids = [
        format!("{stream:02}dc").into_bytes(),
        format!("{stream:02}db").into_bytes(),
    ];
    let wanted = |id: &[u8; 4]| ids.iter().any(|w| w.as_slice() == id);
    let movi = movi.ok_or("no `movi` list of frames in its first RIFF chunk")?;
    // The `movi` list's data start with its type; the index counts from
    // that type's first byte.
    let movi_base = movi.start - 4;

    let mut found = match idx1 {
        Some(index) => from_index(file, index, movi_base, &wanted)?,
        None => walk(file, movi.start, movi.end, &wanted)?,
    };

    // OpenDML: `RIFF AVIX` parts after the first, each with a `movi` list.
    let mut at = riff_end + (riff_end & 1);
    while at + 12 <= len {
        let part = bytes(file, at..at + 12)?;
        let size = u64::from(le32(&part[4..8]));
        let end = (at + 8 + size).min(len);
        if &part[0..4] != b"RIFF" || &part[8..12] != b"AVIX" {
            break;
        }
        for chunk in chunks(file, at + 12, end)? {
            let chunk = chunk?;
            if &chunk.id == b"LIST" && chunk.list.as_ref() == Some(b"movi") {
                found.extend(walk(file, chunk.data.start, chunk.data.end, &wanted)?);
            }
        }
        at = end + (end & 1);
    }
    Ok(found)
}

/// A chunk of a RIFF file: its id, its list type if it is a list, and
/// where its data are (after the list type, for a list).
struct Chunk {
    id: [u8; 4],
    list: Option<[u8; 4]>,
    data: Range<u64>,
}

/// The chunks from byte `start` to `end` of `file`, one level down (a
/// list's chunks are not entered). A chunk that runs past `end` is an
/// error naming where it starts.
fn chunks(
    file: &RangedFile,
    start: u64,
    end: u64,
) -> Result<impl Iterator<Item = Result<Chunk, String>> + '_, String> {
    let mut at = start;
    let mut failed = false;
    Ok(std::iter::from_fn(move || {
        if failed || at + 8 > end {
            return None;
        }
        let head = match bytes(file, at..(at + 12).min(end)) {
            Ok(head) => head,
            Err(e) => {
                failed = true;
                return Some(Err(e));
            }
        };
        let id: [u8; 4] = head[0..4].try_into().unwrap_or_default();
        let size = u64::from(le32(&head[4..8]));
        let data_end = at + 8 + size;
        if data_end > end {
            failed = true;
            return Some(Err(format!(
                "the chunk `{}` at byte {at} is {size} bytes long and runs past byte {end}, where {}: truncated",
                String::from_utf8_lossy(&id).escape_debug(),
                if end == file.len() {
                    "the file ends"
                } else {
                    "its list ends"
                }
            )));
        }
        let list = (matches!(&id, b"LIST" | b"RIFF") && head.len() >= 12)
            .then(|| head[8..12].try_into().unwrap_or_default());
        let data = match list {
            Some(_) => at + 12..data_end,
            None => at + 8..data_end,
        };
        at = data_end + (size & 1);
        Some(Ok(Chunk { id, list, data }))
    }))
}

/// The number of the first video stream (`strh` of type `vids`) in the
/// `hdrl` list's data `header` (which starts at byte `offset`).
fn video_stream(header: &[u8], offset: u64) -> Result<usize, String> {
    let mut at = 0usize;
    let mut stream = 0usize;
    while at + 12 <= header.len() {
        let id = &header[at..at + 4];
        let size = le32(&header[at + 4..at + 8]) as usize;
        if id == b"LIST" && &header[at + 8..at + 12] == b"strl" {
            // The stream's header is the list's first chunk.
            let strh = at + 12;
            if header.get(strh..strh + 4) == Some(b"strh") {
                if header.get(strh + 8..strh + 12) == Some(b"vids") {
                    return Ok(stream);
                }
            } else {
                return Err(format!(
                    "the stream list at byte {} does not start with its `strh` header",
                    offset + at as u64
                ));
            }
            stream += 1;
        }
        at += 8 + size + (size & 1);
    }
    Err("no video stream: no `strh` header of type `vids`".into())
}

/// The frames the `idx1` index (its data at `index`) lists for the
/// wanted chunk ids, the offsets counted from `movi_base` (the `movi`
/// list's type), as the AVI specification has them, or from the file's
/// start, as some writers put them (told by where the first entry's chunk
/// id is).
fn from_index(
    file: &RangedFile,
    index: Range<u64>,
    movi_base: u64,
    wanted: &impl Fn(&[u8; 4]) -> bool,
) -> Result<Vec<Range<u64>>, String> {
    let entries = bytes(file, index.clone())?;
    let mut base = None;
    let mut frames = Vec::new();
    for (k, entry) in entries.chunks_exact(16).enumerate() {
        let id: [u8; 4] = entry[0..4].try_into().unwrap_or_default();
        if !wanted(&id) {
            continue;
        }
        let offset = u64::from(le32(&entry[8..12]));
        let size = u64::from(le32(&entry[12..16]));
        let base = match base {
            Some(base) => base,
            None => {
                let at = |b: u64| {
                    bytes(file, b + offset..(b + offset + 4).min(file.len()))
                        .is_ok_and(|head| head == id)
                };
                let found = if at(movi_base) {
                    movi_base
                } else if at(0) {
                    0
                } else {
                    return Err(format!(
                        "its `idx1` index (at byte {}) puts the first frame at offset {offset}, where there is no `{}` chunk: a damaged index",
                        index.start,
                        String::from_utf8_lossy(&id).escape_debug()
                    ));
                };
                *base.insert(found)
            }
        };
        let start = base + offset + 8;
        let end = start + size;
        if end > file.len() {
            return Err(format!(
                "its `idx1` index (entry {k}) puts frame {} at bytes {start}..{end}, past the file's end ({} bytes): truncated",
                frames.len(),
                file.len()
            ));
        }
        frames.push(start..end);
    }
    Ok(frames)
}

/// The wanted chunks in the `movi` list data `start..end`, walked chunk
/// by chunk (entering `rec ` lists), in order.
fn walk(
    file: &RangedFile,
    start: u64,
    end: u64,
    wanted: &impl Fn(&[u8; 4]) -> bool,
) -> Result<Vec<Range<u64>>, String> {
    let mut frames = Vec::new();
    for chunk in chunks(file, start, end)? {
        let chunk = chunk?;
        if &chunk.id == b"LIST" {
            if chunk.list.as_ref() == Some(b"rec ") {
                frames.extend(walk(file, chunk.data.start, chunk.data.end, wanted)?);
            }
        } else if wanted(&chunk.id) {
            frames.push(chunk.data);
        }
    }
    Ok(frames)
}

/// The bytes `range` of `file`, or the reason they cannot be read.
fn bytes(file: &RangedFile, range: Range<u64>) -> Result<Vec<u8>, String> {
    file.read(range, "the AVI structure")
        .map(|piece| piece.to_vec())
        .map_err(|e| match e {
            adl_core::Error::Source { reason, .. } => reason,
            other => other.to_string(),
        })
}

/// A little-endian `u32` from 4 bytes.
fn le32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[..4].try_into().unwrap_or_default())
}
