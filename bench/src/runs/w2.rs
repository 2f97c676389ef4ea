//! W2 through the Loader: 20,000 RGB 64x64 images; flip, conversion and
//! normalisation are batch kernels (`FlipByFlag`, `U8ToF32`, `Normalize`),
//! fused on a GPU where there is one (`--device rust`, or no GPU: fused on the
//! CPU, one loop); the images read in place by default.

use std::sync::Arc;
use std::time::Instant;

use adl::graph::opencl::DeviceChoice;
use adl::kernel::{FlipByFlag, Normalize, U8ToF32};
use adl::prelude::*;
use ndarray::Array4;

use crate::EpochPermutation;
use crate::args::Args;
use crate::batch_stage::w2_batch_stage;
use crate::digest::{Digest, bits_sum_f32, bits_sum_ordered_f32, check_all};
use crate::kept_order::Kept;
use crate::protocol::{loader, measure};
use crate::spec::spec_order;
use crate::workloads::{W2, W2_IMAGE, W2_MEAN, W2_SAMPLES, W2_STD, W2Data};
use adl::IndexRange;

/// A W2 sample: an image and its flip flag.
type W2Sample = (ndarray::Array3<u8>, bool);
/// A collated W2 batch: the images and their flags.
type W2Collated = (Array4<u8>, ndarray::Array1<bool>);

/// The W2 pipeline: collate the images and their flags, then the batch
/// kernels.
pub(crate) fn w2_pipeline()
-> impl Pipeline<W2Sample, Transformed = W2Sample, Collated = W2Collated, Processed = Array4<f32>>
+ Send
+ Sync
+ 'static {
    adl::pipeline! {
        collate: default,
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(W2_MEAN, W2_STD),
    }
}

/// W2's loader as `adl-bench --workload w2` builds it by default (the
/// images read in place by the fused flip, conversion and normalisation;
/// `workers` threads, the protocol's prefetch and seed), over its first
/// `n` samples: for another front end over the same loader (the Python
/// benchmark, `bench/python`).
pub fn w2_loader(
    n: usize,
    workers: usize,
) -> adl::Result<
    adl::graph::loader::Loader<
        IndexRange,
        impl Pipeline<usize, Transformed: Send, Processed = Array4<f32>> + Send + Sync + 'static,
    >,
> {
    let data = W2::generate(n);
    let pipeline = adl::pipeline! {
        collate: data.gather_in_place(),
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(W2_MEAN, W2_STD),
    };
    Loader::new(IndexRange::new(n), pipeline)
        .batch_size(64)
        .order(Kept::new(EpochPermutation {
            seed: crate::spec::SEED,
        }))
        .seed(crate::spec::SEED)
        .workers(workers)
        .batches_ahead(2 * workers.max(1))
        .build()
}

/// W2's expected digests of the normalised images, from the spec's
/// formulas alone: the spec's (`bits_sum`, blind to the order of the
/// elements inside a batch) and one that weighs each element by its place
/// (`bits_sum_ordered`), which a flip gone wrong changes.
fn w2_expected(data: &W2, n: usize) -> [Digest; 2] {
    let mut digests = [Digest::default(); 2];
    for (b, chunk) in spec_order(n).chunks(64).enumerate() {
        let (mut sum, mut ordered) = (0u64, 0u64);
        let mut place = 0u64;
        for &i in chunk {
            let image = &data.pixels()[i * W2_IMAGE..(i + 1) * W2_IMAGE];
            for c in 0..3 {
                for h in 0..64 {
                    for w in 0..64 {
                        let src = if data.flags()[i] { 63 - w } else { w };
                        let v = f32::from(image[c * 4096 + h * 64 + src]) / 255.0;
                        let v = (v - W2_MEAN[c]) / W2_STD[c];
                        let bits = u64::from(v.to_bits());
                        place += 1;
                        sum = sum.wrapping_add(bits);
                        ordered = ordered.wrapping_add(place.wrapping_mul(bits));
                    }
                }
            }
        }
        digests[0].add(b, sum);
        digests[1].add(b, ordered);
    }
    digests
}

/// Run W2 (or its batch stage alone) as `args` ask; whether every digest
/// checked agreed.
pub(crate) fn w2(args: &Args) -> adl::Result<bool> {
    let n = args.samples.unwrap_or(W2_SAMPLES);
    let data = Arc::new(W2::generate(n));
    if args.stage == "batch" {
        return w2_batch_stage(args, &data);
    }
    let build_start = Instant::now();
    let got = if args.collate == "in-place" {
        // The images stay where they are: the fused flip, conversion and
        // normalisation read each image's rows straight from the dataset
        // (OpenCL: gathered once, into the upload buffer).
        let pipeline = adl::pipeline! {
            collate: data.gather_in_place(),
            batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(W2_MEAN, W2_STD),
        };
        w2_measure(
            args,
            loader(IndexRange::new(n), pipeline, 64, args),
            build_start,
        )?
    } else if args.collate == "gather" {
        // The images and flags are gathered straight into the batch; flip,
        // conversion and normalisation run fused on it (OpenCL, or block
        // by block on the CPU).
        let pipeline = adl::pipeline! {
            collate: data.gather(),
            batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(W2_MEAN, W2_STD),
        };
        w2_measure(
            args,
            loader(IndexRange::new(n), pipeline, 64, args),
            build_start,
        )?
    } else {
        let builder = loader(W2Data(Arc::clone(&data)), w2_pipeline(), 64, args);
        w2_measure(args, builder, build_start)?
    };
    let Some(got) = got else { return Ok(true) };
    let mut expected = w2_expected(&data, n);
    if n == W2_SAMPLES {
        // The spec's digest as WORKLOADS.md gives it, not as computed here.
        expected[0] = Digest(0x3bc774be30c32a79);
    }
    Ok(check_all(["image", "image (element order)"], got, expected))
}

/// Give `builder` W2's batch-kernel device choice (`--device`, or
/// `ADL_OPENCL_DEVICE`: the loader picks, as it does for any program),
/// build it and measure it, digesting the normalised images.
fn w2_measure<D, P>(
    args: &Args,
    builder: adl::graph::loader::LoaderBuilder<D, P>,
    build_start: Instant,
) -> adl::Result<Option<[Digest; 2]>>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample, Processed = Array4<f32>> + Send + Sync + 'static,
    P::Transformed: Send,
{
    let loader = builder
        .opencl(args.device.clone())
        .fusion(args.fusion)
        .build()?;
    let build = build_start.elapsed();
    // A device that was named but cannot be used (it cannot divide
    // exactly) fails a run that requires OpenCL; `auto` finding no GPU
    // runs the Rust kernels, as any program's loader would.
    let named = matches!(
        args.device,
        DeviceChoice::Index { .. } | DeviceChoice::Name(_)
    );
    if loader.accelerator().is_none()
        && named
        && std::env::var("ADL_REQUIRE_OPENCL").as_deref() == Ok("1")
    {
        return Err(adl::Error::invalid(
            "ADL_REQUIRE_OPENCL",
            "is 1 but there is no OpenCL device to run W2's batch kernels",
        ));
    }
    let device_name = loader
        .accelerator()
        .map_or("rust".to_owned(), |d| d.name().to_owned());
    measure(
        args,
        &device_name,
        &loader,
        build,
        |b| b.shape()[0],
        |b, k, d: &mut [Digest; 2]| {
            d[0].add(k, bits_sum_f32(b.iter()));
            d[1].add(k, bits_sum_ordered_f32(b.iter()));
        },
    )
}
