//! The wide-vector loops: a loop over elements compiled once per vector
//! unit and picked at run time ([`widest`]), and the fixed-width steps that
//! keep several vectors in flight ([`map_lanes`]).

use std::mem::MaybeUninit;

/// `out[k] = f(values[k])` for every `k` (as many of each), 64 lanes per
/// step: a fixed-size step unrolls into four vectors of 16 floats with no
/// dependence between them, so that several divisions are in flight at
/// once (one vector per step keeps one division at a time: 1.6x slower
/// for W2's conversion and normalisation). `#[inline(always)]`, so that it
/// is compiled into [`widest`]'s copies with the loop around it.
#[inline(always)]
pub(crate) fn map_lanes<A: Copy, B>(values: &[A], out: &mut [MaybeUninit<B>], f: impl Fn(A) -> B) {
    const LANES: usize = 64;
    let mut outs = out.chunks_exact_mut(LANES);
    let mut ins = values.chunks_exact(LANES);
    for (o, v) in (&mut outs).zip(&mut ins) {
        match (
            <&mut [MaybeUninit<B>; LANES]>::try_from(o),
            <&[A; LANES]>::try_from(v),
        ) {
            (Ok(o), Ok(v)) => {
                for k in 0..LANES {
                    o[k].write(f(v[k]));
                }
            }
            // Not reached: exact chunks are `LANES` long.
            (Err(_), _) | (_, Err(_)) => {}
        }
    }
    for (o, &v) in outs.into_remainder().iter_mut().zip(ins.remainder()) {
        o.write(f(v));
    }
}

/// [`map_lanes`] over one row read from its end: `out[k] =
/// f(values[len - 1 - k])`, 64 lanes per step.
#[inline(always)]
pub(crate) fn map_lanes_reversed<A: Copy, B>(
    values: &[A],
    out: &mut [MaybeUninit<B>],
    f: impl Fn(A) -> B,
) {
    const LANES: usize = 64;
    let mut outs = out.chunks_exact_mut(LANES);
    let mut ins = values.rchunks_exact(LANES);
    for (o, v) in (&mut outs).zip(&mut ins) {
        match (
            <&mut [MaybeUninit<B>; LANES]>::try_from(o),
            <&[A; LANES]>::try_from(v),
        ) {
            (Ok(o), Ok(v)) => {
                // Reversed first, as they were read (one shuffle per
                // vector), then mapped in order: mapping while reading
                // backwards is not vectorised.
                let mut reversed = *v;
                reversed.reverse();
                for k in 0..LANES {
                    o[k].write(f(reversed[k]));
                }
            }
            // Not reached: exact chunks are `LANES` long.
            (Err(_), _) | (_, Err(_)) => {}
        }
    }
    for (o, &v) in outs
        .into_remainder()
        .iter_mut()
        .zip(ins.remainder().iter().rev())
    {
        o.write(f(v));
    }
}

/// A loop for [`widest`]: its `run` is `#[inline(always)]`, so that it is
/// compiled into each of `widest`'s copies, one per vector unit, whatever
/// its size (a closure would be inlined at LLVM's discretion, and a large
/// one left out of line, compiled for the baseline: four floats at a
/// time).
pub trait Loop {
    /// What the loop gives.
    type Out;
    /// Run it.
    fn run(self) -> Self::Out;
}

/// Run `l`, a loop over elements, compiled for the widest vector unit this
/// CPU has (AVX-512 or AVX2, checked at run time), else as built: a
/// portable build still divides 16 or 8 floats at a time where the CPU can.
/// The operations are the same IEEE ones in the same order (Rust never
/// fuses a multiply and an add), so the bits do not change.
#[inline(always)]
pub fn widest<L: Loop>(l: L) -> L::Out {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn with_avx512<L: Loop>(l: L) -> L::Out {
            l.run()
        }
        #[target_feature(enable = "avx2")]
        fn with_avx2<L: Loop>(l: L) -> L::Out {
            l.run()
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: this CPU has AVX-512F (checked just above).
            return unsafe { with_avx512(l) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this CPU has AVX2 (checked just above).
            return unsafe { with_avx2(l) };
        }
    }
    l.run()
}
