//! The digests that check a run: per output field,
//! `sum_b (b + 1) * bits_sum(batch_b)` mod 2^64 over an epoch's batches,
//! and the lines that print them beside the expected ones.

/// The digest of one output field over an epoch's batches:
/// `sum_b (b + 1) * bits_sum(batch_b)` mod 2^64.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digest(pub u64);

impl Digest {
    /// Add batch `b` whose `bits_sum` is `sum`.
    pub fn add(&mut self, b: usize, sum: u64) {
        self.0 = self.0.wrapping_add((b as u64 + 1).wrapping_mul(sum));
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The raw bits of every `f32`, added.
pub fn bits_sum_f32<'a>(values: impl IntoIterator<Item = &'a f32>) -> u64 {
    values
        .into_iter()
        .fold(0u64, |acc, v| acc.wrapping_add(u64::from(v.to_bits())))
}

/// The raw bits of every `f32` times its place (counted from 1), added: a
/// companion to [`bits_sum_f32`] that changes when elements move.
pub fn bits_sum_ordered_f32<'a>(values: impl IntoIterator<Item = &'a f32>) -> u64 {
    values
        .into_iter()
        .zip(1u64..)
        .fold(0u64, |acc, (v, place)| {
            acc.wrapping_add(place.wrapping_mul(u64::from(v.to_bits())))
        })
}

/// The raw bits of every `f64` (read as `u64`), added.
pub fn bits_sum_f64<'a>(values: impl IntoIterator<Item = &'a f64>) -> u64 {
    values
        .into_iter()
        .fold(0u64, |acc, v| acc.wrapping_add(v.to_bits()))
}

/// The raw bits of every `i64`, added.
pub fn bits_sum_i64<'a>(values: impl IntoIterator<Item = &'a i64>) -> u64 {
    values
        .into_iter()
        .fold(0u64, |acc, v| acc.wrapping_add(*v as u64))
}

/// The bytes, added.
pub fn bits_sum_u8<'a>(values: impl IntoIterator<Item = &'a u8>) -> u64 {
    values
        .into_iter()
        .fold(0u64, |acc, v| acc.wrapping_add(u64::from(*v)))
}

/// Print `field`'s digest beside the expected one; whether they agree.
pub(crate) fn check(field: &str, got: Digest, expected: Digest) -> bool {
    let ok = got == expected;
    println!(
        "digest {field:<6} {got}  expected {expected}  {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

/// Print every digest beside the expected one; whether all agree.
pub(crate) fn check_all<const N: usize>(
    names: [&str; N],
    got: [Digest; N],
    expected: [Digest; N],
) -> bool {
    let mut ok = true;
    for ((name, got), expected) in names.iter().zip(got).zip(expected) {
        ok &= check(name, got, expected);
    }
    ok
}
