//! Which consecutive batch kernels run as one: the one rule of fusion.
//!
//! Three places need to know it, and all three call [`groups`]:
//!
//! - the plan (`adl-graph`): the fused groups it schedules, shows in its
//!   DOT and SVG, and that the loader's statistics are checked against;
//! - the device executor (`adl::graph::opencl`): each group compiles into one
//!   kernel, and the data of a run of kernel nodes stays on the device;
//! - the CPU executor (`adl::kernel::run`): a group of two or more runs as
//!   one loop over the batch, every other kernel node as its Rust body.
//!
//! What `pipeline!`'s expansion decides is which nodes *can* run together:
//! it links consecutive kernel nodes of a batch stage into one chain by
//! their types (a kernel node has a [`Fusion`] class; any other node ends
//! the chain). Within a chain, [`groups`] decides what runs as one.
//!
//! ```
//! use adl_rules::fusion::{Fusion, Target, groups};
//!
//! // W2's batch stage: flip, bytes to floats, normalise.
//! let w2 = [Fusion::Gather, Fusion::Map, Fusion::Map];
//! assert_eq!(groups(&w2, Target::Device, true), [0..3]);
//! assert_eq!(groups(&w2, Target::Cpu, true), [0..3]);
//! // Switched off, every kernel runs alone.
//! assert_eq!(groups(&w2, Target::Device, false), [0..1, 1..2, 2..3]);
//! // On a device a gather only starts a kernel; on the CPU it goes anywhere.
//! let late_flip = [Fusion::Map, Fusion::Gather, Fusion::Map];
//! assert_eq!(groups(&late_flip, Target::Device, true), [0..1, 1..3]);
//! assert_eq!(groups(&late_flip, Target::Cpu, true), [0..3]);
//! ```

use std::ops::Range;

/// How a batch node's kernel combines with its neighbours' kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fusion {
    /// A kernel of its own (a user's, `#[transform(batch, unsafe(opencl = ...))]`):
    /// on a device it shares a program with its neighbours (their data
    /// stays on the device) but is never merged into their kernel; on the
    /// CPU it runs its Rust body.
    Own,
    /// Elementwise: each output element from the same input element (the
    /// built-in `U8ToF32`, `Normalize`, `Clamp`, `Affine`). It merges with
    /// its neighbours.
    Map,
    /// A permutation inside each sample (the built-in `FlipByFlag`): on a
    /// device it merges as the first step of a kernel, on the CPU anywhere
    /// in a loop (it only changes which rows the loop reads).
    Gather,
}

impl Fusion {
    /// The class in words, as plans and statistics show it.
    pub fn name(self) -> &'static str {
        match self {
            Fusion::Own => "own kernel",
            Fusion::Map => "elementwise",
            Fusion::Gather => "gather",
        }
    }

    /// Whether a CPU loop can run it with its neighbours: the built-in
    /// kernels have a block form, a user's kernel has only its Rust body.
    fn has_block_form(self) -> bool {
        matches!(self, Fusion::Map | Fusion::Gather)
    }
}

/// Where a chain of kernel nodes runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// On an accelerator (an OpenCL device): one program for the chain.
    Device,
    /// On the CPU, on the loader's workers.
    Cpu,
}

/// The groups of a chain of consecutive kernel nodes (`chain`, their
/// classes in order) that run as one on `target`, as index ranges that
/// cover the chain in order; a range of one node runs alone. With `fuse`
/// off, every node runs alone.
///
/// - On a device, a [`Map`](Fusion::Map) joins the kernel before it when
///   that kernel is made of maps and gathers; a [`Gather`](Fusion::Gather)
///   starts a kernel (it reads other elements than its own, which only
///   the batch in device memory has); an [`Own`](Fusion::Own) kernel runs
///   alone.
/// - On the CPU, the nodes after the chain's last [`Own`](Fusion::Own)
///   node run as one loop when they are two or more; every other node
///   runs its Rust body alone. (A chain is linked from its end, so the
///   loop is its tail: the nodes before a user's kernel run one by one.)
pub fn groups(chain: &[Fusion], target: Target, fuse: bool) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    groups_into(chain, target, fuse, &mut groups);
    groups
}

/// [`groups`], pushed onto `into` (emptied first): what the executor asks
/// on every batch, into memory it keeps.
pub fn groups_into(chain: &[Fusion], target: Target, fuse: bool, into: &mut Vec<Range<usize>>) {
    into.clear();
    let alone = |range: Range<usize>| range.map(|i| i..i + 1);
    if !fuse {
        into.extend(alone(0..chain.len()));
        return;
    }
    match target {
        Target::Device => {
            for (i, &class) in chain.iter().enumerate() {
                let joins = class == Fusion::Map
                    && into
                        .last()
                        .is_some_and(|g| chain[g.clone()].iter().all(|c| c.has_block_form()));
                match into.last_mut() {
                    Some(group) if joins => group.end = i + 1,
                    _ => into.push(i..i + 1),
                }
            }
        }
        Target::Cpu => {
            let tail = chain
                .iter()
                .rposition(|&c| !c.has_block_form())
                .map_or(0, |own| own + 1);
            into.extend(alone(0..tail));
            if tail < chain.len() {
                into.push(tail..chain.len());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one group is a one-range list
mod tests {
    use super::*;
    use Fusion::*;

    #[test]
    fn device_groups_follow_the_kernels_that_can_merge() {
        assert_eq!(
            groups(&[], Target::Device, true),
            Vec::<Range<usize>>::new()
        );
        assert_eq!(groups(&[Map], Target::Device, true), [0..1]);
        assert_eq!(groups(&[Map, Map, Map], Target::Device, true), [0..3]);
        assert_eq!(
            groups(&[Gather, Gather], Target::Device, true),
            [0..1, 1..2]
        );
        assert_eq!(
            groups(&[Map, Own, Map, Map], Target::Device, true),
            [0..1, 1..2, 2..4]
        );
        assert_eq!(groups(&[Own, Map], Target::Device, true), [0..1, 1..2]);
    }

    #[test]
    fn cpu_groups_are_the_tail_after_the_last_own_kernel() {
        assert_eq!(groups(&[Map], Target::Cpu, true), [0..1]);
        assert_eq!(groups(&[Gather, Map, Map], Target::Cpu, true), [0..3]);
        assert_eq!(
            groups(&[Map, Own, Gather, Map], Target::Cpu, true),
            [0..1, 1..2, 2..4]
        );
        assert_eq!(
            groups(&[Map, Map, Own], Target::Cpu, true),
            [0..1, 1..2, 2..3]
        );
        assert_eq!(groups(&[Own, Map], Target::Cpu, true), [0..1, 1..2]);
    }

    #[test]
    fn without_fusion_every_kernel_runs_alone() {
        for target in [Target::Device, Target::Cpu] {
            assert_eq!(
                groups(&[Gather, Map, Map], target, false),
                [0..1, 1..2, 2..3]
            );
        }
    }

    #[test]
    fn groups_cover_the_chain_in_order() {
        let classes = [Own, Map, Gather];
        // Every chain of up to five kernels.
        for len in 0..=5u32 {
            for code in 0..3usize.pow(len) {
                let chain: Vec<Fusion> = (0..len)
                    .map(|k| classes[code / 3usize.pow(k) % 3])
                    .collect();
                for target in [Target::Device, Target::Cpu] {
                    for fuse in [true, false] {
                        let found = groups(&chain, target, fuse);
                        let mut next = 0;
                        for g in &found {
                            assert_eq!(g.start, next, "{chain:?} {target:?}: {found:?}");
                            assert!(g.end > g.start);
                            next = g.end;
                        }
                        assert_eq!(next, chain.len());
                    }
                }
            }
        }
    }
}
