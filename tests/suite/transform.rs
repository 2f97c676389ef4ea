//! `#[transform]` at run time: function and impl-block nodes, fallible
//! nodes, batch nodes with kernels, and the metadata each node records.

use std::any::TypeId;

use adl::description::{Node, Stage, TypeInfo};
use adl::{Error, Transform};
use ndarray::{Array1, Array2, array};

#[derive(Debug, Clone, PartialEq)]
struct Frame {
    pixels: Vec<u8>,
}

/// Mirror the frame left to right.
#[adl::transform]
fn flip(f: Frame) -> Frame {
    Frame {
        pixels: f.pixels.into_iter().rev().collect(),
    }
}

#[adl::transform(name = "parse_label")]
fn parse(text: String) -> Result<i64, std::num::ParseIntError> {
    text.trim().parse()
}

#[adl::transform(sample)]
fn checked(x: i64) -> adl::Result<i64> {
    if x >= 0 {
        Ok(x)
    } else {
        Err(Error::InvalidParameter {
            parameter: "x".into(),
            reason: format!("{x} is negative"),
        })
    }
}

const DOUBLE_CL: &str = "__kernel void double_it(__global const float* input, __global float* output, __global const uchar* flags, const ulong n, const ulong per_sample, const ulong channels, const ulong inner, const ulong last) { size_t i = get_global_id(0); output[i] = input[i] * 2.0f; }";

/// Double every value.
// SAFETY: one work item per element, each reads `input[i]` and writes
// `output[i]` for its own `i < n`.
#[adl::transform(
    batch,
    name = "double_it",
    unsafe(
        opencl = "__kernel void double_it(__global const float* input, __global float* output, __global const uchar* flags, const ulong n, const ulong per_sample, const ulong channels, const ulong inner, const ulong last) { size_t i = get_global_id(0); output[i] = input[i] * 2.0f; }"
    )
)]
fn double(b: Array1<f32>) -> Array1<f32> {
    b * 2.0
}

/// A crop to the first `size` columns, configured per pipeline.
struct Crop {
    size: usize,
}

#[adl::transform]
impl Crop {
    fn new(size: usize) -> Self {
        Crop { size }
    }

    fn apply(&self, image: Array2<u8>) -> Array2<u8> {
        image.slice(ndarray::s![.., ..self.size]).to_owned()
    }
}

/// Scale a batch by a factor.
struct ScaleBatch {
    factor: f32,
}

/// Scale every value of the batch by `factor`.
// SAFETY: kernels/scale.cl reads `input[i]` and writes `output[i]` for
// its own `i < n`, and reads the scalar `factor`.
#[adl::transform(batch, unsafe(opencl = include_str!("../kernels/scale.cl")), name = "scale", args(factor))]
impl ScaleBatch {
    fn apply(&self, b: Array1<f32>) -> Array1<f32> {
        b * self.factor
    }
}

#[test]
fn a_function_node_is_still_a_function_and_is_a_transform() -> adl::Result<()> {
    let frame = Frame {
        pixels: vec![1, 2, 3],
    };
    assert_eq!(flip(frame.clone()).pixels, vec![3, 2, 1]);
    assert_eq!(flip {}.apply(frame.clone())?.pixels, vec![3, 2, 1]);
    // The node is a plain value: Default, Copy, usable through the trait.
    fn run<T: Transform<Frame>>(t: T, f: Frame) -> adl::Result<T::Output> {
        t.apply(f)
    }
    assert_eq!(run(flip::default(), frame)?.pixels, vec![3, 2, 1]);
    Ok(())
}

#[test]
fn a_fallible_node_fails_with_a_transform_error_naming_it() {
    assert_eq!(parse(" 42 ".into()), Ok(42));
    assert_eq!(parse {}.apply("7".into()).unwrap(), 7);
    let err = parse {}.apply("seven".into()).unwrap_err();
    assert!(
        matches!(&err, Error::Transform { node, .. } if node == "parse_label"),
        "{err:?}"
    );
    assert_eq!(
        format!("{err:#}"),
        "transform `parse_label`: invalid digit found in string"
    );

    assert_eq!(checked {}.apply(3).unwrap(), 3);
    let err = checked {}.apply(-1).unwrap_err();
    assert!(
        matches!(&err, Error::Transform { node, .. } if node == "checked"),
        "{err:?}"
    );
    assert!(format!("{err:#}").contains("-1 is negative"), "{err:#}");
}

#[test]
fn info_records_name_stage_types_and_doc() {
    let info = flip {}.info();
    assert_eq!(info.name, "flip");
    assert_eq!(info.stage, Stage::Sample);
    assert_eq!(info.input, Some(TypeInfo::of::<Frame>()));
    assert_eq!(info.output.map(|t| t.id), Some(TypeId::of::<Frame>()));
    assert_eq!(info.input.unwrap().short_name(), "Frame");
    assert!(
        info.input.unwrap().name.ends_with("::Frame"),
        "{}",
        info.input.unwrap().name
    );
    assert_eq!(info.kernel, None);
    assert_eq!(info.fusion(), None);
    assert_eq!(info.doc, "Mirror the frame left to right.");

    let info = parse {}.info();
    assert_eq!(info.name, "parse_label");
    assert_eq!(info.input.map(|t| t.id), Some(TypeId::of::<String>()));
    // The output of a fallible node is its `Ok` type.
    assert_eq!(info.output.map(|t| t.id), Some(TypeId::of::<i64>()));
    assert_eq!(info.doc, "");

    fn io<N: Node>(_: &N) -> (TypeId, TypeId)
    where
        N::Input: 'static,
        N::Output: 'static,
    {
        (TypeId::of::<N::Input>(), TypeId::of::<N::Output>())
    }
    assert_eq!(io(&checked {}), (TypeId::of::<i64>(), TypeId::of::<i64>()));
}

#[test]
fn batch_nodes_carry_their_kernel_source() -> adl::Result<()> {
    let info = double {}.info();
    assert_eq!(info.stage, Stage::Batch);
    assert_eq!(info.kernel.as_ref().map(|k| &*k.source), Some(DOUBLE_CL));
    // A user's kernel is a kernel of its own: never merged into another.
    assert_eq!(info.fusion(), Some(adl::kernel::Fusion::Own));
    assert_eq!(info.doc, "Double every value.");
    assert_eq!(double {}.apply(array![1.0, 2.0])?, array![2.0, 4.0]);

    let scale = ScaleBatch { factor: 3.0 };
    let info = scale.info();
    assert_eq!(info.name, "scale");
    assert_eq!(info.stage, Stage::Batch);
    assert_eq!(
        info.kernel.as_ref().map(|k| &*k.source),
        Some(include_str!("../kernels/scale.cl"))
    );
    assert!(info.kernel.unwrap().source.contains("__kernel void scale"));
    // The impl block's doc comment.
    assert_eq!(info.doc, "Scale every value of the batch by `factor`.");
    assert_eq!(
        Transform::apply(&scale, array![1.0, 2.0])?,
        array![3.0, 6.0]
    );
    Ok(())
}

#[test]
fn an_impl_block_node_with_state() -> adl::Result<()> {
    let crop = Crop::new(2);
    let image = Array2::from_shape_fn((2, 4), |(r, c)| (10 * r + c) as u8);
    // The inherent method, as written…
    assert_eq!(crop.apply(image.clone()), array![[0, 1], [10, 11]]);
    // …and the node.
    assert_eq!(Transform::apply(&crop, image)?, array![[0, 1], [10, 11]]);
    let info = crop.info();
    assert_eq!(info.name, "crop");
    assert_eq!(info.stage, Stage::Sample);
    assert_eq!(info.input.map(|t| t.id), Some(TypeId::of::<Array2<u8>>()));
    // No doc on the impl block or `apply`: the struct's is not visible to
    // the macro.
    assert_eq!(info.doc, "");
    Ok(())
}

#[test]
fn nodes_satisfy_the_composition_markers() {
    // The checks that `pipeline!` emits (hidden helpers, not API).
    use adl::__private::{assert_batch_node, assert_feeds, assert_sample_node};
    assert_sample_node(&flip {});
    assert_sample_node(&Crop::new(1));
    assert_batch_node(&double {});
    assert_batch_node(&ScaleBatch { factor: 1.0 });
    assert_feeds(&double {}, &ScaleBatch { factor: 1.0 });
    assert_feeds(&parse {}, &checked {});
}

/// Nodes named like the generated code's own parameter and closure names.
#[adl::transform]
fn input(x: i64) -> i64 {
    x + 1
}

#[adl::transform]
fn error(x: i64) -> Result<i64, String> {
    if x < 0 {
        Err(format!("{x} is negative"))
    } else {
        Ok(x)
    }
}

#[test]
fn node_names_do_not_clash_with_generated_names() {
    use adl::Transform;
    assert_eq!(input {}.apply(1).unwrap(), 2);
    assert_eq!(error {}.apply(3).unwrap(), 3);
    assert!(format!("{:#}", error {}.apply(-1).unwrap_err()).contains("-1 is negative"));
}

/// A batch node that makes a new batch array: its memory from the
/// loader's pool, and its input's memory given back to it.
#[adl::transform(batch)]
fn doubled(batch: Array2<f32>, buffers: adl::exec::Buffers<'_>) -> Array2<f32> {
    let mut values: Vec<f32> = buffers.take(batch.len());
    values.extend(batch.iter().map(|v| 2.0 * v));
    let out = Array2::from_shape_vec(batch.raw_dim(), values).expect("the input's shape");
    buffers.release(batch);
    out
}

/// The same, allocating.
#[adl::transform(batch)]
fn doubled_fresh(batch: Array2<f32>) -> Array2<f32> {
    batch.mapv(|v| 2.0 * v)
}

/// What the pool of a loader of 64 samples of 4096 floats (batches of 8:
/// 128 KiB) through `node` served in 3 epochs (24 batches), its batches
/// checked.
fn served<N>(node: N) -> adl::exec::BufferStatistics
where
    N: adl::Transform<Array2<f32>, Output = Array2<f32>> + Send + Sync + 'static,
{
    use adl::collate::DefaultCollate;
    use adl::graph::loader::Loader;
    use adl::pipeline::Stages;

    let dataset: adl::InMemory<Array1<f32>> =
        (0..64).map(|i| Array1::from_elem(4096, i as f32)).collect();
    let stages = Stages::new()
        .with_sample(|x: Array1<f32>| x)
        .with_collate(DefaultCollate)
        .with_batch(node);
    let loader = Loader::new(dataset, stages)
        .batch_size(8)
        .shuffle(3)
        .build()
        .unwrap();
    for epoch in 0..3 {
        for (k, batch) in loader.epoch(epoch).enumerate() {
            let batch = batch.unwrap();
            assert_eq!(batch.nrows(), 8, "batch {k}");
            assert!(batch.iter().all(|&v| v % 2.0 == 0.0));
        }
    }
    loader.statistics().buffers
}

#[test]
fn a_node_taking_the_buffers_builds_in_the_loaders_pool() {
    // 24 batches: the collate takes each batch's memory from the pool, and
    // the node taking the buffers its output's too, reused after the
    // first few; the node that allocates takes none of the pool.
    let pooled = served(doubled {});
    assert_eq!(pooled.reused + pooled.allocated, 48, "{pooled:?}");
    assert!(pooled.allocated <= 8, "{pooled:?}");
    let fresh = served(doubled_fresh {});
    assert_eq!(fresh.reused + fresh.allocated, 24, "{fresh:?}");
    // Outside a loader the node allocates.
    let out = doubled {}.apply(Array2::from_elem((2, 3), 1.5)).unwrap();
    assert_eq!(out, Array2::from_elem((2, 3), 3.0));
}
