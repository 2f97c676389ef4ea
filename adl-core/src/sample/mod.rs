//! Sampling a subset of a dataset (the reference's `ext.sample`).
//!
//! - [`sample_ld`]: a low-discrepancy subset of `0..total`, spread evenly
//!   whatever its size, with no repeated index. Its parameters are typed
//!   where the reference relies on Python's `int`/`float`: [`Amount`] (a
//!   count or a fraction of the total), [`Seed`] (an offset or a fraction)
//!   and [`Step`] (the golden ratio, another ratio, or an exact step).
//! - [`Sampled`]: a [`Dataset`](crate::Dataset) restricted to a subset,
//!   picked by [`Sampling`] (low-discrepancy, uniform, random with
//!   replacement) or given as explicit indices.
//! - [`Permutation`]: a seeded pseudo-random permutation of `0..len`
//!   evaluated one position at a time, in constant time and memory (the
//!   loader's shuffle).
//!
//! ```
//! use adl::sample::{sample_ld, Amount, Seed, Step};
//!
//! // A fifth of 1000 indices, starting at 3.
//! let idx = sample_ld(1000, Amount::Fraction(0.2), Seed::Offset(3), Step::GoldenRatio)?;
//! assert_eq!(idx.len(), 200);
//! assert_eq!(&idx[..4], &[3, 622, 241, 860]);
//! # Ok::<(), adl::Error>(())
//! ```

mod ld;
mod permutation;
mod sampled;

pub use ld::{Amount, Seed, Step, ld_step, sample_ld};
pub use permutation::Permutation;
pub use sampled::{Sampled, Sampling};
