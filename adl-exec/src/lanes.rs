//! [`Lane`]: an elementwise kernel's work on one element, and the loops
//! that run lanes over blocks, compiled for the widest vectors the CPU has.

use std::mem::MaybeUninit;

use super::bytes::{same_len, typed, typed_mut};
use super::element::Element;
use super::scattered::ScatteredBlocks;
use super::simd::{Loop, map_lanes, map_lanes_reversed, widest};
use crate::{KernelError, Result};

/// An elementwise kernel node's work on one element of a block, with the
/// block's constants (its channel's mean, say) already looked up: what
/// a fused chain of elementwise nodes (`adl::kernel::FusedLanes`) composes.
pub trait Lane: Copy {
    /// The element type read.
    type In: Element;
    /// The element type written.
    type Out: Element;
    /// The output element of input element `v` (the same bits as the
    /// node's Rust body). Implementations should be `#[inline(always)]`:
    /// the loop around them is compiled for the CPU's widest vectors.
    fn apply(self, v: Self::In) -> Self::Out;
}

/// The lane that gives each element as it is: the lane of a node that only
/// moves elements (a flip: `adl::kernel::Lanewise::reverses`).
#[derive(Debug)]
pub struct Same<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Same<T> {
    /// The lane.
    pub fn new() -> Self {
        Same(std::marker::PhantomData)
    }
}

impl<T> Default for Same<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Same<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Same<T> {}

impl<T: Element> Lane for Same<T> {
    type In = T;
    type Out = T;

    #[inline(always)]
    fn apply(self, v: T) -> T {
        v
    }
}

/// `first`'s lane, then `second`'s.
#[derive(Debug, Clone, Copy)]
pub struct LanePair<A, B> {
    first: A,
    second: B,
}

impl<A: Lane, B: Lane<In = A::Out>> Lane for LanePair<A, B> {
    type In = A::In;
    type Out = B::Out;

    #[inline(always)]
    fn apply(self, v: A::In) -> B::Out {
        self.second.apply(self.first.apply(v))
    }
}

impl<A, B> LanePair<A, B> {
    /// `first`'s lane, then `second`'s.
    pub fn new(first: A, second: B) -> Self {
        LanePair { first, second }
    }
}

/// `lane` over every element of `values` into `out` (as many), compiled
/// for the widest vectors the CPU has; with `reversed_rows: Some(last)`,
/// each row of `last` elements is read from its end.
pub fn run_lane<L: Lane>(
    lane: L,
    values: &[L::In],
    out: &mut [MaybeUninit<L::Out>],
    reversed_rows: Option<usize>,
) {
    /// The loop and its arguments, run by `widest`.
    struct Lanes<'a, L: Lane> {
        lane: L,
        values: &'a [L::In],
        out: &'a mut [MaybeUninit<L::Out>],
        reversed_rows: Option<usize>,
    }
    impl<L: Lane> Loop for Lanes<'_, L> {
        type Out = ();
        #[inline(always)]
        fn run(self) {
            let lane = self.lane;
            match self.reversed_rows {
                Some(last) if last > 1 => {
                    let rows = self
                        .out
                        .chunks_exact_mut(last)
                        .zip(self.values.chunks_exact(last));
                    for (o, v) in rows {
                        map_lanes_reversed(v, o, |v| lane.apply(v));
                    }
                }
                _ => map_lanes(self.values, self.out, |v| lane.apply(v)),
            }
        }
    }
    widest(Lanes {
        lane,
        values,
        out,
        reversed_rows,
    });
}

/// `lane` over each block of `blocks` as it lies in its table (the one
/// ahead prefetched first), into `output` (one output block per block),
/// all in one loop compiled for the widest vectors; with `reversed_rows:
/// Some(last)`, each row of `last` elements is read from its end.
///
/// On `Ok`, every byte of `output` is written: `outputs` checks that it
/// is exactly one output block per block, `same_len` that each has as
/// many elements as its block, and reversed rows are checked to be whole
/// rows.
pub fn lane_rows<L: Lane>(
    lane: L,
    blocks: ScatteredBlocks<'_>,
    output: &mut [MaybeUninit<u8>],
    reversed_rows: Option<usize>,
) -> Result<()> {
    if let Some(last) = reversed_rows
        && last > 1
        && !blocks.elements().is_multiple_of(last)
    {
        return Err(not_whole_rows(blocks.elements(), last));
    }
    /// The loop and its arguments, run by `widest`.
    struct Rows<'a, 'o, L: Lane> {
        lane: L,
        blocks: ScatteredBlocks<'a>,
        output: &'o mut [MaybeUninit<u8>],
        reversed_rows: Option<usize>,
    }
    impl<L: Lane> Loop for Rows<'_, '_, L> {
        type Out = Result<()>;
        #[inline(always)]
        fn run(self) -> Result<()> {
            let Rows {
                lane,
                blocks,
                output,
                reversed_rows,
            } = self;
            if reversed_rows.is_none_or(|last| last <= 1)
                && let Some(done) = rows_in_one_pass(lane, blocks, output)
            {
                return done;
            }
            let out_bytes = blocks.elements() * L::Out::TYPE.size();
            for (i, out) in blocks.outputs(output, out_bytes)?.enumerate() {
                blocks.prefetch_ahead(i);
                let (values, out) = same_len(typed::<L::In>(blocks.block(i)?)?, typed_mut(out)?)?;
                match reversed_rows {
                    Some(last) if last > 1 => {
                        for (o, v) in out.chunks_exact_mut(last).zip(values.chunks_exact(last)) {
                            map_lanes_reversed(v, o, |v| lane.apply(v));
                        }
                    }
                    _ => map_lanes(values, out, |v| lane.apply(v)),
                }
            }
            Ok(())
        }
    }
    widest(Rows {
        lane,
        blocks,
        output,
        reversed_rows,
    })
}

/// The longest row [`rows_in_one_pass`] prefetches whole: four cache
/// lines (W1's 256-byte rows). Whole, W1 through the loader made 1.07x
/// its rate with the first line alone (median of 19 alternating pairs, 2
/// workers, 2026-11-30, on a machine whose own prefetcher did not follow
/// a 4-line row; on the machine before it, the first line alone had been
/// 1.07x the whole row: `docs/performance.md`).
const WHOLE_ROW: usize = 4 * super::CACHE_LINE;

/// `lane` over the rows of `blocks` into `output`, none reversed, in one
/// loop: the table and the output seen as elements once, every key checked
/// before the first row, then each row read where it lies (the one `ahead`
/// further on prefetched: whole up to [`WHOLE_ROW`] bytes, else its first
/// line) straight into its place. With
/// nothing else per row the CPU has more rows in flight at once, as a
/// plain C loop does. `None` where the table or the output is not a whole
/// number of aligned elements of the lane's types (the caller's loop, which
/// checks each block, then says why).
#[inline(always)]
fn rows_in_one_pass<L: Lane>(
    lane: L,
    blocks: ScatteredBlocks<'_>,
    output: &mut [MaybeUninit<u8>],
) -> Option<Result<()>> {
    let (table, keys, from, ahead) = blocks.parts();
    let e = blocks.elements();
    let table = typed::<L::In>(table).ok()?;
    let out = typed_mut::<L::Out>(output).ok()?;
    if e == 0 || out.len() != keys.len() * e || table.len() % e != 0 {
        return None;
    }
    let rows = table.len() / e;
    if let Some(&bad) = keys.iter().find(|&&key| key >= rows) {
        return Some(Err(KernelError::out_of_range(
            "kernel input row",
            bad,
            rows,
        )));
    }
    // A row of up to `WHOLE_ROW` bytes is asked for whole, a longer one
    // by its first line (the hardware's prefetcher follows a long row).
    let row_bytes = e * std::mem::size_of::<L::In>();
    let head = match row_bytes <= WHOLE_ROW {
        true => WHOLE_ROW,
        false => super::CACHE_LINE,
    };
    for (i, (&key, o)) in keys.iter().zip(out.chunks_exact_mut(e)).enumerate() {
        if ahead > 0
            && let Some(&next) = from.get(i + ahead)
            && next < rows
        {
            super::prefetch_head(&table[next * e..(next + 1) * e], head);
        }
        map_lanes(&table[key * e..(key + 1) * e], o, |v| lane.apply(v));
    }
    Some(Ok(()))
}

/// The error of a block of `elements` elements whose rows of `last` are to
/// be reversed one by one, but which is not whole rows (the tail would be
/// left unwritten).
pub fn not_whole_rows(elements: usize, last: usize) -> KernelError {
    KernelError::invalid(
        "kernel block",
        format!("a block of {elements} elements is not whole rows of {last}"),
    )
}
