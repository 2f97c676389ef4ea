//! W3 through the Loader: three sensors synchronised by `Nearest` with a
//! clamped `Window` of ten IMU readings, batch 32; every field gathered by
//! default.

use std::sync::Arc;
use std::time::Instant;

use adl::prelude::*;

use crate::args::Args;
use crate::digest::{Digest, bits_sum_f32, bits_sum_i64, check_all};
use crate::protocol::{loader, measure};
use crate::spec::{spec_nearest, spec_order};
use crate::workloads::{W3, W3_BATCH, W3_WINDOW, W3Data, W3Keys};

/// Run W3 as `args` ask; whether every digest checked agreed.
pub(crate) fn w3(args: &Args) -> adl::Result<bool> {
    let data = Arc::new(W3::generate());
    let n = args.samples.unwrap_or(data.a.t.len()).min(data.a.t.len());
    let build_start = Instant::now();
    let dataset = W3Data::new(Arc::clone(&data), n)?;
    let got = if args.collate == "gather" {
        // Every field gathered straight into the batch from the sensors'
        // arrays, by the keys the synchronisation gave.
        let pipeline = Stages::new().with_collate(dataset.gather()?);
        let loader = loader(W3Keys(dataset), pipeline, W3_BATCH, args).build()?;
        let build = build_start.elapsed();
        measure(
            args,
            "cpu",
            &loader,
            build,
            |b| b.0.len(),
            |b, k, d: &mut [Digest; 5]| {
                d[0].add(k, bits_sum_i64(b.4.iter()));
                d[1].add(k, bits_sum_f32(b.2.iter()));
                d[2].add(k, bits_sum_f32(b.3.iter()));
                d[3].add(k, bits_sum_f32(b.1.iter()));
                d[4].add(k, bits_sum_i64(b.0.iter()));
            },
        )?
    } else {
        let pipeline = Stages::new().with_collate(DefaultCollate);
        let loader = loader(dataset, pipeline, W3_BATCH, args).build()?;
        let build = build_start.elapsed();
        measure(
            args,
            "cpu",
            &loader,
            build,
            |b| b.t.len(),
            |b, k, d: &mut [Digest; 5]| {
                d[0].add(k, bits_sum_i64(b.idx.iter()));
                d[1].add(k, bits_sum_f32(b.img.iter()));
                d[2].add(k, bits_sum_f32(b.imu.iter()));
                d[3].add(k, bits_sum_f32(b.reference.iter()));
                d[4].add(k, bits_sum_i64(b.t.iter()));
            },
        )?
    };
    let Some(got) = got else { return Ok(true) };
    let expected = if n == data.a.t.len() {
        [
            0x00000004bae831a2,
            0x11148c4724f30114,
            0x00ffe45c2b1fe696,
            0x00224b3b136c4a5c,
            0x000099ff09420d3b,
        ]
        .map(Digest)
    } else {
        let mut expected = [Digest::default(); 5];
        let n_c = data.c.t.len();
        for (b, chunk) in spec_order(n).chunks(W3_BATCH).enumerate() {
            let mut sums = [0u64; 5];
            for &i in chunk {
                let t = data.a.t[i];
                let nb = spec_nearest(&data.b.t, t);
                let nc = spec_nearest(&data.c.t, t);
                let s = (nc as i64 - 5).clamp(0, (n_c - W3_WINDOW) as i64) as usize;
                sums[0] = sums[0].wrapping_add(nb as u64).wrapping_add(s as u64);
                sums[1] =
                    sums[1].wrapping_add(bits_sum_f32(&data.b.rows()[nb * 1024..(nb + 1) * 1024]));
                sums[2] =
                    sums[2].wrapping_add(bits_sum_f32(&data.c.rows()[s * 6..(s + W3_WINDOW) * 6]));
                sums[3] = sums[3].wrapping_add(bits_sum_f32(&data.a.rows()[i * 8..(i + 1) * 8]));
                sums[4] = sums[4].wrapping_add(t as u64);
            }
            for (e, sum) in expected.iter_mut().zip(sums) {
                e.add(b, sum);
            }
        }
        expected
    };
    Ok(check_all(["idx", "img", "imu", "ref", "t"], got, expected))
}
