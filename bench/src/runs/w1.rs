//! W1 through the Loader: 200,000 vectors of 64 floats, standardised
//! (`(x - 1) / sqrt 3`), batch 256; by default the rows read in place by
//! the standardisation's kernel (one pass that reads each row where it
//! lies and writes the batch: 0.85 of the C limit, against 0.80 gathered
//! first, in 9 alternating runs each).

use std::sync::Arc;
use std::time::Instant;

use adl::kernel::Normalize;
use adl::prelude::*;

use crate::args::Args;
use crate::digest::{Digest, bits_sum_f32, bits_sum_i64, check_all};
use crate::protocol::{loader, measure};
use crate::spec::spec_order;
use crate::workloads::{W1, W1_FEATURES, W1_SAMPLES, W1_STD, W1Data, W1Sample};
use adl::IndexRange;

/// W1's batch stage on rows read in place: the standardisation of the
/// features (a kernel node, run in the loader's context), the labels as
/// they are.
struct StandardizeX(Normalize<ndarray::Ix2>);

type W1Rows = (adl::collate::Rows<f32, ndarray::Ix2>, ndarray::Array1<i64>);

impl Transform<W1Rows> for StandardizeX {
    type Output = (ndarray::Array2<f32>, ndarray::Array1<i64>);

    fn apply(&self, (x, y): W1Rows) -> adl::Result<Self::Output> {
        Ok((self.0.apply(x)?, y))
    }

    fn apply_in(&self, cx: &dyn adl::exec::Context, (x, y): W1Rows) -> adl::Result<Self::Output> {
        Ok((self.0.apply_in(cx, x)?, y))
    }
}

/// Build and measure a W1 loader over row keys, whose batches are
/// `(x, y)`, digesting both.
fn w1_keyed<P>(
    args: &Args,
    builder: adl::graph::loader::LoaderBuilder<IndexRange, P>,
    build_start: Instant,
) -> adl::Result<Option<[Digest; 2]>>
where
    P: Pipeline<usize, Processed = (ndarray::Array2<f32>, ndarray::Array1<i64>)>
        + Send
        + Sync
        + 'static,
    P::Transformed: Send,
{
    let loader = builder.build()?;
    let build = build_start.elapsed();
    measure(
        args,
        "cpu",
        &loader,
        build,
        |b| b.1.len(),
        |b, k, d: &mut [Digest; 2]| {
            d[0].add(k, bits_sum_f32(b.0.iter()));
            d[1].add(k, bits_sum_i64(b.1.iter()));
        },
    )
}

/// Run W1 as `args` ask; whether every digest checked agreed.
pub(crate) fn w1(args: &Args) -> adl::Result<bool> {
    let n = args.samples.unwrap_or(W1_SAMPLES);
    let data = Arc::new(W1::generate(n));
    let build_start = Instant::now();
    let got = if args.collate == "in-place" {
        // The rows stay in the dataset: the standardisation (a batch
        // kernel) reads each one where it lies and writes the batch.
        let pipeline = Stages::new()
            .with_collate(data.gather_in_place())
            .with_batch(StandardizeX(Normalize::per_channel([1.0], [W1_STD])));
        w1_keyed(
            args,
            loader(IndexRange::new(n), pipeline, 256, args),
            build_start,
        )?
    } else if args.collate == "gather" {
        // The rows are gathered straight into the batch; the per-sample
        // standardisation, elementwise, runs on the batch (same bits).
        let standardize = Normalize::<ndarray::Ix2>::per_channel([1.0], [W1_STD]);
        let pipeline =
            Stages::new()
                .with_collate(data.gather())
                .with_batch(adl::transform::fallible(
                    move |(x, y): (ndarray::Array2<f32>, ndarray::Array1<i64>)| {
                        Ok::<_, adl::Error>((standardize.apply(x)?, y))
                    },
                ));
        w1_keyed(
            args,
            loader(IndexRange::new(n), pipeline, 256, args),
            build_start,
        )?
    } else {
        let pipeline = Stages::new()
            .with_sample(|mut s: W1Sample| {
                s.x.mapv_inplace(|v| (v - 1.0) / W1_STD);
                s
            })
            .with_collate(DefaultCollate);
        let loader = loader(W1Data(Arc::clone(&data)), pipeline, 256, args).build()?;
        let build = build_start.elapsed();
        measure(
            args,
            "cpu",
            &loader,
            build,
            |b| b.y.len(),
            |b, k, d: &mut [Digest; 2]| {
                d[0].add(k, bits_sum_f32(b.x.iter()));
                d[1].add(k, bits_sum_i64(b.y.iter()));
            },
        )?
    };
    let Some(got) = got else { return Ok(true) };
    let expected = if n == W1_SAMPLES {
        [Digest(0x942e9b9b526f7042), Digest(0x0000000014f3e052)]
    } else {
        let (mut ex, mut ey) = (Digest::default(), Digest::default());
        for (b, chunk) in spec_order(n).chunks(256).enumerate() {
            let (mut sx, mut sy) = (0u64, 0u64);
            for &i in chunk {
                let row = &data.xs()[i * W1_FEATURES..(i + 1) * W1_FEATURES];
                let standardized: Vec<f32> = row.iter().map(|v| (v - 1.0) / W1_STD).collect();
                sx = sx.wrapping_add(bits_sum_f32(standardized.iter()));
                sy = sy.wrapping_add(data.ys()[i] as u64);
            }
            ex.add(b, sx);
            ey.add(b, sy);
        }
        [ex, ey]
    };
    Ok(check_all(["x", "y"], got, expected))
}
