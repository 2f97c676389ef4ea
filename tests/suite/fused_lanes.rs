//! Elementwise kernel chains fused into one loop on the CPU
//! (`FusedLanes`), and batches whose rows are read where they lie
//! (`InPlace` / `Rows`): the same bits as the Rust bodies one after the
//! other on a copied batch, for shapes whose rows are not a whole number
//! of vectors, flipped rows, repeated keys and per-feature normalisation.

use adl::collate::{Gather, InPlace, RowSource, Rows};
use adl::exec::Sequential;
use adl::kernel::{Affine, Clamp, FlipByFlag, FusedLanes, Normalize, U8ToF32};
use adl::prelude::*;
use ndarray::{ArcArray, Array1, Array2, Array4, Ix2, Ix4};
use proptest::prelude::*;

fn same_bits<D: ndarray::Dimension>(
    a: &ndarray::Array<f32, D>,
    b: &ndarray::Array<f32, D>,
) -> bool {
    a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Shapes `[table rows, channels, height, width]`, widths on both sides of
/// a 64-lane step.
fn image_shape() -> impl Strategy<Value = (usize, usize, usize, usize)> {
    (
        1usize..6,
        1usize..4,
        1usize..4,
        prop_oneof![Just(1usize), 2usize..9, 60usize..70, Just(128)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn a_fused_loop_gives_the_bodies_bits_on_copied_and_in_place_rows(
        (rows, channels, height, width) in image_shape(),
        seed in any::<u64>(),
        keys in proptest::collection::vec(0usize..64, 1..9),
        (scale, offset, low, high) in (-4.0f32..4.0, -4.0f32..4.0, -1.0f32..0.0, 0.0f32..1.0),
    ) {
        let len = rows * channels * height * width;
        let pixels: Vec<u8> = (0..len as u64)
            .map(|i| (adl::exec::mix64(seed ^ i) >> 56) as u8)
            .collect();
        let table = ArcArray::from_shape_vec((rows, channels, height, width), pixels).unwrap();
        let keys: Vec<usize> = keys.into_iter().map(|k| k % rows).collect();
        let flags: Array1<bool> = keys.iter().map(|&k| (adl::exec::mix64(seed ^ k as u64) & 1) == 1).collect();
        let mean: Vec<f32> = (0..channels).map(|c| 0.25 * c as f32 + 0.1).collect();
        let std: Vec<f32> = (0..channels).map(|c| 0.5 + 0.125 * c as f32).collect();
        let (flip, to_f32) = (FlipByFlag::<u8, Ix4>::new(), U8ToF32::<Ix4>::divide(255.0));
        let (normalize, clamp, affine) = (
            Normalize::<Ix4>::per_channel(mean, std),
            Clamp::<Ix4>::new(low, high),
            Affine::<Ix4>::new(scale, offset),
        );
        // The reference: the bodies one after the other on a copied batch.
        let copied = table.gather(&keys).unwrap();
        let reference = affine
            .apply(clamp.apply(normalize.apply(to_f32.apply(flip.apply((copied.clone(), flags.clone())).unwrap()).unwrap()).unwrap()).unwrap())
            .unwrap();
        let chain = FusedLanes::new(flip, FusedLanes::new(to_f32, FusedLanes::new(normalize.clone(), FusedLanes::new(clamp, affine))));
        let cx = Sequential::new();
        let fused = chain.apply_in(&cx, (copied, flags.clone())).unwrap();
        prop_assert!(same_bits(&fused, &reference));
        // The same chain reading the rows where they lie in the table.
        let in_place: Rows<u8, Ix4> = InPlace::new(table.clone()).gather(&keys).unwrap();
        let from_rows = chain.apply_in(&cx, (in_place.clone(), flags.clone())).unwrap();
        prop_assert!(same_bits(&from_rows, &reference));
        // And its Rust bodies, which copy the rows first.
        prop_assert!(same_bits(&chain.apply((in_place.clone(), flags.clone())).unwrap(), &reference));
        // One kernel alone on rows in place (read block by block).
        let alone = to_f32.apply_in(&cx, in_place.clone()).unwrap();
        prop_assert!(same_bits(&alone, &to_f32.apply(in_place.to_array().unwrap()).unwrap()));
    }

    #[test]
    fn feature_rows_read_in_place_give_the_bodies_bits(
        (rows, features) in (1usize..40, prop_oneof![Just(1usize), 2usize..9, 60usize..70]),
        seed in any::<u64>(),
        keys in proptest::collection::vec(0usize..64, 1..40),
    ) {
        // `[batch, features]` rows (W1's shape), one block per sample: runs
        // of samples go to the kernel together, split where the flag
        // changes.
        let values: Vec<f32> = (0..(rows * features) as u64)
            .map(|i| (adl::exec::mix64(seed ^ i) >> 40) as f32 / 4096.0 - 2048.0)
            .collect();
        let table = ArcArray::from_shape_vec((rows, features), values).unwrap();
        let keys: Vec<usize> = keys.into_iter().map(|k| k % rows).collect();
        let flags: Array1<bool> = keys.iter().map(|&k| (adl::exec::mix64(seed ^ k as u64) & 1) == 1).collect();
        let copied = table.gather(&keys).unwrap();
        let in_place: Rows<f32, Ix2> = InPlace::new(table.clone()).gather(&keys).unwrap();
        let cx = Sequential::new();
        // One constant for every feature: a lane for the whole run.
        let standardize = Normalize::<Ix2>::per_channel([1.0], [1.7320508]);
        let alone = standardize.apply_in(&cx, in_place.clone()).unwrap();
        prop_assert!(same_bits(&alone, &standardize.apply(copied.clone()).unwrap()));
        // One constant per feature: no lane, block by block.
        let per_feature = Normalize::<Ix2>::per_channel(
            (0..features).map(|f| f as f32 * 0.5).collect::<Vec<_>>(),
            (0..features).map(|f| 1.0 + f as f32 * 0.25).collect::<Vec<_>>(),
        );
        let alone = per_feature.apply_in(&cx, in_place.clone()).unwrap();
        prop_assert!(same_bits(&alone, &per_feature.apply(copied.clone()).unwrap()));
        // A flip (rows reversed where flagged) fused with the standardisation.
        let flip = FlipByFlag::<f32, Ix2>::new();
        let reference = standardize.apply(flip.apply((copied, flags.clone())).unwrap()).unwrap();
        let chain = FusedLanes::new(flip, standardize.clone());
        let fused = chain.apply_in(&cx, (in_place, flags)).unwrap();
        prop_assert!(same_bits(&fused, &reference));
    }

    #[test]
    fn a_per_feature_normalisation_fuses_without_a_lane(
        values in proptest::collection::vec(-100.0f32..100.0, 4 * 70),
        (scale, offset) in (-4.0f32..4.0, -4.0f32..4.0),
    ) {
        let rows = Array2::from_shape_vec((4, 70), values).unwrap();
        let per_feature = Normalize::<Ix2>::per_channel(
            (0..70).map(|f| f as f32 * 0.01).collect::<Vec<_>>(),
            (0..70).map(|f| 1.0 + f as f32 * 0.02).collect::<Vec<_>>(),
        );
        let affine = Affine::<Ix2>::new(scale, offset);
        let reference = per_feature.apply(affine.apply(rows.clone()).unwrap()).unwrap();
        let chain = FusedLanes::new(affine, per_feature);
        let fused = chain.apply_in(&Sequential::new(), rows).unwrap();
        prop_assert!(same_bits(&fused, &reference));
    }
}

#[test]
fn pipeline_links_elementwise_kernels_into_one_loop() {
    let pipeline = adl::pipeline! {
        collate: Gather::new(InPlace::new(ArcArray::<u8, Ix4>::zeros((3, 1, 2, 2)))),
        batch: U8ToF32::divide(255.0) -> Normalize::per_channel([0.5], [0.25]) -> Clamp::new(-1.0, 1.0),
    };
    let name = std::any::type_name_of_val(&pipeline);
    assert_eq!(name.matches("FusedLanes<").count(), 2, "{name}");
    assert!(!name.contains("Fused<"), "{name}");
    let collated = pipeline.collate(vec![2, 0]).unwrap();
    let out: Array4<f32> = pipeline.batch_in(&Sequential::new(), collated).unwrap();
    assert_eq!(out.shape(), &[2, 1, 2, 2]);
    assert!(out.iter().all(|&v| v == -1.0));
}

#[test]
fn keys_out_of_the_table_are_errors_naming_the_key() {
    let table = InPlace::new(ArcArray::<u8, Ix4>::zeros((3, 1, 2, 2)));
    let err = Gather::new(table)
        .collate(vec![1, 3])
        .unwrap_err()
        .to_string();
    assert!(err.contains('3'), "{err}");
}

#[test]
fn a_flip_fused_through_pipeline_and_the_loader_flips_the_flagged_rows() {
    use adl::graph::loader::Loader;
    use ndarray::{Array3, Axis};
    let image = |i: usize| {
        Array3::from_shape_fn((3, 16, 16), |(c, h, w)| {
            (adl::exec::mix64((i * 768 + c * 256 + h * 16 + w) as u64) >> 56) as u8
        })
    };
    let data: adl::InMemory<(Array3<u8>, bool)> = (0..40).map(|i| (image(i), i % 3 == 0)).collect();
    let (mean, std) = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
    let pipeline = adl::pipeline! {
        collate: default,
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(mean, std),
    };
    // The bodies one after the other, on batches stacked by hand.
    let (flip, to_f32, normalize) = (
        FlipByFlag::<u8, Ix4>::new(),
        U8ToF32::<Ix4>::divide(255.0),
        Normalize::<Ix4>::per_channel(mean, std),
    );
    for workers in [0, 2] {
        let loader = Loader::new(data.clone(), pipeline.clone())
            .batch_size(16)
            .workers(workers)
            .build()
            .unwrap();
        for (b, batch) in loader.epoch(0).enumerate() {
            let batch = batch.unwrap().into_inner();
            let samples: Vec<usize> = (b * 16..(b * 16 + 16).min(40)).collect();
            let images: Vec<Array3<u8>> = samples.iter().map(|&i| image(i)).collect();
            let views: Vec<_> = images.iter().map(|a| a.view()).collect();
            let stacked = ndarray::stack(Axis(0), &views).unwrap();
            let flags: Array1<bool> = samples.iter().map(|i| i % 3 == 0).collect();
            let bodies = normalize
                .apply(to_f32.apply(flip.apply((stacked, flags)).unwrap()).unwrap())
                .unwrap();
            assert!(same_bits(&batch, &bodies), "{workers} workers, batch {b}");
        }
    }
}

#[test]
fn a_block_that_is_not_whole_rows_is_refused_not_left_half_written() {
    use adl::kernel::{BlockInfo, BlockKernel};
    let chain = FusedLanes::new(FlipByFlag::<u8, Ix4>::new(), U8ToF32::<Ix4>::divide(255.0));
    let input = [1u8; 10];
    // Room for ten floats, aligned for f32.
    let mut room = vec![0f32; 10];
    let block = BlockInfo {
        channel: 0,
        channel_per_element: false,
        last: 4,
        flag: true,
    };
    let err = chain
        .run_block_into(&input, bytemuck::cast_slice_mut(&mut room), block)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not whole rows of 4"), "{err}");
}

#[test]
fn a_fused_chain_takes_its_batch_from_the_contexts_pool_and_gives_its_input_back() {
    use adl::exec::{BufferPool, WithServices};
    use std::sync::Arc;
    let chain = FusedLanes::new(
        U8ToF32::<Ix4>::divide(255.0),
        Normalize::<Ix4>::per_channel([0.5, 0.25, 0.125], [0.5, 2.0, 4.0]),
    );
    // 24 KiB of bytes in, 96 KiB of floats out: both worth pooling.
    let input =
        || Array4::from_shape_fn((8, 3, 32, 32), |(i, c, h, w)| (i + c * 7 + h * 3 + w) as u8);
    let expected = chain.apply(input()).unwrap();
    let pool = Arc::new(BufferPool::new(4));
    let sequential = Sequential::new();
    let cx = WithServices::new(&sequential).buffers(&pool);
    let first = chain.apply_in(&cx, input()).unwrap();
    assert!(same_bits(&first, &expected));
    let stats = pool.statistics();
    assert_eq!((stats.reused, stats.allocated), (0, 1), "{stats:?}");
    assert_eq!(
        stats.held_bytes,
        8 * 3 * 32 * 32,
        "the input's bytes were given back"
    );
    pool.recycle(first);
    let second = chain.apply_in(&cx, input()).unwrap();
    assert!(same_bits(&second, &expected));
    assert_eq!(
        pool.statistics().reused,
        1,
        "the batch is built in the first's memory"
    );
}
