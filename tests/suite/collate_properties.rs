//! Property tests of collation: stacking, concatenation and padding keep
//! every value of every sample, in order, and a sample of another shape is
//! reported at its own position.

use adl::collate::{ConcatRows, DefaultCollate, Pad, Padded, collate_with};
use adl::{Collate, Error};
use ndarray::{ArrayD, Axis, IxDyn};
use proptest::prelude::*;

/// `n` arrays of `shape`, each filled with distinct values.
fn arrays(n: usize, shape: &[usize]) -> Vec<ArrayD<i32>> {
    (0..n)
        .map(|k| {
            let mut next = (k * 1000) as i32;
            ArrayD::from_shape_fn(IxDyn(shape), |_| {
                next += 1;
                next
            })
        })
        .collect()
}

proptest! {
    #[test]
    fn stacking_keeps_every_sample_in_order(n in 1usize..6, shape in proptest::collection::vec(1usize..4, 0..3)) {
        let samples = arrays(n, &shape);
        let batch = DefaultCollate.collate(samples.clone()).unwrap();
        let mut want = vec![n];
        want.extend(&shape);
        prop_assert_eq!(batch.shape(), &want[..]);
        for (k, sample) in samples.iter().enumerate() {
            prop_assert_eq!(&batch.index_axis(Axis(0), k), sample);
        }
    }

    #[test]
    fn another_shape_is_reported_at_its_position(
        n in 2usize..6,
        shape in proptest::collection::vec(1usize..4, 1..3),
        bad in 1usize..6,
    ) {
        let bad = bad % n;
        prop_assume!(bad > 0);
        let mut samples = arrays(n, &shape);
        let mut other = shape.clone();
        other[0] += 1;
        samples[bad] = arrays(1, &other).remove(0);
        match DefaultCollate.collate(samples) {
            Err(Error::Collate { position, reason, .. }) => {
                prop_assert_eq!(position, bad);
                let got = format!("{other:?}");
                let first = format!("{shape:?}");
                prop_assert!(reason.contains(&got) && reason.contains(&first), "{}", reason);
            }
            other => prop_assert!(false, "expected a collate error, got {:?}", other),
        }
    }

    #[test]
    fn concat_and_pad_keep_every_row(rows in proptest::collection::vec(0usize..5, 1..6), width in 1usize..4) {
        let samples: Vec<ArrayD<i32>> = rows
            .iter()
            .enumerate()
            .map(|(k, &r)| arrays(1, &[r, width]).remove(0).mapv(|v| v + k as i32 * 100))
            .collect();
        let concat = collate_with::<ConcatRows, _>(samples.clone()).unwrap();
        prop_assert_eq!(concat.shape(), &[rows.iter().sum::<usize>(), width][..]);
        let mut at = 0;
        for sample in &samples {
            let r = sample.len_of(Axis(0));
            prop_assert_eq!(&concat.slice_axis(Axis(0), (at..at + r).into()), &sample.view());
            at += r;
        }

        let Padded { data, lengths, mask } = collate_with::<Pad, _>(samples.clone()).unwrap();
        let longest = rows.iter().copied().max().unwrap();
        prop_assert_eq!(data.shape(), &[rows.len(), longest, width][..]);
        for (k, sample) in samples.iter().enumerate() {
            let r = rows[k];
            prop_assert_eq!(lengths[k], r);
            let slot = data.index_axis(Axis(0), k);
            prop_assert_eq!(&slot.slice_axis(Axis(0), (0..r).into()), &sample.view());
            prop_assert!(slot.slice_axis(Axis(0), (r..longest).into()).iter().all(|&v| v == 0));
            for row in 0..longest {
                prop_assert_eq!(mask[[k, row]], row < r);
            }
        }
    }
}
