//! W4 through the Loader (`bench/W4.md`): a recording on disk read by
//! adl's file-backed sensors (the read stage reading the files ahead),
//! synchronized to the camera, each sample transformed by [`W4Transform`]
//! and collated by `#[derive(Collate)]` (the points padded and packed).
//!
//! Timing (§4): the loader is built (the timestamps and IMU tables read,
//! the traces synchronized; not timed), the dataset's files are taken out
//! of the page cache (`--cold`), then epoch 0 runs cold and again warm
//! (the headline), both in the epoch-0 order. One JSON line: samples/s
//! warm and cold and the read stage's statistics of each epoch. With
//! `--read-latency-ms N` every read of every sensor first waits N ms
//! ([`adl::files::Latency`]): what the read stage hides of a remote store.
//!
//! Verify (§3): the deterministic image transform, one epoch digested:
//! every field but the image against the spec's digests (the default and
//! the `--small` dataset's; other sizes are printed unchecked), the image
//! as the sums of each batch's `u8` values, printed (and written with
//! `--verify-out DIR`, beside the first batch's `u8` images) to be
//! compared with a peer's within W4.md's tolerance.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use adl::files::Location;
use adl::graph::loader::{Loader, ReadStatistics};
use adl::ndarray::Array4;
use adl::prelude::*;

use crate::args::Args;
use crate::digest::{Digest, bits_sum_f32, bits_sum_f64, bits_sum_i64, check_all};
use crate::process::peak_rss_mb;
use crate::protocol::{Timed, loader, time_epoch};
use crate::workloads::{
    Local, Reads, Remote, W4_BATCH, W4_CROP, W4Data, W4Raw, W4SampleBatch, W4Transform,
    dataset_files,
};

/// The exact fields of §3.2, in the order they are printed.
const FIELDS: [&str; 8] = [
    "idx",
    "imu",
    "points",
    "points_mask",
    "points_offsets",
    "points_packed",
    "radar",
    "t",
];

/// §3.2's digests of the default dataset (4 traces of 60 s).
const DEFAULT_DIGESTS: [u64; 8] = [
    0x0000000023bb4727,
    0x004562ea0634ec00,
    0x2a8539d59f46b4d0,
    0x00000000183741ff,
    0x000000018d5c2da3,
    0x2a8539d59f46b4d0,
    0x146495e4792ce4f7,
    0xe696b58acbe957d9,
];

/// §3.2's digests of the `--small` dataset (2 traces of 3 s).
const SMALL_DIGESTS: [u64; 8] = [
    0x00000000000064ca,
    0x00000d9b7a4ff600,
    0x000870972e64e6a5,
    0x000000000004cf23,
    0x00000000003a0ad5,
    0x000870972e64e6a5,
    0x00040e6bba679175,
    0x76553f841f3b4470,
];

/// Run W4 as `args` ask; whether every digest checked agreed.
pub(crate) fn w4(args: &Args) -> adl::Result<bool> {
    let root = args
        .data
        .clone()
        .ok_or_else(|| adl::Error::invalid("--data", "W4 needs its dataset"))?;
    if args.limit {
        return super::w4_limit::w4_limit(args, &root);
    }
    let at = args
        .data_url
        .as_deref()
        .map_or_else(|| Location::from(root.as_path()), Location::from);
    if args.read_latency_ms > 0 {
        run(
            args,
            &root,
            &at,
            Remote(Duration::from_millis(args.read_latency_ms)),
        )
    } else {
        run(args, &root, &at, Local)
    }
}

/// The loader of W4 in `root`, read at `at` (`root`, or the same dataset
/// in object storage), its sensors read as `reads` says.
fn run<R: Reads>(args: &Args, root: &Path, at: &Location, reads: R) -> adl::Result<bool> {
    let setup = Instant::now();
    let dataset = W4Data::open_at(root, at, reads)?;
    let transform = W4Transform {
        verify: args.verify,
    };
    let pipeline = adl::pipeline! {
        sample: (transform),
        collate: default,
    };
    let mut builder =
        loader(dataset, pipeline, W4_BATCH, args).read_next_epoch(args.read_next_epoch);
    if let Some(readers) = args.readers {
        builder = builder.readers(readers);
    }
    let loader = builder.build()?;
    let setup = setup.elapsed();
    if args.verify {
        return verify(args, root, &loader);
    }
    let files = dataset_files(root)?;
    let (eviction, resident) = if args.cold == "none" {
        ("none".to_string(), resident_fraction(&files))
    } else {
        let used = evict(&files, &args.cold)?;
        (used, resident_fraction(&files))
    };
    let count = |b: &W4SampleBatch| b.t.len();
    // With the next epoch's reads begun in the epoch before, the epochs
    // go on as a training loop's do (0, then 1, ...: each its own order,
    // the same work); else epoch 0 again, as the protocol runs it.
    let step = u64::from(args.read_next_epoch);
    let cold = time_epoch(loader.epoch(0), count)?;
    let cold_reads = loader.statistics().reads;
    loader.reset_statistics();
    let warm = time_epoch(loader.epoch(step), count)?;
    let statistics = loader.statistics();
    report(
        args,
        at,
        &loader,
        (&cold, &warm),
        (&cold_reads, &statistics.reads),
        (&eviction, resident),
        setup,
    );
    if args.stats {
        eprintln!("{statistics}");
    }
    for k in 0..args.profile_epochs as u64 {
        time_epoch(loader.epoch(step * (k + 2)), count)?;
    }
    Ok(true)
}

/// A read stage's figures, as JSON.
fn reads_json(reads: &ReadStatistics) -> String {
    format!(
        "{{\"threads\":{},\"reads\":{},\"failed\":{},\"bytes\":{},\"read_s\":{:.3},\"wait_s\":{:.3},\"peak_mb\":{:.1}}}",
        reads.threads,
        reads.reads,
        reads.failed,
        reads.bytes,
        reads.time.as_secs_f64(),
        reads.wait.as_secs_f64(),
        reads.peak as f64 / (1u64 << 20) as f64,
    )
}

/// Print the run's JSON line.
fn report<D, P>(
    args: &Args,
    at: &Location,
    loader: &Loader<D, P>,
    (cold, warm): (&Timed, &Timed),
    (cold_reads, warm_reads): (&ReadStatistics, &ReadStatistics),
    (eviction, resident): (&str, f64),
    setup: Duration,
) where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: adl::exec::Recycle + Send + 'static,
{
    println!(
        "{{\"workload\":\"w4\",\"build\":\"{}\",\"name\":\"on-disk-multimodal\",\"data\":{:?},\"workers\":{},\"readers\":{},\"read_latency_ms\":{},\"samples\":{},\"batches\":{},\"warm_samples_per_s\":{:.1},\"cold_samples_per_s\":{:.1},\"warm_wall_s\":{:.4},\"cold_wall_s\":{:.4},\"cold_first_batch_s\":{:.4},\"cache_eviction\":{:?},\"resident_before_cold\":{:.4},\"setup_s\":{:.3},\"peak_rss_mb\":{:.1},\"cold_reads\":{},\"warm_reads\":{},\"dataset_len\":{}}}",
        crate::BUILD,
        at.to_string(),
        args.workers,
        warm_reads.threads,
        args.read_latency_ms,
        warm.samples,
        warm.batches,
        warm.rate(),
        cold.rate(),
        warm.wall.as_secs_f64(),
        cold.wall.as_secs_f64(),
        cold.first.as_secs_f64(),
        eviction,
        resident,
        setup.as_secs_f64(),
        peak_rss_mb(),
        reads_json(cold_reads),
        reads_json(warm_reads),
        loader.dataset().len(),
    );
}

/// Take `files` out of the page cache as `method` says (`fadvise`, or
/// `drop_caches` falling back to it where refused); the method used.
fn evict(files: &[PathBuf], method: &str) -> adl::Result<String> {
    let mut used = method.to_string();
    if method == "drop_caches" {
        // SAFETY: sync() takes no arguments and cannot fail.
        unsafe { libc::sync() };
        match std::fs::write("/proc/sys/vm/drop_caches", "3\n") {
            Ok(()) => return Ok(used),
            Err(e) => used = format!("fadvise (drop_caches refused: {e})"),
        }
    }
    for path in files {
        let file = std::fs::File::open(path)
            .map_err(|e| adl::Error::file(path, format!("cannot open: {e}")))?;
        // Written pages are flushed first: a dirty page is not dropped.
        file.sync_all()
            .map_err(|e| adl::Error::file(path, format!("cannot sync: {e}")))?;
        // SAFETY: a valid descriptor (the open file), the whole file.
        let status = unsafe {
            libc::posix_fadvise(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
                0,
                libc::POSIX_FADV_DONTNEED,
            )
        };
        if status != 0 {
            return Err(adl::Error::file(
                path,
                format!(
                    "posix_fadvise(DONTNEED) failed: {}",
                    std::io::Error::from_raw_os_error(status)
                ),
            ));
        }
    }
    Ok(used)
}

/// The fraction of `files`' pages in the page cache (`mincore`); 0 for
/// files that cannot be mapped.
fn resident_fraction(files: &[PathBuf]) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
    let (mut total, mut resident) = (0usize, 0usize);
    for path in files {
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        let size = file.metadata().map_or(0, |m| m.len()) as usize;
        if size == 0 {
            continue;
        }
        let pages = size.div_ceil(page);
        let mut vector = vec![0u8; pages];
        // SAFETY: a read-only shared mapping of the whole open file, only
        // passed to mincore (never read) and unmapped before the file is
        // closed; mincore writes one byte per page into `vector`, which
        // has that many.
        let ok = unsafe {
            let address = libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ,
                libc::MAP_SHARED,
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
            );
            if address == libc::MAP_FAILED {
                false
            } else {
                let ok = libc::mincore(address, size, vector.as_mut_ptr()) == 0;
                libc::munmap(address, size);
                ok
            }
        };
        if ok {
            total += pages;
            resident += vector.iter().filter(|&&v| v & 1 == 1).count();
        }
    }
    if total == 0 {
        0.0
    } else {
        resident as f64 / total as f64
    }
}

/// The spec's digests of the dataset in `root`, where it is one of the
/// two §3.2 gives (by its manifest's traces and seconds).
fn expected_digests(root: &Path) -> Option<[Digest; 8]> {
    let manifest = std::fs::read_to_string(root.join("manifest.json")).ok()?;
    let number = |key: &str| -> Option<u64> {
        let at = manifest.find(&format!("\"{key}\":"))? + key.len() + 3;
        let digits: String = manifest[at..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    match (number("traces")?, number("seconds")?) {
        (4, 60) => Some(DEFAULT_DIGESTS.map(Digest)),
        (2, 3) => Some(SMALL_DIGESTS.map(Digest)),
        _ => None,
    }
}

/// The `u8` values of a normalised image batch, recovered exactly (each
/// checked to normalise back to the same bits).
fn image_u8(image: &Array4<f32>) -> adl::Result<Vec<u8>> {
    let table = crate::workloads::normalise_table();
    let plane = W4_CROP * W4_CROP;
    let values = image
        .as_slice()
        .ok_or_else(|| adl::Error::internal("W4 verify", "a standard-layout batch"))?;
    values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            let c = (k / plane) % 3;
            let px = ((f64::from(v) * f64::from(crate::workloads::W2_STD[c])
                + f64::from(crate::workloads::W2_MEAN[c]))
                * 255.0)
                .round()
                .clamp(0.0, 255.0) as u8;
            if table[c][usize::from(px)].to_bits() == v.to_bits() {
                Ok(px)
            } else {
                Err(adl::Error::internal(
                    "W4 verify",
                    format!("{v} is no normalised u8 value of channel {c}"),
                ))
            }
        })
        .collect()
}

/// A `.npy` file of `u8 [shape]` values (format 1.0, C order).
fn write_npy_u8(path: &Path, shape: &[usize], values: &[u8]) -> adl::Result<()> {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    let mut header = format!(
        "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}{}), }}",
        dims.join(", "),
        if shape.len() == 1 { "," } else { "" }
    );
    // Padded with spaces to a multiple of 64 bytes with the 10 before it,
    // ending in a newline.
    let total = (10 + header.len() + 1).div_ceil(64) * 64;
    while 10 + header.len() + 1 < total {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(values);
    std::fs::write(path, bytes).map_err(|e| adl::Error::file(path, format!("cannot write: {e}")))
}

/// One epoch in verify mode, digested and checked (§3).
fn verify<D, P>(args: &Args, root: &Path, loader: &Loader<D, P>) -> adl::Result<bool>
where
    D: Dataset<Sample = W4Raw> + Send + Sync + 'static,
    P: Pipeline<W4Raw, Processed = W4SampleBatch> + Send + Sync + 'static,
    P::Transformed: Send,
{
    let mut digests = [Digest::default(); 8];
    let mut image = Digest::default();
    let mut sums = Vec::new();
    let mut first: Option<(Vec<usize>, Vec<u8>)> = None;
    let mut samples = 0;
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        samples += batch.t.len();
        let mask = batch.points.mask.iter().filter(|&&m| m).count() as u64;
        let fields = [
            bits_sum_i64(batch.idx.iter()),
            bits_sum_f32(batch.imu.iter()),
            bits_sum_f32(batch.points.data.iter()),
            mask,
            bits_sum_i64(batch.points_packed.offsets.iter()),
            bits_sum_f32(batch.points_packed.values.iter()),
            bits_sum_f32(batch.radar.iter()),
            bits_sum_f64(batch.t.iter()),
        ];
        for (digest, sum) in digests.iter_mut().zip(fields) {
            digest.add(b, sum);
        }
        image.add(b, bits_sum_f32(batch.image.iter()));
        sums.push(batch.image_u8_sum.iter().sum::<u64>());
        if first.is_none() {
            first = Some((batch.image.shape().to_vec(), image_u8(&batch.image)?));
        }
    }
    let expected = expected_digests(root);
    let ok = match expected {
        Some(expected) => check_all(FIELDS, digests, expected),
        None => {
            for (field, digest) in FIELDS.iter().zip(digests) {
                println!(
                    "digest {field:<6} {digest}  (no expected digest for this dataset's size)"
                );
            }
            true
        }
    };
    let mut line = format!(
        "{{\"workload\":\"on-disk-multimodal\",\"peer\":\"adl\",\"num_workers\":{},\"samples\":{samples},\"batches\":{},\"digest\":{{",
        args.workers,
        sums.len()
    );
    for (k, (field, digest)) in FIELDS.iter().zip(digests).enumerate() {
        let comma = if k > 0 { "," } else { "" };
        let _ = write!(line, "{comma}\"{field}\":\"{digest}\"");
    }
    let sums_text: Vec<String> = sums.iter().map(ToString::to_string).collect();
    let _ = write!(
        line,
        "}},\"image_digest_adl\":\"{image}\",\"image_u8_batch_sums\":[{}],\"checked\":{},\"matches_spec\":{ok}}}",
        sums_text.join(","),
        expected.is_some()
    );
    println!("{line}");
    if let Some(out) = &args.verify_out {
        std::fs::create_dir_all(out)
            .map_err(|e| adl::Error::file(out, format!("cannot create: {e}")))?;
        let path = out.join("w4_verify_adl.json");
        std::fs::write(&path, format!("{line}\n"))
            .map_err(|e| adl::Error::file(&path, format!("cannot write: {e}")))?;
        if let Some((shape, values)) = &first {
            write_npy_u8(&out.join("w4_first_batch_image_u8_adl.npy"), shape, values)?;
        }
    }
    Ok(ok)
}
