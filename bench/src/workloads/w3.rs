//! W3 "multimodal-sync": three sensors synchronised by `Nearest` with a
//! clamped `Window` of ten IMU readings.

use std::sync::Arc;

use adl::collate::{Gather, RowWindows};
use adl::prelude::*;
use adl::storage::{Ahead, Storage};
use adl::sync::Nearest;
use adl::{Synchronization, Window};
use ndarray::{ArcArray, Array1, Array2, Ix1, Ix2, Ix3};

use super::par_fill;
use crate::spec::{u, unit};

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
    RowWindows<f32, Ix2>,
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
            RowWindows::new(w.c.values.clone(), W3_WINDOW),
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

    /// In memory: it takes hints a few samples ahead.
    fn storage(&self) -> Option<&dyn Storage<Origin = adl::Origin>> {
        Some(self)
    }
}

impl Storage for W3Data {
    type Origin = adl::Origin;

    fn ahead(&self) -> Ahead {
        Ahead::Hints
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
