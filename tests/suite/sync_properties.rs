//! Properties of the synchronization policies on random multi-rate traces:
//! 3-4 sensors at different rates, with jitter, duplicate timestamps,
//! sometimes at epoch scale, and random margins.

use adl::Error;
use adl::sync::{Bound, Decimate, Margin, Margins, Nearest, Next};
use adl::{Indices, Synchronization};
use proptest::prelude::*;

/// One sensor: sorted, finite, advancing timestamps (1 to 40 of them,
/// mostly 5 or more).
fn sensor(base: f64) -> impl Strategy<Value = Vec<f64>> {
    (
        0.0..0.3_f64,
        0.01..0.3_f64,
        prop_oneof![1 => 1_usize..5, 4 => 5_usize..40],
        prop::collection::vec((0.0..0.45_f64, 0_u8..10), 40),
    )
        .prop_map(move |(start, period, n, noise)| {
            let mut t: Vec<f64> = Vec::with_capacity(n + 1);
            for (i, &(jitter, dup)) in noise.iter().take(n).enumerate() {
                match t.last() {
                    // About one sample in ten repeats the previous timestamp.
                    Some(&prev) if dup == 0 => t.push(prev),
                    _ => t.push(base + start + (i as f64 + jitter) * period),
                }
            }
            if t.len() >= 2 && t[0] == t[t.len() - 1] {
                t.push(t[0] + period);
            }
            t
        })
}

/// 3 or 4 sensors, on a common time base (0, or epoch seconds).
fn trace() -> impl Strategy<Value = Vec<(String, Vec<f64>)>> {
    prop_oneof![Just(0.0), Just(1.7e9)].prop_flat_map(|base| {
        prop::collection::vec(sensor(base), 3..=4).prop_map(|sensors| {
            let names = ["camera", "lidar", "radar", "imu"];
            names.iter().map(|n| (*n).to_owned()).zip(sensors).collect()
        })
    })
}

fn bound() -> impl Strategy<Value = Bound> {
    prop_oneof![
        (0_i64..3).prop_map(Bound::Samples),
        (0.0..0.5_f64).prop_map(Bound::Seconds)
    ]
}

fn margins() -> impl Strategy<Value = Margins> {
    prop_oneof![
        2 => Just(Margins::default()),
        2 => (bound(), bound()).prop_map(|(s, e)| Margins::All(Margin::new(s, e))),
        1 => (bound(), bound()).prop_map(|(s, e)| {
            Margins::PerSensor(vec![("lidar".to_owned(), Margin::new(s, e))])
        }),
    ]
}

fn views(trace: &[(String, Vec<f64>)]) -> Vec<(&str, &[f64])> {
    trace
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_slice()))
        .collect()
}

/// Every index in range, columns named in input order.
fn check_shape(idx: &Indices, ts: &[(&str, &[f64])]) -> Result<(), TestCaseError> {
    prop_assert_eq!(idx.names().len(), ts.len());
    for ((name, column), (want, times)) in idx.iter().zip(ts) {
        prop_assert_eq!(name, *want);
        prop_assert!(
            column.iter().all(|&i| (i as usize) < times.len()),
            "{name}: {column:?}"
        );
    }
    Ok(())
}

/// Only margins that trim a whole sensor may fail on these valid traces.
fn ok_or_margin_error(r: adl::Result<Indices>) -> Result<Option<Indices>, TestCaseError> {
    match r {
        Ok(idx) => Ok(Some(idx)),
        Err(Error::InvalidParameter { parameter, .. }) if parameter.contains("margin") => Ok(None),
        Err(e) => Err(TestCaseError::fail(format!("unexpected error {e}"))),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn next_picks_the_first_sample_at_or_after(
        trace in trace(), reference in 0_usize..3, margins in margins()
    ) {
        let ts = views(&trace);
        let reference = ts[reference].0;
        let sync = Next::new(reference).margin(margins);
        let Some(idx) = ok_or_margin_error(sync.synchronize(&ts))? else { return Ok(()) };
        check_shape(&idx, &ts)?;
        let ref_times = ts.iter().find(|(n, _)| *n == reference).unwrap().1;
        let ref_col = idx.column(reference).unwrap();
        for row in 0..idx.len() {
            let t = ref_times[ref_col[row] as usize];
            for (name, times) in &ts {
                let i = idx.column(name).unwrap()[row] as usize;
                prop_assert!(times[i] >= t, "{name}[{i}] = {} < {t}", times[i]);
                prop_assert!(i == 0 || times[i - 1] < t, "{name}[{}] is already >= {t}", i - 1);
            }
        }
        // The rows are the reference samples of the window, each once.
        prop_assert!(ref_col.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn nearest_rows_are_within_tolerance_and_nearest(
        trace in trace(), reference in 0_usize..3, margins in margins(),
        tol in prop_oneof![Just(0.0), 0.0..0.2_f64, Just(f64::INFINITY)],
    ) {
        let ts = views(&trace);
        let reference = ts[reference].0;
        let sync = Nearest::new(reference, tol).unwrap().margin(margins.clone());
        let Some(idx) = ok_or_margin_error(sync.synchronize(&ts))? else { return Ok(()) };
        check_shape(&idx, &ts)?;
        let ref_times = ts.iter().find(|(n, _)| *n == reference).unwrap().1;
        for row in 0..idx.len() {
            let t = ref_times[idx.column(reference).unwrap()[row] as usize];
            for (name, times) in &ts {
                let i = idx.column(name).unwrap()[row] as usize;
                let d = (times[i] - t).abs();
                prop_assert!(d < tol, "{name}[{i}] is {d} from {t}, tolerance {tol}");
                for j in [i.wrapping_sub(1), i + 1] {
                    if let Some(&other) = times.get(j) {
                        // Equal up to the rounding of the midpoint.
                        prop_assert!(d <= (other - t).abs() + 1e-9 * t.abs().max(1.0));
                    }
                }
            }
        }
        // Same window as Next: with an infinite tolerance, the same rows.
        let next = Next::new(reference).margin(margins).synchronize(&ts).unwrap();
        if tol.is_infinite() {
            prop_assert_eq!(idx.len(), next.len());
        } else {
            prop_assert!(idx.len() <= next.len());
        }
    }

    #[test]
    fn decimate_keeps_every_factor_th_row(
        trace in trace(), reference in 0_usize..3, factor in 1_usize..5, nearest in any::<bool>(),
    ) {
        let ts = views(&trace);
        let reference = ts[reference].0;
        let inner: Box<dyn Synchronization> = if nearest {
            Box::new(Nearest::new(reference, 0.1).unwrap())
        } else {
            Box::new(Next::new(reference))
        };
        let all = inner.synchronize(&ts).unwrap();
        let decimated = Decimate::new(&inner, factor).unwrap().synchronize(&ts).unwrap();
        check_shape(&decimated, &ts)?;
        prop_assert_eq!(decimated.len(), all.len().div_ceil(factor));
        for ((_, want), (_, got)) in all.iter().zip(decimated.iter()) {
            let every: Vec<u32> = want.iter().copied().step_by(factor).collect();
            prop_assert_eq!(got, every.as_slice());
        }

        // Decimating the reference before: its indices are real samples.
        let before = Decimate::new(&inner, factor).unwrap().reference(reference);
        match before.synchronize(&ts) {
            Ok(idx) => {
                check_shape(&idx, &ts)?;
                prop_assert!(idx.column(reference).unwrap().iter().all(|&i| (i as usize).is_multiple_of(factor)));
            }
            // Thinning duplicates can leave a constant clock.
            Err(e) => prop_assert!(matches!(e, Error::ConstantTimestamps { .. }), "{e}"),
        }
    }
}
