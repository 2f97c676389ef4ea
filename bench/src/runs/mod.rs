//! Each workload through adl's DSL and Loader, timed by the protocol
//! ([`crate::protocol`]), and the digests a `--verify` run expects: the
//! spec's for full sizes, else computed from the spec's formulas alone.

mod order;
mod w1;
mod w2;
mod w3;
mod w4;
mod w4_limit;

pub(crate) use order::order;
pub(crate) use w1::w1;
pub use w2::w2_loader;
pub(crate) use w2::{w2, w2_pipeline};
pub(crate) use w3::w3;
pub(crate) use w4::w4;
