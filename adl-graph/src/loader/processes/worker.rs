//! [`Worker`]: the loader's end of one worker process's socket, and the
//! turns of the batches asked of it (a process makes its batches in the
//! order they were asked, so each asker reads its reply in its turn).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::shared_memory::{Block, Blocks, NO_BLOCK};
use super::{Reply, Status, WorkerProcess, lock};

/// One worker process and the loader's end of its socket.
pub(super) struct Worker<P> {
    pub(super) number: usize,
    pub(super) process: P,
    /// The writing side, and the number of batches asked so far.
    writing: Mutex<(UnixStream, u64)>,
    /// The reading side, and the number of replies read so far.
    reading: Mutex<(UnixStream, u64)>,
    /// Woken when a reply has been read.
    turn: Condvar,
    /// Batches asked and not yet read.
    pub(super) queued: AtomicUsize,
    /// The shared memory its batches' arrays come in.
    pub(super) blocks: Arc<Blocks>,
}

impl<P: WorkerProcess> Worker<P> {
    /// Worker `number`: `process`, talked to on `socket`, its arrays in
    /// `blocks`.
    pub(super) fn new(
        number: usize,
        process: P,
        socket: UnixStream,
        blocks: Arc<Blocks>,
    ) -> std::io::Result<Self> {
        let reading = socket.try_clone()?;
        Ok(Worker {
            number,
            process,
            writing: Mutex::new((socket, 0)),
            reading: Mutex::new((reading, 0)),
            turn: Condvar::new(),
            queued: AtomicUsize::new(0),
            blocks,
        })
    }

    /// Ask for the batch of `indices`, lending a block of shared memory
    /// for its arrays, then read its reply in its turn: the reply, or why
    /// there is none.
    pub(super) fn ask(&self, indices: &[usize], skip: bool) -> Result<Reply, String> {
        let mut lease = self.blocks.lend();
        let name = lease
            .as_ref()
            .and_then(|l| l.name.as_ref())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let block = lease
            .as_ref()
            .map_or((NO_BLOCK, 0), |l| (l.block.number(), l.block.len() as u64));
        let forgotten = self.blocks.take_forgotten(usize::from(u16::MAX));
        let request = match request(indices, skip, block, &name, &forgotten) {
            Ok(request) => request,
            Err(why) => {
                // Nothing was sent: the block is free again (its name
                // unlinked), and the blocks to forget wait for the next
                // request.
                if let Some(mut lease) = lease {
                    lease.unlink();
                    self.blocks.give_back(lease.block);
                }
                self.blocks.forget_later(forgotten);
                return Err(why);
            }
        };
        self.queued.fetch_add(1, Ordering::Relaxed);
        let (turn, unsent) = {
            let mut writing = lock(&self.writing);
            let turn = writing.1;
            writing.1 += 1;
            let unsent = writing.0.write_all(&request).err();
            if unsent.is_some() {
                // Its process is gone: the socket is shut, so that this
                // turn's read and every later one end at once.
                let _ = writing.0.shutdown(std::net::Shutdown::Both);
            }
            (turn, unsent)
        };
        // Read in turn even where the request was not sent, so that the
        // turns after it come.
        let mut reading = lock(&self.reading);
        while reading.1 != turn {
            reading = self.turn.wait(reading).unwrap_or_else(|p| p.into_inner());
        }
        let reply = match unsent {
            Some(e) => Err(format!("it cannot be given a batch ({e})")),
            None => read_reply(&mut reading.0),
        };
        reading.1 += 1;
        drop(reading);
        self.turn.notify_all();
        self.queued.fetch_sub(1, Ordering::Relaxed);
        // Answered, or never will be: the process has mapped the block by
        // its name, or is gone.
        if let Some(lease) = lease.as_mut() {
            lease.unlink();
        }
        let reply = reply.map(|(status, payload, needed)| {
            if needed > 0 {
                self.blocks.needed(needed);
            }
            (status, payload)
        });
        // The block goes with a batch whose arrays are in it; else (a
        // batch pickled whole, an exception, no reply) it is free again.
        let block = lease.map(|lease| lease.block);
        let block: Option<Block> = match (&reply, block) {
            (Ok((Status::InBlock, _)), block) => block,
            (_, Some(block)) => {
                self.blocks.give_back(block);
                None
            }
            (_, None) => None,
        };
        reply.map(|(status, payload)| Reply {
            status,
            payload,
            block,
        })
    }
}

/// The request for the batch of `indices`: whether to leave failed
/// samples out, the block lent (`(number, size)`, [`NO_BLOCK`] for none),
/// its name where it is new to the process, the blocks it is to unmap;
/// see the [module](super) for the bytes.
fn request(
    indices: &[usize],
    skip: bool,
    (number, size): (u32, u64),
    name: &str,
    forgotten: &[u32],
) -> Result<Vec<u8>, String> {
    let name_len = u16::try_from(name.len()).map_err(|_| "a block's name over 64 KiB")?;
    let forgotten_len = u16::try_from(forgotten.len()).map_err(|_| "over 65535 blocks to unmap")?;
    let count = u32::try_from(indices.len()).map_err(|_| "a batch of over 2^32 samples")?;
    let mut request = Vec::with_capacity(21 + name.len() + 4 * forgotten.len() + 8 * indices.len());
    request.push(u8::from(skip));
    request.extend(count.to_le_bytes());
    request.extend(number.to_le_bytes());
    request.extend(size.to_le_bytes());
    request.extend(name_len.to_le_bytes());
    request.extend(forgotten_len.to_le_bytes());
    request.extend(name.as_bytes());
    for number in forgotten {
        request.extend(number.to_le_bytes());
    }
    for &index in indices {
        request.extend((index as u64).to_le_bytes());
    }
    Ok(request)
}

/// One reply from `socket`: its status, payload and the bytes its buffers
/// needed.
fn read_reply(socket: &mut UnixStream) -> Result<(Status, Vec<u8>, u64), String> {
    let mut head = [0u8; 17];
    socket.read_exact(&mut head).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset => {
            "it ended before it sent its batch".to_string()
        }
        _ => format!("its reply cannot be read ({e})"),
    })?;
    let word = |at: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&head[at..at + 8]);
        u64::from_le_bytes(bytes)
    };
    let (len, needed) = (word(1), word(9));
    let len = usize::try_from(len).map_err(|_| format!("a reply of {len} bytes"))?;
    let mut payload = vec![0; len];
    socket
        .read_exact(&mut payload)
        .map_err(|e| format!("its reply is cut short ({e})"))?;
    // Checked once the payload is read, so that the next reply is read
    // from its start.
    let status = Status::of(head[0]).ok_or_else(|| format!("a reply of status {}", head[0]))?;
    Ok((status, payload, needed))
}
