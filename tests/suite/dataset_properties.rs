//! Property tests of `Concat` indexing: every sample of every trace is
//! visited exactly once, in order, and nothing past the end is reachable.

use adl::{Concat, Dataset, Indices, Recording, Result, Series, Timestamps};
use proptest::prelude::*;

type Trace = Recording<Vec<Series<fn(usize) -> Result<usize>>>>;

fn identity(i: usize) -> Result<usize> {
    Ok(i)
}

/// A trace of `len` samples whose sensor `x` reads index `row` for sample
/// `row` (manual indices, reversed so that local and sensor index differ).
fn trace(len: usize) -> Trace {
    let times: Vec<f64> = (0..len).map(|i| i as f64).collect();
    let sensor = Series::new(
        "x",
        Timestamps::new("x", times).unwrap(),
        identity as fn(usize) -> Result<usize>,
    );
    let reversed = (0..len as u32).rev().collect();
    let indices = Indices::new(vec![("x".into(), reversed)]).unwrap();
    Recording::with_indices("t", vec![sensor], indices).unwrap()
}

proptest! {
    #[test]
    fn every_sample_of_every_trace_once(lens in proptest::collection::vec(0usize..8, 0..12)) {
        let ds = Concat::new(lens.iter().map(|&n| trace(n)).collect()).unwrap();
        prop_assert_eq!(ds.len(), lens.iter().sum::<usize>());
        let mut seen = Vec::new();
        for i in 0..ds.len() {
            let (part, local) = ds.locate(i).unwrap();
            prop_assert!(local < lens[part], "local index {} past trace {} of length {}", local, part, lens[part]);
            let sample = ds.get(i).unwrap();
            prop_assert_eq!(sample["x"], lens[part] - 1 - local);
            seen.push((part, local));
        }
        let expected: Vec<(usize, usize)> = lens
            .iter()
            .enumerate()
            .flat_map(|(t, &n)| (0..n).map(move |l| (t, l)))
            .collect();
        prop_assert_eq!(seen, expected);
        prop_assert!(ds.get(ds.len()).is_err());
        prop_assert!(ds.locate(ds.len() + 3).is_err());
    }

    #[test]
    fn nested_equals_flat(lens in proptest::collection::vec(0usize..6, 0..10), split in 0usize..10) {
        let split = split.min(lens.len());
        let flat = Concat::new(lens.iter().map(|&n| trace(n)).collect()).unwrap();
        let inner = |ls: &[usize]| Concat::new(ls.iter().map(|&n| trace(n)).collect()).unwrap();
        let nested = Concat::new(vec![inner(&lens[..split]), inner(&lens[split..])]).unwrap();
        prop_assert_eq!(flat.len(), nested.len());
        for i in 0..flat.len() {
            prop_assert_eq!(flat.get(i).unwrap(), nested.get(i).unwrap());
        }
    }
}
