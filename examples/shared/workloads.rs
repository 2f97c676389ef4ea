//! The benchmark workloads W1, W2 and W3 of `bench/WORKLOADS.md` (spec
//! version 1): their data, generated exactly as specified, as adl datasets,
//! and the digests that check a run. Shared by `examples/bench.rs` and the
//! tests.
//!
//! Every random word is `u(stream, i, j) = mix64(key(stream, i, j) ^ S)`
//! with `S = mix64(2024)`; generation is split over threads and does not
//! depend on their number.

#![allow(dead_code, unreachable_pub)] // each user takes the workloads it needs

use std::sync::Arc;

use adl::Window;
use adl::collate::{Gather, InPlace, Windows};
use adl::exec::mix64;
use adl::prelude::*;
use ndarray::{ArcArray, Array1, Array2, Array3, Ix1, Ix2, Ix3, Ix4};

/// The workloads' seed.
pub const SEED: u64 = 2024;

/// `S = mix64(SEED)`.
pub fn s() -> u64 {
    mix64(SEED)
}

/// The random word of `(stream, i, j)`.
#[inline]
pub fn u(stream: u64, i: u64, j: u64) -> u64 {
    mix64(((stream << 56) | (i << 24) | j) ^ s())
}

/// `f32(u >> 40) * 2^-24`, exact, in `[0, 1)`.
#[inline]
pub fn unit(u: u64) -> f32 {
    (u >> 40) as f32 * (1.0 / 16_777_216.0)
}

/// Fill `out` in parallel: `f(k, chunk)` writes the chunk starting at
/// element `k * chunk_len`.
fn par_fill<T: Send>(out: &mut [T], chunk_len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks: Vec<(usize, &mut [T])> = out.chunks_mut(chunk_len).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads).max(1);
    let mut chunks = chunks;
    std::thread::scope(|scope| {
        while !chunks.is_empty() {
            let take = per_thread.min(chunks.len());
            let mine: Vec<(usize, &mut [T])> = chunks.drain(..take).collect();
            let f = &f;
            scope.spawn(move || {
                for (k, chunk) in mine {
                    f(k, chunk);
                }
            });
        }
    });
}

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

// ---------------------------------------------------------------- W1 ---

/// W1 "tiny": `n` vectors of 64 floats and a label, batch 256.
pub struct W1 {
    /// `f32[n, 64]`.
    pub x: ArcArray<f32, Ix2>,
    /// `i64[n]`.
    pub y: ArcArray<i64, Ix1>,
}

/// W1's features per sample.
pub const W1_FEATURES: usize = 64;
/// W1's full size.
pub const W1_SAMPLES: usize = 200_000;
/// `STD = f32(sqrt(3))`, bits `0x3FDDB3D7`.
pub const W1_STD: f32 = f32::from_bits(0x3FDD_B3D7);

impl W1 {
    /// The first `n` samples of W1.
    pub fn generate(n: usize) -> Self {
        let mut x = vec![0f32; n * W1_FEATURES];
        par_fill(&mut x, W1_FEATURES * 1024, |k, chunk| {
            let first = k * 1024;
            for (r, row) in chunk.chunks_mut(W1_FEATURES).enumerate() {
                let i = (first + r) as u64;
                for (j, v) in row.iter_mut().enumerate() {
                    *v = unit(u(1, i, j as u64)) * 6.0 - 2.0;
                }
            }
        });
        let y: Vec<i64> = (0..n as u64)
            .map(|i| ((u(2, i, 0) >> 32) % 10) as i64)
            .collect();
        W1 {
            x: ArcArray::from_shape_vec((n, W1_FEATURES), x).expect("n rows of 64"),
            y: ArcArray::from(y),
        }
    }

    /// The features, row-major.
    pub fn xs(&self) -> &[f32] {
        self.x.as_slice().unwrap_or(&[])
    }

    /// The labels.
    pub fn ys(&self) -> &[i64] {
        self.y.as_slice().unwrap_or(&[])
    }

    /// W1 gathered straight into batches: samples are `(i, i)`, the
    /// batch is `(x rows, labels)`.
    pub fn gather(&self) -> Gather<(ArcArray<f32, Ix2>, ArcArray<i64, Ix1>)> {
        Gather::new((self.x.clone(), self.y.clone()))
    }

    /// W1 gathered with its features left in place: samples are `(i, i)`,
    /// the batch is `(rows, labels)`, the rows read by the batch kernel
    /// straight from the dataset.
    pub fn gather_in_place(&self) -> Gather<(InPlace<f32, Ix2>, ArcArray<i64, Ix1>)> {
        Gather::new((InPlace::new(self.x.clone()), self.y.clone()))
    }
}

/// A W1 sample.
#[derive(Debug, Clone, adl::Collate)]
pub struct W1Sample {
    /// The features.
    pub x: Array1<f32>,
    /// The label.
    pub y: i64,
}

/// W1 as a dataset (reading a sample copies its row).
#[derive(Clone)]
pub struct W1Data(pub Arc<W1>);

impl Dataset for W1Data {
    type Sample = W1Sample;

    fn len(&self) -> usize {
        self.0.ys().len()
    }

    fn get(&self, index: usize) -> adl::Result<W1Sample> {
        let row = self
            .0
            .xs()
            .get(index * W1_FEATURES..(index + 1) * W1_FEATURES)
            .ok_or_else(|| adl::Error::invalid("index", format!("{index} is out of range")))?;
        let mut x = adl::exec::buffer(W1_FEATURES);
        x.extend_from_slice(row);
        Ok(W1Sample {
            x: Array1::from(x),
            y: self.0.ys()[index],
        })
    }

    fn prefetch(&self, index: usize) {
        if let Some(row) = self
            .0
            .xs()
            .get(index * W1_FEATURES..(index + 1) * W1_FEATURES)
        {
            adl::exec::prefetch(row);
        }
    }
}

/// A dataset of keys for a [`Gather`]: sample `i` is `(i, i)` (one key per
/// gathered array).
#[derive(Debug, Clone, Copy)]
pub struct PairKeys(pub usize);

impl Dataset for PairKeys {
    type Sample = (usize, usize);

    fn len(&self) -> usize {
        self.0
    }

    fn get(&self, index: usize) -> adl::Result<(usize, usize)> {
        if index < self.0 {
            Ok((index, index))
        } else {
            Err(adl::Error::invalid(
                "index",
                format!("{index} is out of range"),
            ))
        }
    }
}

// ---------------------------------------------------------------- W2 ---

/// Bytes per W2 image: `u8[3, 64, 64]`.
pub const W2_IMAGE: usize = 3 * 64 * 64;
/// W2's full size.
pub const W2_SAMPLES: usize = 20_000;
/// W2's per-channel means.
pub const W2_MEAN: [f32; 3] = [0.485, 0.456, 0.406];
/// W2's per-channel standard deviations.
pub const W2_STD: [f32; 3] = [0.229, 0.224, 0.225];

/// W2 "image": `n` RGB 64x64 images and a flip flag each, batch 64.
pub struct W2 {
    /// `u8[n, 3, 64, 64]`.
    pub images: ArcArray<u8, Ix4>,
    /// One flag per image.
    pub flips: ArcArray<bool, Ix1>,
}

impl W2 {
    /// The first `n` samples of W2.
    pub fn generate(n: usize) -> Self {
        let mut images = vec![0u8; n * W2_IMAGE];
        par_fill(&mut images, W2_IMAGE, |i, image| {
            for (j, px) in image.iter_mut().enumerate() {
                *px = (u(3, i as u64, j as u64) >> 56) as u8;
            }
        });
        let flips: Vec<bool> = (0..n as u64).map(|i| (u(4, i, 0) >> 63) == 1).collect();
        W2 {
            images: ArcArray::from_shape_vec((n, 3, 64, 64), images).expect("n images"),
            flips: ArcArray::from(flips),
        }
    }

    /// The images' bytes, row-major.
    pub fn pixels(&self) -> &[u8] {
        self.images.as_slice().unwrap_or(&[])
    }

    /// The flip flags.
    pub fn flags(&self) -> &[bool] {
        self.flips.as_slice().unwrap_or(&[])
    }

    /// W2 gathered straight into batches: samples are `(i, i)`, the batch
    /// is `(images, flags)`, what `FlipByFlag` takes.
    pub fn gather(&self) -> Gather<(ArcArray<u8, Ix4>, ArcArray<bool, Ix1>)> {
        Gather::new((self.images.clone(), self.flips.clone()))
    }

    /// W2 gathered with its images left in place: samples are `(i, i)`,
    /// the batch is `(rows, flags)`, the images' rows read by the first
    /// batch kernel straight from the dataset.
    pub fn gather_in_place(&self) -> Gather<(InPlace<u8, Ix4>, ArcArray<bool, Ix1>)> {
        Gather::new((InPlace::new(self.images.clone()), self.flips.clone()))
    }
}

/// W2 as a dataset: sample `i` is its image and its flip flag (the flip
/// and the conversion run as batch kernels).
#[derive(Clone)]
pub struct W2Data(pub Arc<W2>);

impl Dataset for W2Data {
    type Sample = (Array3<u8>, bool);

    fn len(&self) -> usize {
        self.0.flags().len()
    }

    fn get(&self, index: usize) -> adl::Result<(Array3<u8>, bool)> {
        let image = self
            .0
            .pixels()
            .get(index * W2_IMAGE..(index + 1) * W2_IMAGE)
            .ok_or_else(|| adl::Error::invalid("index", format!("{index} is out of range")))?;
        let mut pixels = adl::exec::buffer(W2_IMAGE);
        pixels.extend_from_slice(image);
        let image = Array3::from_shape_vec((3, 64, 64), pixels)
            .map_err(|e| adl::Error::invalid("image", e.to_string()))?;
        Ok((image, self.0.flags()[index]))
    }

    fn prefetch(&self, index: usize) {
        if let Some(image) = self
            .0
            .pixels()
            .get(index * W2_IMAGE..(index + 1) * W2_IMAGE)
        {
            adl::exec::prefetch(image);
        }
    }
}

// ---------------------------------------------------------------- W3 ---

/// One W3 sensor: timestamps (µs) and payloads of `width` floats each.
pub struct W3Sensor {
    /// Timestamps in microseconds, strictly increasing.
    pub t: Vec<i64>,
    /// Payloads, `f32[n, width]`.
    pub values: ArcArray<f32, Ix2>,
}

impl W3Sensor {
    /// The payloads, row-major.
    pub fn rows(&self) -> &[f32] {
        self.values.as_slice().unwrap_or(&[])
    }
}

/// W3 "multimodal-sync": sensors a (10 Hz, `f32[8]`), b (20 Hz,
/// `f32[32, 32]`), c (100 Hz, `f32[6]`) over ten minutes.
pub struct W3 {
    /// The reference sensor.
    pub a: W3Sensor,
    /// The camera-like sensor.
    pub b: W3Sensor,
    /// The IMU-like sensor.
    pub c: W3Sensor,
}

fn w3_sensor(
    period: i64,
    jitter: i64,
    time_stream: u64,
    value_stream: u64,
    width: usize,
) -> W3Sensor {
    let n = (600_000_000 / period) as usize;
    let t = (0..n as u64)
        .map(|k| {
            let jit = (u(time_stream, k, 0) % (2 * jitter as u64 + 1)) as i64 - jitter;
            k as i64 * period + jit
        })
        .collect();
    let mut values = vec![0f32; n * width];
    par_fill(&mut values, width * 256, |chunk_index, chunk| {
        let first = chunk_index * 256;
        for (r, row) in chunk.chunks_mut(width).enumerate() {
            let k = (first + r) as u64;
            for (j, v) in row.iter_mut().enumerate() {
                *v = unit(u(value_stream, k, j as u64)) * 2.0 - 1.0;
            }
        }
    });
    W3Sensor {
        t,
        values: ArcArray::from_shape_vec((n, width), values).expect("n readings"),
    }
}

impl W3 {
    /// The three sensors, in full (ten minutes).
    pub fn generate() -> Self {
        W3 {
            a: w3_sensor(100_000, 20_000, 5, 8, 8),
            b: w3_sensor(50_000, 10_000, 6, 9, 32 * 32),
            c: w3_sensor(10_000, 2_000, 7, 10, 6),
        }
    }
}

/// A W3 sample.
#[derive(Debug, Clone, adl::Collate)]
pub struct W3Sample {
    /// The reference timestamp, µs.
    pub t: i64,
    /// The reference reading, `f32[8]`.
    pub reference: Array1<f32>,
    /// The nearest b reading, `f32[32, 32]`.
    pub img: Array2<f32>,
    /// Ten c readings around the nearest, `f32[10, 6]`.
    pub imu: Array2<f32>,
    /// `(nb, s)`: the b index and the first c index.
    pub idx: Array1<i64>,
}

/// W3's samples per batch.
pub const W3_BATCH: usize = 32;
/// Readings of c in a window: five before the nearest, the nearest, four
/// after.
pub const W3_WINDOW: usize = 10;

/// W3 as a dataset: one sample per reference reading. The synchronisation
/// runs once, when the dataset is made: [`Nearest`] (ties to the earlier
/// reading, as the spec's binary search) gives each reference reading its
/// nearest b and c readings, and a clamped [`Window`] of ten c readings
/// around the nearest slides inside the sensor at its edges. Reading a
/// sample gathers its slices.
#[derive(Clone)]
pub struct W3Data {
    w3: Arc<W3>,
    /// Per sample: the b reading and the first c reading of the window.
    rows: Arc<[(u32, u32)]>,
}

/// The arrays a W3 batch is gathered from: t, ref, img, imu (windows of
/// ten), idx.
pub type W3Tables = (
    ArcArray<i64, Ix1>,
    ArcArray<f32, Ix2>,
    ArcArray<f32, Ix3>,
    Windows<f32, Ix2>,
    ArcArray<i64, Ix2>,
);

/// W3's keys for a [`Gather`]: sample `i` is `(i, i, nb, s, i)`.
#[derive(Clone)]
pub struct W3Keys(pub W3Data);

impl Dataset for W3Keys {
    type Sample = (usize, usize, usize, usize, usize);

    fn len(&self) -> usize {
        self.0.rows.len()
    }

    fn get(&self, i: usize) -> adl::Result<Self::Sample> {
        let (nb, s) = *self
            .0
            .rows
            .get(i)
            .ok_or_else(|| adl::Error::invalid("index", format!("{i} is out of range")))?;
        Ok((i, i, nb as usize, s as usize, i))
    }
}

impl W3Data {
    /// The first `n` samples of W3 (all 6,000 with `n` = 6,000).
    pub fn new(w3: Arc<W3>, n: usize) -> adl::Result<Self> {
        let micros = |t: &[i64]| -> Vec<f64> { t.iter().map(|&t| t as f64).collect() };
        // Integer microseconds as f64 are exact, so the midpoints and
        // distances the synchronisation compares are too.
        let (ta, tb, tc) = (micros(&w3.a.t), micros(&w3.b.t), micros(&w3.c.t));
        let indices = Nearest::new("a", f64::INFINITY)?.synchronize(&[
            ("a", &ta[..]),
            ("b", &tb[..]),
            ("c", &tc[..]),
        ])?;
        let column = |name: &str| {
            indices
                .column(name)
                .ok_or_else(|| adl::Error::invalid("W3", format!("no column {name}")))
        };
        let (a, b, c) = (column("a")?, column("b")?, column("c")?);
        if a.len() != ta.len() || a.iter().enumerate().any(|(i, &k)| k as usize != i) {
            return Err(adl::Error::invalid(
                "W3",
                format!(
                    "{} of {} reference readings synchronised; W3 needs all",
                    a.len(),
                    ta.len()
                ),
            ));
        }
        let imu = Series::new("c", Timestamps::new("c", tc)?, Ok);
        let window = Window::new(imu, 5, 4)?.clamped();
        let rows = b
            .iter()
            .zip(c)
            .take(n)
            .map(|(&nb, &nc)| Ok((nb, *window.range(nc as usize)?.start() as u32)))
            .collect::<adl::Result<Vec<_>>>()?;
        Ok(W3Data {
            w3,
            rows: rows.into(),
        })
    }

    /// Sample `i`'s b reading and first c reading.
    pub fn row(&self, i: usize) -> (usize, usize) {
        let (nb, s) = self.rows[i];
        (nb as usize, s as usize)
    }

    /// W3 gathered straight into batches (see [`W3Keys`]): the batch is
    /// `(t, ref, img, imu, idx)`.
    pub fn gather(&self) -> adl::Result<Gather<W3Tables>> {
        let w = &self.w3;
        let idx: Vec<i64> = self
            .rows
            .iter()
            .flat_map(|&(nb, s)| [i64::from(nb), i64::from(s)])
            .collect();
        let shape_error = |e: ndarray::ShapeError| adl::Error::invalid("W3", e.to_string());
        Ok(Gather::new((
            ArcArray::from(w.a.t.clone()),
            w.a.values.clone(),
            w.b.values
                .clone()
                .into_shape_with_order((w.b.t.len(), 32, 32))
                .map_err(shape_error)?,
            Windows::new(w.c.values.clone(), W3_WINDOW),
            ArcArray::from_shape_vec((self.rows.len(), 2), idx).map_err(shape_error)?,
        )))
    }
}

fn copied<const D: usize>(
    values: &[f32],
    shape: [usize; D],
) -> adl::Result<ndarray::Array<f32, ndarray::Dim<[usize; D]>>>
where
    ndarray::Dim<[usize; D]>: ndarray::Dimension,
    [usize; D]: ndarray::IntoDimension<Dim = ndarray::Dim<[usize; D]>>,
{
    let mut buffer = Vec::with_capacity(values.len());
    buffer.extend_from_slice(values);
    ndarray::Array::from_shape_vec(shape, buffer)
        .map_err(|e| adl::Error::invalid("W3", e.to_string()))
}

impl Dataset for W3Data {
    type Sample = W3Sample;

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn get(&self, i: usize) -> adl::Result<W3Sample> {
        let w = &self.w3;
        let (nb, s) = *self
            .rows
            .get(i)
            .ok_or_else(|| adl::Error::invalid("index", format!("{i} is out of range")))?;
        let (nb, s) = (nb as usize, s as usize);
        Ok(W3Sample {
            t: w.a.t[i],
            reference: copied(&w.a.rows()[i * 8..(i + 1) * 8], [8])?,
            img: copied(&w.b.rows()[nb * 1024..(nb + 1) * 1024], [32, 32])?,
            imu: copied(&w.c.rows()[s * 6..(s + W3_WINDOW) * 6], [W3_WINDOW, 6])?,
            idx: Array1::from(vec![nb as i64, s as i64]),
        })
    }

    fn prefetch(&self, i: usize) {
        if let Some(&(nb, s)) = self.rows.get(i) {
            let (nb, s) = (nb as usize, s as usize);
            let w = &self.w3;
            adl::exec::prefetch(&w.a.rows()[i * 8..(i + 1) * 8]);
            adl::exec::prefetch(&w.b.rows()[nb * 1024..(nb + 1) * 1024]);
            adl::exec::prefetch(&w.c.rows()[s * 6..(s + W3_WINDOW) * 6]);
        }
    }
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn check_values() {
        assert_eq!(s(), 0xbbbf12ccd68b4479);
        assert_eq!(u(1, 0, 0), 0x50eb5b5ced973855);
        assert_eq!(u(1, 199999, 63), 0x85197cf7f9d202af);
        assert_eq!(f64::from(unit(u(1, 0, 0))), 0.31609123945236206);
    }
}
