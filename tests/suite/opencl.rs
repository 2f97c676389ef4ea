//! Batch kernels on an OpenCL device (POCL's CPU device in CI): every
//! built-in kernel, alone, fused and unfused, gives its Rust body's bits on
//! random batches; user kernels with their own arguments run; the W2 batch
//! stage through the Loader equals the CPU run; the CPU fallback is forced
//! and checked; a kernel that does not compile is an error naming the node
//! with the build log.
//!
//! Without an OpenCL device the device tests say so and pass, unless
//! `ADL_REQUIRE_OPENCL=1` (set by `cargo xtask test`), where a missing
//! device fails them.

#![cfg(feature = "opencl")]

use std::sync::{Arc, OnceLock};

use adl::InMemory;
use adl::exec::{Context, Sequential, WithServices};
use adl::graph::loader::Loader;
use adl::graph::opencl::{DeviceChoice, OpenCl};
use adl::kernel::{Accelerator, Affine, Clamp, FlipByFlag, Normalize, U8ToF32};
use adl::prelude::*;
use ndarray::{Array1, Array2, Array3, Array4};
use proptest::prelude::*;

/// The first OpenCL device of the machine, whatever its kind (POCL's CPU
/// device in CI: named here, as a CPU device must be), opened once.
fn first_device() -> adl::Result<Option<OpenCl>> {
    OpenCl::open(&DeviceChoice::Index {
        platform: 0,
        device: 0,
    })
}

/// The device of these tests, opened once.
fn device() -> Option<&'static OpenCl> {
    static DEVICE: OnceLock<Option<OpenCl>> = OnceLock::new();
    DEVICE
        .get_or_init(|| {
            let device = first_device().unwrap_or_else(|e| {
                eprintln!("{e}");
                None
            });
            if device.is_none() {
                assert!(
                    std::env::var("ADL_REQUIRE_OPENCL").as_deref() != Ok("1"),
                    "ADL_REQUIRE_OPENCL=1 but there is no OpenCL device"
                );
                eprintln!("no OpenCL device: the device tests only check the CPU");
            }
            device
        })
        .as_ref()
}

/// Settings with a GPU, two workers: what a loader on a GPU machine plans.
fn gpu() -> adl::graph::Settings {
    adl::graph::Settings::default()
        .workers(2)
        .device(adl::graph::DeviceFacts::named("a GPU"), "the first GPU")
}

/// The device of these tests with fusion on, then off: every way it runs.
fn runs() -> impl Iterator<Item = (&'static OpenCl, bool)> {
    device()
        .into_iter()
        .flat_map(|device| [(device, true), (device, false)])
}

/// `f` run in a context with `device`, fusing kernels or not.
fn on<R>(device: &dyn Accelerator, fusion: bool, f: impl FnOnce(&dyn Context) -> R) -> R {
    let sequential = Sequential::new().fusion(fusion);
    f(&WithServices::new(&sequential).accelerator(device))
}

/// Floats from random bits: finite values of every magnitude, subnormals
/// and signed zeros included (no NaN, whose payload devices may change).
fn floats(len: usize) -> impl Strategy<Value = Vec<f32>> {
    proptest::collection::vec(any::<u32>(), len).prop_map(|bits| {
        bits.into_iter()
            .map(|b| {
                let v = f32::from_bits(b);
                if v.is_finite() {
                    v
                } else {
                    f32::from_bits(b & 0x807f_ffff)
                }
            })
            .collect()
    })
}

fn same_bits(a: &Array4<f32>, b: &Array4<f32>) -> bool {
    a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn every_built_in_kernel_alone_and_fused_gives_its_rust_bits(
        pixels in proptest::collection::vec(any::<u8>(), 4 * 3 * 5 * 7),
        flags in proptest::collection::vec(any::<bool>(), 4),
        values in floats(4 * 3 * 5 * 7),
        mean in proptest::collection::vec(-2.0f32..2.0, 3),
        std in proptest::collection::vec(0.01f32..3.0, 3),
        (scale, offset, low, high) in (-4.0f32..4.0, -4.0f32..4.0, -1.0f32..0.0, 0.0f32..1.0),
    ) {
        let images = Array4::from_shape_vec((4, 3, 5, 7), pixels).unwrap();
        let floats = Array4::from_shape_vec((4, 3, 5, 7), values).unwrap();
        let flags = Array1::from(flags);
        let flip = FlipByFlag::<u8, ndarray::Ix4>::new();
        let flip_f32 = FlipByFlag::<f32, ndarray::Ix4>::new();
        let to_f32 = U8ToF32::divide(255.0);
        let to_f32_times = U8ToF32::multiply(1.0 / 255.0);
        let normalize = Normalize::per_channel(mean, std);
        let clamp = Clamp::new(low, high);
        let affine = Affine::new(scale, offset);
        // The CPU references: the Rust bodies in order.
        let cpu_chain = affine
            .apply(clamp.apply(normalize.apply(to_f32.apply(flip.apply((images.clone(), flags.clone())).unwrap()).unwrap()).unwrap()).unwrap())
            .unwrap();
        // Without a device the chain runs fused on the CPU, block by
        // block: the same bits as the bodies one after the other. (The
        // chain is built by hand, as `pipeline!`'s expansion builds it.)
        let chain = adl::__private::Fused::new(flip, adl::__private::Fused::new(to_f32, adl::__private::Fused::new(normalize.clone(), adl::__private::Fused::new(clamp, affine))));
        let blocked = chain.apply_in(&Sequential::new(), (images.clone(), flags.clone())).unwrap();
        prop_assert!(same_bits(&blocked, &cpu_chain));
        // A [batch, features] batch: the channel is the feature.
        let rows = floats.clone().into_shape_with_order((4, 105)).unwrap();
        let per_feature = Normalize::<ndarray::Ix2>::per_channel(vec![0.5; 105], vec![2.0; 105]);
        let row_chain = adl::__private::Fused::new(Affine::new(scale, offset), adl::__private::Fused::new(Clamp::new(low, high), per_feature.clone()));
        let bodies = per_feature.apply(Clamp::new(low, high).apply(Affine::new(scale, offset).apply(rows.clone()).unwrap()).unwrap()).unwrap();
        let fused = row_chain.apply_in(&Sequential::new(), rows).unwrap();
        prop_assert!(fused.iter().zip(&bodies).all(|(a, b)| a.to_bits() == b.to_bits()));
        for (device, fusion) in runs() {
            on(device, fusion, |cx| {
                // Each kernel alone.
                prop_assert_eq!(flip.apply_in(cx, (images.clone(), flags.clone())).unwrap(), flip.apply((images.clone(), flags.clone())).unwrap());
                let got = flip_f32.apply_in(cx, (floats.clone(), flags.clone())).unwrap();
                prop_assert!(same_bits(&got, &flip_f32.apply((floats.clone(), flags.clone())).unwrap()));
                prop_assert!(same_bits(&to_f32.apply_in(cx, images.clone()).unwrap(), &to_f32.apply(images.clone()).unwrap()));
                prop_assert!(same_bits(&to_f32_times.apply_in(cx, images.clone()).unwrap(), &to_f32_times.apply(images.clone()).unwrap()));
                prop_assert!(same_bits(&normalize.apply_in(cx, floats.clone()).unwrap(), &normalize.apply(floats.clone()).unwrap()));
                prop_assert!(same_bits(&clamp.apply_in(cx, floats.clone()).unwrap(), &clamp.apply(floats.clone()).unwrap()));
                prop_assert!(same_bits(&affine.apply_in(cx, floats.clone()).unwrap(), &affine.apply(floats.clone()).unwrap()));
                // All five as one device program (fused, or kernel after
                // kernel on the device when fusion is off).
                prop_assert!(same_bits(&chain.apply_in(cx, (images.clone(), flags.clone())).unwrap(), &cpu_chain));
                Ok(())
            })?;
        }
    }
}

#[test]
fn rows_read_in_place_are_gathered_once_into_the_upload_and_give_the_cpu_bits() {
    use adl::collate::{InPlace, RowSource};
    use adl::kernel::FusedLanes;
    let table = ndarray::ArcArray::from_shape_fn((9, 3, 4, 70), |(i, c, h, w)| {
        (adl::exec::mix64((i * 1000 + c * 300 + h * 70 + w) as u64) >> 56) as u8
    });
    let keys = vec![8, 0, 3, 3, 5];
    let flags = Array1::from(vec![true, false, true, false, true]);
    let rows = InPlace::new(table.clone()).gather(&keys).unwrap();
    let chain = FusedLanes::new(
        FlipByFlag::<u8, ndarray::Ix4>::new(),
        FusedLanes::new(
            U8ToF32::divide(255.0),
            Normalize::per_channel([0.4, 0.5, 0.6], [0.2, 0.25, 0.3]),
        ),
    );
    let cpu = chain
        .apply_in(
            &Sequential::new(),
            (table.gather(&keys).unwrap(), flags.clone()),
        )
        .unwrap();
    for (device, fusion) in runs() {
        let got = on(device, fusion, |cx| {
            chain.apply_in(cx, (rows.clone(), flags.clone()))
        })
        .unwrap();
        assert!(same_bits(&got, &cpu));
    }
}

#[test]
fn a_batch_of_another_shape_is_an_error_on_the_device_as_on_the_cpu() {
    let normalize = Normalize::per_channel([0.5, 0.5], [0.2, 0.2]);
    let batch = Array4::<f32>::zeros((2, 3, 4, 4));
    let cpu = normalize.apply(batch.clone()).unwrap_err().to_string();
    assert!(
        cpu.contains("2 means") && cpu.contains("3 channels"),
        "{cpu}"
    );
    if let Some(device) = device() {
        let on_device = on(device, true, |cx| normalize.apply_in(cx, batch)).unwrap_err();
        assert_eq!(on_device.to_string(), cpu);
    }
}

/// A user kernel with the ABI and an argument of its own.
struct Gain {
    gain: f32,
    bias: f32,
}

// SAFETY: one work item per element, each reads `input[i]` and writes
// `output[i]` for its own `i < n`; `gain` and `bias` are scalars.
#[adl::transform(
    batch,
    args(gain, bias),
    unsafe(
        opencl = "__kernel void gain(__global const float* input, __global float* output, __global const uchar* flags, const ulong n, const ulong per_sample, const ulong channels, const ulong inner, const ulong last, const float gain, const float bias) { size_t i = get_global_id(0); output[i] = input[i] * gain + bias; }"
    )
)]
impl Gain {
    fn apply(&self, batch: Array2<f32>) -> Array2<f32> {
        batch.mapv(|v| v * self.gain + self.bias)
    }
}

#[test]
fn a_user_kernel_runs_with_its_own_arguments() {
    let node = Gain {
        gain: 1.5,
        bias: -0.25,
    };
    let batch = Array2::from_shape_fn((8, 33), |(i, j)| (i * 33 + j) as f32 / 7.0);
    let cpu = Transform::apply(&node, batch.clone()).unwrap();
    if let Some(device) = device() {
        let got = on(device, true, |cx| node.apply_in(cx, batch.clone())).unwrap();
        assert_eq!(got, cpu);
    }
}

// SAFETY: it does not compile (the test is its build error), so it
// never runs.
#[adl::transform(
    batch,
    unsafe(
        opencl = "__kernel void broken(__global const float* input, __global float* output) { output[i] = oops; }"
    )
)]
fn broken(batch: Array2<f32>) -> Array2<f32> {
    batch
}

#[test]
fn a_kernel_that_does_not_compile_is_an_error_naming_the_node_with_the_build_log() {
    let Some(device) = device() else { return };
    let err = on(device, true, |cx| {
        broken {}.apply_in(cx, Array2::zeros((2, 2)))
    })
    .unwrap_err();
    match &err {
        adl::Error::Kernel { node, reason, .. } => {
            assert_eq!(node, "broken");
            assert!(reason.contains("does not compile"), "{reason}");
            // The compiler's log names the undeclared identifier.
            assert!(reason.contains("oops"), "{reason}");
        }
        other => panic!("expected a kernel error, got {other}"),
    }
}

/// The W2 pipeline of the benchmarks, small: images and flip flags,
/// collated, then flip, conversion and normalisation as batch kernels.
fn w2_like()
-> impl Pipeline<(Array3<u8>, bool), Transformed = (Array3<u8>, bool), Processed = Array4<f32>>
+ Send
+ Sync
+ 'static {
    adl::pipeline! {
        collate: default,
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    }
}

fn w2_data(n: usize) -> InMemory<(Array3<u8>, bool)> {
    (0..n)
        .map(|i| {
            let image = Array3::from_shape_fn((3, 16, 16), |(c, h, w)| {
                (adl::exec::mix64((i * 768 + c * 256 + h * 16 + w) as u64) >> 56) as u8
            });
            (image, i % 3 == 0)
        })
        .collect()
}

#[test]
fn the_loader_runs_the_batch_kernels_on_the_device_with_the_cpu_bits() {
    let cpu = Loader::new(w2_data(100), w2_like())
        .batch_size(16)
        .shuffle(7)
        .workers(2)
        .opencl(DeviceChoice::Rust)
        .build()
        .unwrap();
    assert!(cpu.accelerator().is_none(), "Rust forces the Rust bodies");
    let reference: Vec<Array4<f32>> = cpu.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(reference.len(), 7);
    let Some(_) = device() else { return };
    for fusion in [true, false] {
        let device = first_device().unwrap().unwrap();
        let loader = Loader::new(w2_data(100), w2_like())
            .batch_size(16)
            .shuffle(7)
            .workers(2)
            .accelerator(Arc::new(device))
            .fusion(fusion)
            .build()
            .unwrap();
        assert!(loader.accelerator().is_some());
        let got: Vec<Array4<f32>> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
        assert!(
            got.iter().zip(&reference).all(|(a, b)| same_bits(a, b)),
            "fusion {fusion}: the device's batches differ from the CPU's"
        );
        // The fused run is counted on its first node; the others count
        // their calls.
        let stats = loader.statistics();
        let flip = stats
            .nodes
            .iter()
            .find(|n| n.name == "flip_by_flag")
            .unwrap();
        let normalize = stats.nodes.iter().find(|n| n.name == "normalize").unwrap();
        assert_eq!((flip.calls, normalize.calls), (7, 7));
    }
}

#[test]
fn rust_picks_no_device_cpu_is_refused_and_a_missing_one_is_named() {
    assert_eq!(DeviceChoice::parse("rust"), Ok(DeviceChoice::Rust));
    assert!(OpenCl::open(&DeviceChoice::Rust).unwrap().is_none());
    assert!(DeviceChoice::parse("cpu").is_err());
    let err = OpenCl::open(&DeviceChoice::Name("no such accelerator".into())).unwrap_err();
    assert!(
        err.to_string().contains("no OpenCL device is named like"),
        "{err}"
    );
    let err = OpenCl::open(&DeviceChoice::Index {
        platform: 99,
        device: 0,
    })
    .unwrap_err();
    assert!(err.to_string().contains("no OpenCL device 99:0"), "{err}");
}

#[test]
fn the_dot_shows_the_fused_kernel_and_fusion_can_be_switched_off() {
    let pipeline = w2_like();
    let description = pipeline
        .description()
        .expect("pipeline! describes its graph");
    let plan = adl::graph::Planner.schedule(description, &gpu()).unwrap();
    let dot = plan.to_dot();
    assert!(
        dot.contains("fused kernel: flip_by_flag + u8_to_f32 + normalize"),
        "{dot}"
    );
    insta::assert_snapshot!(dot);
    // Without a device, the same three run as one loop on the CPU.
    let on_cpu = adl::graph::Planner.plan(description).unwrap().to_dot();
    assert!(
        on_cpu.contains("fused loop: flip_by_flag + u8_to_f32 + normalize"),
        "{on_cpu}"
    );
    assert!(on_cpu.contains("[kernel: Rust body]"), "{on_cpu}");
    let unfused = adl::graph::Planner
        .schedule(pipeline.description().unwrap(), &gpu().fusion(false))
        .unwrap()
        .to_dot();
    assert!(!unfused.contains("fused kernel"));
    assert!(unfused.contains("[opencl kernel]"));
}

#[test]
fn a_batch_too_large_for_the_device_is_an_out_of_memory_error_not_a_crash() {
    let Some(_) = device() else { return };
    let small = first_device().unwrap().unwrap().buffer_limit(4096);
    let batch = Array4::<f32>::zeros((4, 3, 16, 16)); // 12 KiB
    let node = Clamp::new(0.0, 1.0);
    let err = on(&small, true, |cx| node.apply_in(cx, batch.clone())).unwrap_err();
    match &err {
        adl::Error::Kernel { node, reason, .. } => {
            assert_eq!(node, "clamp");
            assert!(reason.contains("out of device memory"), "{reason}");
            assert!(reason.contains("12288 bytes"), "{reason}");
        }
        other => panic!("expected a kernel error, got {other}"),
    }
    // A batch that fits still runs.
    let fits = Array4::<f32>::zeros((1, 1, 16, 16));
    assert!(on(&small, true, |cx| node.apply_in(cx, fits)).is_ok());
}
