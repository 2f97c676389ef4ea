//! Parity with the Python reference (abstract-dataloader 0.4.7).
//!
//! Runs every case of the golden files in `tests/golden/` and checks our
//! result exactly: indices, lengths, values, the key order of every map,
//! and, where both fail, the Python type of the error. Cases where the
//! reference is wrong diverge on purpose: each is recognised by a rule (not
//! by its id, so unseen cases of the same kind are handled too), and our own
//! behaviour on it is checked instead. Cases that cannot be written in Rust
//! are listed as having no Rust analogue, and not run. A lookup at a
//! negative index cannot be written either (our indices are `usize`): each
//! one is counted, and checked the same way in every file
//! (`common::negative_lookup`), while the rest of its case is compared.
//! The reasons are in `docs/divergences.md`.
//!
//! This is a `harness = false` test so that it can print, per file, how many
//! cases matched, how many diverge on purpose, how many have no Rust
//! analogue, and how many lookups were at negative indices.

// Helper modules are `pub` for each other, inside this private test crate.
#![allow(unreachable_pub)]

mod parity {
    pub mod common;
    pub mod composition;
    pub mod sample;
    pub mod sensor_window;
    pub mod sync;
    pub mod torch_collate;
    pub mod trace_dataset;
}

use parity::common::Tally;

fn main() {
    let tallies: Vec<Tally> = vec![
        parity::sync::run("sync_next.json"),
        parity::sync::run("sync_nearest.json"),
        parity::sync::run("sync_misc.json"),
        parity::trace_dataset::run("trace_dataset.json"),
        parity::sensor_window::run("sensor_window.json"),
        parity::sample::run("sample.json"),
        parity::torch_collate::run("torch_collate.json"),
        parity::composition::run("composition.json"),
    ];
    let mut passed = 0;
    let mut failed = 0;
    for t in &tallies {
        println!("{}", t.summary());
        for n in &t.no_analogue {
            println!("    no Rust analogue: {n}");
        }
        for f in &t.failures {
            println!("    FAILED {f}");
        }
        passed += t.matched + t.diverged;
        failed += t.failures.len();
    }
    println!("parity: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
