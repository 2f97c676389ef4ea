//! Parity cases of the golden file; written with its component.

use super::common::Tally;

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    Tally::new(file)
}
