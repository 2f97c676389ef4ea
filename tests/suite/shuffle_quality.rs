//! The quality of the loader's shuffle ([`Shuffle`](adl::graph::loader::Shuffle), a Feistel
//! permutation evaluated per position): over many epochs each index's
//! position is uniform, consecutive epochs are unrelated, neighbouring
//! indices land independently, and fixed points are as many as chance
//! gives. The statistics are bounded at five standard
//! deviations (or more): a fair shuffle passes whatever the seed, a biased
//! one (a rotation, a barely mixed network, epochs that repeat) fails.
//!
//! The orders are the loader's own (`Epoch::indices`), over a dataset whose
//! samples are not read.

use adl::InMemory;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;

/// The loader's order of `epoch` over `n` samples, shuffled with `seed`.
fn orders(n: usize, seed: u64) -> impl Fn(u64) -> Vec<usize> {
    let loader = Loader::new((0..n).collect::<InMemory<usize>>(), Stages::new())
        .shuffle(seed)
        .workers(0)
        .build()
        .expect("a loader");
    move |epoch| loader.epoch(epoch).indices().to_vec()
}

/// Chi-square of `counts` against a uniform expectation, as a z-score:
/// `(chi2 - dof) / sqrt(2 dof)`, about standard normal for a fair count.
fn chi_square_z(counts: &[u64], expected: f64) -> f64 {
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let dof = (counts.len() - 1) as f64;
    (chi2 - dof) / (2.0 * dof).sqrt()
}

/// Pearson's correlation of two sequences of positions (Spearman's rank
/// correlation, since both are permutations).
fn correlation(a: &[usize], b: &[usize]) -> f64 {
    let n = a.len() as f64;
    let mean = (n - 1.0) / 2.0;
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (x as f64 - mean, y as f64 - mean);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    ab / (aa * bb).sqrt()
}

#[test]
fn each_index_is_equally_likely_at_each_position() {
    // A power of two (no cycle walking) and a length just past one (the
    // network's domain twice the length: most values walk).
    for (n, epochs) in [(64usize, 20_000u64), (65, 20_000), (100, 30_000)] {
        let order = orders(n, 11);
        let mut counts = vec![0u64; n * n];
        for epoch in 0..epochs {
            for (position, index) in order(epoch).into_iter().enumerate() {
                counts[index * n + position] += 1;
            }
        }
        // Each (index, position) cell, and each index's row on its own.
        let expected = epochs as f64 / n as f64;
        let z = chi_square_z(&counts, expected);
        assert!(
            z.abs() < 5.0,
            "n = {n}: positions are not uniform (z = {z:.2})"
        );
        for index in [0, n / 2, n - 1] {
            let row = &counts[index * n..(index + 1) * n];
            let z = chi_square_z(row, expected);
            assert!(
                z.abs() < 6.0,
                "n = {n}: index {index}'s positions (z = {z:.2})"
            );
        }
    }
}

#[test]
fn consecutive_epochs_and_seeds_are_unrelated() {
    let n = 10_000;
    let order = orders(n, 3);
    // Each order as the position of every index.
    let positions = |order: Vec<usize>| {
        let mut at = vec![0; order.len()];
        for (position, index) in order.into_iter().enumerate() {
            at[index] = position;
        }
        at
    };
    let identity: Vec<usize> = (0..n).collect();
    let sd = 1.0 / ((n - 1) as f64).sqrt();
    let mut previous = positions(order(0));
    let mut sum = 0.0;
    for epoch in 1..=40 {
        let current = positions(order(epoch));
        let r = correlation(&previous, &current);
        assert!(
            r.abs() < 5.0 * sd,
            "epochs {} and {epoch} correlate: {r:.4}",
            epoch - 1
        );
        let r = correlation(&identity, &current);
        assert!(
            r.abs() < 5.0 * sd,
            "epoch {epoch} keeps the dataset's order: {r:.4}"
        );
        sum += r;
        previous = current;
    }
    // Forty correlations with the dataset's order average to about zero.
    assert!((sum / 40.0).abs() < 5.0 * sd / 40f64.sqrt());
    // Two seeds, the same epoch.
    let other = orders(n, 4);
    let r = correlation(&positions(order(7)), &positions(other(7)));
    assert!(r.abs() < 5.0 * sd, "seeds 3 and 4 correlate: {r:.4}");
}

#[test]
fn fixed_points_are_as_many_as_chance_gives() {
    // A uniformly random permutation has Poisson(1) fixed points: mean 1,
    // none at all with probability 1/e.
    let (n, epochs) = (1_000, 5_000u64);
    let order = orders(n, 5);
    let mut total = 0u64;
    let mut without = 0u64;
    for epoch in 0..epochs {
        let fixed = order(epoch)
            .into_iter()
            .enumerate()
            .filter(|(position, index)| position == index)
            .count() as u64;
        total += fixed;
        without += u64::from(fixed == 0);
    }
    let mean = total as f64 / epochs as f64;
    // The mean's standard deviation is 1 / sqrt(5000) = 0.014.
    assert!((mean - 1.0).abs() < 0.08, "{mean} fixed points per epoch");
    let share = without as f64 / epochs as f64;
    let p = (-1f64).exp();
    let sd = (p * (1.0 - p) / epochs as f64).sqrt();
    assert!(
        (share - p).abs() < 5.0 * sd,
        "{share} of epochs without a fixed point"
    );
}

#[test]
fn neighbouring_indices_land_independently() {
    // The gap between where index i and index i + 1 land, modulo n, is
    // uniform for a random permutation: a round function with linear
    // structure (b and b + 1 mapped a constant apart) shows here first.
    let (n, epochs) = (1_000, 2_000u64);
    let order = orders(n, 9);
    let mut gaps = vec![0u64; n];
    for epoch in 0..epochs {
        let mut at = vec![0usize; n];
        for (position, index) in order(epoch).into_iter().enumerate() {
            at[index] = position;
        }
        for i in 0..n - 1 {
            gaps[(at[i + 1] + n - at[i]) % n] += 1;
        }
    }
    // Gap 0 cannot happen (two indices, one position).
    let z = chi_square_z(
        &gaps[1..],
        (epochs * (n as u64 - 1)) as f64 / (n - 1) as f64,
    );
    assert!(
        z.abs() < 5.0,
        "neighbours' gaps are not uniform (z = {z:.2})"
    );
}
