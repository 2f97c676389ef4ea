//! W2's batch stage alone (`--stage batch`): flip, bytes to floats and
//! per-channel normalisation on collated batches of 64, on the OpenCL
//! device fused and unfused, and as the Rust bodies on the CPU; batches/s
//! and GB/s (bytes read and written by the stage) for each.

use std::time::Instant;

use adl::graph::opencl::OpenCl;
use adl::kernel::{FlipByFlag, Normalize, U8ToF32};
use adl::prelude::*;
use ndarray::Array4;

use crate::args::Args;
use crate::runs::w2_pipeline;
use crate::workloads::{W2, W2_IMAGE, W2_MEAN, W2_STD};

/// W2's batch stage alone on collated batches: OpenCL fused, unfused, and
/// the CPU bodies.
pub(crate) fn w2_batch_stage(args: &Args, data: &W2) -> adl::Result<bool> {
    let batch = 64.min(data.flags().len());
    let images = Array4::from_shape_vec(
        (batch, 3, 64, 64),
        data.pixels()[..batch * W2_IMAGE].to_vec(),
    )
    .map_err(|e| adl::Error::invalid("images", e.to_string()))?;
    let flags = ndarray::Array1::from(data.flags()[..batch].to_vec());
    let pipeline = w2_pipeline();
    let bytes = (batch * W2_IMAGE * (1 + 4)) as f64;
    let sequential = adl::exec::Sequential::new();
    let time = |label: &str,
                stage: &dyn Fn() -> adl::Result<Array4<f32>>|
     -> adl::Result<Array4<f32>> {
        // One run to compile and allocate, then the timed ones.
        let reference = stage()?;
        let start = Instant::now();
        for _ in 0..args.batches {
            std::hint::black_box(stage()?);
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{{\"workload\":\"w2\",\"stage\":\"batch\",\"path\":{label:?},\"batch\":{batch},\"batches_per_s\":{:.1},\"gb_per_s\":{:.3}}}",
            args.batches as f64 / s,
            bytes * args.batches as f64 / s / 1e9
        );
        Ok(reference)
    };
    let run = |label: &str, cx: &dyn adl::exec::Context| {
        time(label, &|| {
            pipeline.batch_in(cx, (images.clone(), flags.clone()))
        })
    };
    // The three nodes' Rust bodies one after the other: three passes.
    let (flip, to_f32) = (FlipByFlag::new(), U8ToF32::divide(255.0));
    let normalize = Normalize::per_channel(W2_MEAN, W2_STD);
    let bodies = time("cpu unfused (the bodies one after the other)", &|| {
        normalize.apply(to_f32.apply(flip.apply((images.clone(), flags.clone()))?)?)
    })?;
    let cpu = run("cpu fused (block by block)", &sequential)?;
    let mut same = bodies == cpu;
    if let Some(device) = OpenCl::open(&args.device)? {
        let name = adl::kernel::Accelerator::name(&device).to_owned();
        let cx = adl::exec::WithServices::new(&sequential).accelerator(&device);
        let out = run(&format!("opencl fused ({name})"), &cx)?;
        same &= out == cpu;
        let unfused = sequential.fusion(false);
        let cx = adl::exec::WithServices::new(&unfused).accelerator(&device);
        let out = run(&format!("opencl unfused ({name})"), &cx)?;
        same &= out == cpu;
    }
    println!(
        "every path's output equals the others' bit for bit: {}",
        if same { "yes" } else { "NO" }
    );
    Ok(same)
}
