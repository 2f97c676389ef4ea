//! The loader's side of worker processes (`adl::graph::loader::processes`)
//! against a stand-in process that speaks the protocol on a socket pair:
//! requests in order and replies read in turn, a batch's buffers through
//! the block lent and the pool that lends them, a process that dies named
//! with how it ended. (The real processes, Python's, are tested by the
//! Python package's suite: `test_loader_processes.py`.)
#![cfg(unix)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::thread::JoinHandle;

use adl::Error;
use adl::graph::loader::processes::{
    Blocks, NO_BLOCK, Started, Status, WorkerProcess, WorkerProcesses,
};

/// The stand-in's process: a pid and an end of our choosing.
struct Process(u32);

impl WorkerProcess for Process {
    fn pid(&self) -> u32 {
        self.0
    }

    fn end(&self) -> String {
        "it was killed by signal 9".into()
    }
}

/// A request as the process reads it.
#[derive(Debug)]
struct Request {
    skip: bool,
    block: u32,
    size: u64,
    name: String,
    forgotten: Vec<u32>,
    indices: Vec<u64>,
}

fn read_request(socket: &mut UnixStream) -> Option<Request> {
    let mut head = [0u8; 21];
    socket.read_exact(&mut head).ok()?;
    let count = u32::from_le_bytes(head[1..5].try_into().unwrap()) as usize;
    let block = u32::from_le_bytes(head[5..9].try_into().unwrap());
    let size = u64::from_le_bytes(head[9..17].try_into().unwrap());
    let name_len = u16::from_le_bytes(head[17..19].try_into().unwrap()) as usize;
    let forgotten_len = u16::from_le_bytes(head[19..21].try_into().unwrap()) as usize;
    let mut rest = vec![0u8; name_len + 4 * forgotten_len + 8 * count];
    socket.read_exact(&mut rest).ok()?;
    let name = String::from_utf8(rest[..name_len].to_vec()).unwrap();
    let forgotten = rest[name_len..name_len + 4 * forgotten_len]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let indices = rest[name_len + 4 * forgotten_len..]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Some(Request {
        skip: head[0] == 1,
        block,
        size,
        name,
        forgotten,
        indices,
    })
}

fn reply(socket: &mut UnixStream, status: u8, payload: &[u8], needed: u64) {
    let mut out = vec![status];
    out.extend((payload.len() as u64).to_le_bytes());
    out.extend(needed.to_le_bytes());
    out.extend(payload);
    socket.write_all(&out).unwrap();
}

/// A stand-in process serving `serve` for each request until its socket
/// closes (or `serve` says to stop), and the loader's side of it.
fn stand_in(
    pid: u32,
    serve: impl FnMut(&mut UnixStream, Request) -> bool + Send + 'static,
) -> (Started<Process>, JoinHandle<()>) {
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    let mut serve = serve;
    let thread = std::thread::spawn(move || {
        while let Some(request) = read_request(&mut theirs) {
            if !serve(&mut theirs, request) {
                break;
            }
        }
    });
    let started = Started {
        process: Process(pid),
        socket: ours,
        blocks: Blocks::new(pid as usize, false),
    };
    (started, thread)
}

/// The batch of a request, as a whole payload: the indices, each times 10.
fn whole(request: &Request) -> Vec<u8> {
    request
        .indices
        .iter()
        .flat_map(|i| (i * 10).to_le_bytes())
        .collect()
}

#[test]
fn batches_come_back_in_the_order_they_were_asked_from_each_process() {
    let (started, thread) = stand_in(101, |socket, request| {
        assert!(!request.skip);
        reply(socket, 0, &whole(&request), 0);
        true
    });
    let processes = Arc::new(WorkerProcesses::new(vec![started]).unwrap());
    assert_eq!(processes.len(), 1);
    // Eight threads ask at once; each gets its own batch back.
    let askers: Vec<_> = (0..8u64)
        .map(|k| {
            let processes = Arc::clone(&processes);
            std::thread::spawn(move || {
                let indices: Vec<usize> = (0..4).map(|i| (4 * k + i) as usize).collect();
                let answer = processes.ask(&indices, false).unwrap();
                assert_eq!(answer.reply.status, Status::Whole);
                let got: Vec<u64> = answer
                    .reply
                    .payload
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert_eq!(
                    got,
                    indices.iter().map(|&i| 10 * i as u64).collect::<Vec<_>>()
                );
                // A whole batch's block is free again at once.
                assert!(answer.reply.block.is_none());
            })
        })
        .collect();
    for asker in askers {
        asker.join().unwrap();
    }
    assert!(
        processes.report().starts_with(
            "Processes: 1 worker processes made 8 batches, 0 with their arrays in shared memory"
        ),
        "{}",
        processes.report()
    );
    drop(processes);
    thread.join().unwrap();
}

#[test]
fn a_batch_s_buffers_come_in_the_block_lent_and_the_block_goes_back_to_its_pool() {
    let (started, thread) = stand_in(7, |socket, request| {
        assert_ne!(request.block, NO_BLOCK, "a block is lent");
        assert!(request.size >= 1 << 20);
        // The process maps the block by its name the first time it is
        // lent, and writes the batch's one buffer at offset 64.
        if !request.name.is_empty() {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&request.name)
                .unwrap();
            let mut map = unsafe { memmap2::MmapMut::map_mut(&file) }.unwrap();
            let buffer = whole(&request);
            map[64..64 + buffer.len()].copy_from_slice(&buffer);
            let mut payload = 1u32.to_le_bytes().to_vec();
            payload.extend(64u64.to_le_bytes());
            payload.extend((buffer.len() as u64).to_le_bytes());
            payload.extend(b"rest");
            reply(socket, 2, &payload, 0);
        } else {
            // The second time it has the block: it answers whole, and
            // says it needed 3 MiB.
            reply(socket, 0, &whole(&request), 3 << 20);
        }
        true
    });
    let blocks = Arc::clone(&started.blocks);
    let processes = WorkerProcesses::new(vec![started]).unwrap();
    let answer = processes.ask(&[1, 2, 3], false).unwrap();
    assert_eq!(answer.reply.status, Status::InBlock);
    let in_block = answer.reply.buffers().unwrap();
    assert_eq!(in_block.buffers, [(64, 24)]);
    assert_eq!(in_block.encoded, b"rest");
    let block = answer.reply.block.expect("the block goes with the batch");
    let bytes = &block.bytes()[64..88];
    let values: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values, [10, 20, 30]);
    // The name was unlinked once the batch was answered: the block lives
    // on in its mappings alone.
    assert!(!std::path::Path::new(&format!("{}0", blocks.names())).exists());
    // Given back, the block is lent again by its number.
    answer.blocks.give_back(block);
    let second = processes.ask(&[4], false).unwrap();
    assert_eq!(second.reply.status, Status::Whole);
    assert_eq!(blocks.made().0, 1, "no second block made");
    // The 3 MiB it needed: the block kept is too small, so it is
    // forgotten, and the next one made is large enough.
    let lease = blocks.lend().unwrap();
    assert!(lease.block.len() >= 3 << 20);
    assert_eq!(blocks.take_forgotten(10), [0]);
    // A lease dropped before it was sent unlinks its block's name.
    let name = lease
        .name
        .as_deref()
        .expect("a new block has a name")
        .to_owned();
    assert!(name.exists());
    drop(lease);
    assert!(!name.exists(), "{} is left behind", name.display());
    assert!(
        processes
            .report()
            .contains("1 with their arrays in shared memory")
    );
    drop(processes);
    thread.join().unwrap();
}

#[test]
fn a_reply_naming_a_buffer_outside_its_block_is_an_error_not_a_read() {
    let (started, thread) = stand_in(8, |socket, _request| {
        let mut payload = 1u32.to_le_bytes().to_vec();
        payload.extend((u64::MAX - 4).to_le_bytes());
        payload.extend(16u64.to_le_bytes());
        reply(socket, 2, &payload, 0);
        true
    });
    let processes = WorkerProcesses::new(vec![started]).unwrap();
    let answer = processes.ask(&[0], false).unwrap();
    let error = answer.reply.buffers().unwrap_err();
    assert!(error.contains("outside its block"), "{error}");
    drop(processes);
    thread.join().unwrap();
}

#[test]
fn a_process_that_dies_is_named_for_the_batch_it_owed_and_each_later_one() {
    let (started, thread) = stand_in(4242, |socket, request| {
        if request.indices == [0] {
            reply(socket, 0, &whole(&request), 0);
            return true;
        }
        // Dies before it answers the second.
        false
    });
    let processes = WorkerProcesses::new(vec![started]).unwrap();
    processes.ask(&[0], false).unwrap();
    for _ in 0..2 {
        let error = processes.ask(&[1, 2], true).unwrap_err();
        let text = format!("{error:#}");
        assert!(
            matches!(&error, Error::Transform { node, .. } if node == "collate"),
            "{text}"
        );
        for says in [
            "the loader's worker process 0 (pid 4242)",
            "it was killed by signal 9",
        ] {
            assert!(text.contains(says), "{text}");
        }
    }
    thread.join().unwrap();
}

#[test]
fn the_least_queued_process_is_asked_and_skips_are_said_as_the_threads_say_them() {
    let (a, thread_a) = stand_in(1, |socket, request| {
        assert!(request.skip);
        reply(socket, 0, &whole(&request), 0);
        true
    });
    let (b, thread_b) = stand_in(2, |socket, request| {
        reply(socket, 0, &whole(&request), 0);
        true
    });
    let processes = WorkerProcesses::new(vec![a, b]).unwrap();
    assert_eq!(processes.len(), 2);
    processes.ask(&[5], true).unwrap();
    processes.left_out([(3, "ValueError: bad".to_string())]);
    processes.left_out([(9, "KeyError: 9".to_string())]);
    assert_eq!(processes.skipped_count(), 2);
    let from_one = processes.skipped_from(1);
    assert_eq!(from_one.len(), 1);
    assert_eq!(from_one[0].0, 9);
    assert!(from_one[0].1.contains("KeyError: 9"), "{:?}", from_one);
    assert!(processes.skipped_from(5).is_empty());
    drop(processes);
    thread_a.join().unwrap();
    thread_b.join().unwrap();
}

#[test]
fn no_processes_is_refused() {
    let error = WorkerProcesses::<Process>::new(Vec::new())
        .err()
        .expect("none is refused");
    assert!(error.to_string().contains("give one or more"), "{error}");
}

#[test]
fn blocks_forgotten_are_sent_with_the_next_request() {
    let (started, thread) = stand_in(3, |socket, request| {
        // The second request carries block 0, forgotten by the loader.
        if request.indices == [2] {
            assert_eq!(request.forgotten, [0]);
        }
        reply(socket, 0, &whole(&request), 0);
        true
    });
    let blocks = Arc::clone(&started.blocks);
    let processes = WorkerProcesses::new(vec![started]).unwrap();
    processes.ask(&[1], false).unwrap();
    // Block 0 is free; a batch that needed more than it holds makes the
    // pool forget it when the next one is lent.
    blocks.needed(8 << 20);
    processes.ask(&[2], false).unwrap();
    drop(processes);
    thread.join().unwrap();
}
