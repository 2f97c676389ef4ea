//! [`Quaternion`]: an orientation, interpolated along the shorter arc.

use adl_exec::Buffers;
use ndarray::Array2;

use super::Interpolate;
use crate::collate::{BatchBuilder, Collatable};
use crate::{Error, Result};

/// A unit quaternion `x i + y j + z k + w` (in ROS's order: `x, y, z, w`),
/// an orientation. Interpolates by spherical linear interpolation along
/// the shorter arc (`q` and `-q` are one rotation), as SciPy's `Slerp`
/// does between two rotations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quaternion {
    /// The `i` part.
    pub x: f64,
    /// The `j` part.
    pub y: f64,
    /// The `k` part.
    pub z: f64,
    /// The real part.
    pub w: f64,
}

impl Quaternion {
    /// No rotation.
    pub const IDENTITY: Quaternion = Quaternion {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };

    /// The rotation `x i + y j + z k + w`, normalized. Parts that are not
    /// finite, or all zero (no rotation's quaternion), are an error.
    pub fn new(x: f64, y: f64, z: f64, w: f64) -> Result<Quaternion> {
        let norm = (x * x + y * y + z * z + w * w).sqrt();
        if !norm.is_finite() || norm == 0.0 {
            return Err(Error::invalid(
                "quaternion",
                format!("({x}, {y}, {z}, {w}) is not a rotation: its norm is {norm}"),
            ));
        }
        Ok(Quaternion {
            x: x / norm,
            y: y / norm,
            z: z / norm,
            w: w / norm,
        })
    }

    /// Its parts, `[x, y, z, w]`.
    pub fn to_array(self) -> [f64; 4] {
        [self.x, self.y, self.z, self.w]
    }

    /// `self · other`.
    fn dot(self, other: Quaternion) -> f64 {
        self.x * other.x + self.y * other.y + self.z * other.z + self.w * other.w
    }

    /// `a * self + b * other`, part by part.
    fn mix(self, a: f64, other: Quaternion, b: f64) -> Quaternion {
        Quaternion {
            x: a * self.x + b * other.x,
            y: a * self.y + b * other.y,
            z: a * self.z + b * other.z,
            w: a * self.w + b * other.w,
        }
    }
}

impl Interpolate for Quaternion {
    /// Spherical linear interpolation along the shorter arc; both ends are
    /// normalized first, and the result is a unit quaternion.
    fn interpolate(a: &Quaternion, b: &Quaternion, w: f64) -> Result<Quaternion> {
        let a = Quaternion::new(a.x, a.y, a.z, a.w)?;
        let mut b = Quaternion::new(b.x, b.y, b.z, b.w)?;
        let mut cos = a.dot(b);
        if cos < 0.0 {
            b = b.mix(-1.0, b, 0.0);
            cos = -cos;
        }
        let mixed = if cos > 1.0 - 1e-12 {
            // The same rotation, to rounding: the chord is the arc.
            a.mix(1.0 - w, b, w)
        } else {
            let angle = cos.min(1.0).acos();
            let sin = angle.sin();
            a.mix(((1.0 - w) * angle).sin() / sin, b, (w * angle).sin() / sin)
        };
        Quaternion::new(mixed.x, mixed.y, mixed.z, mixed.w)
    }
}

/// A batch of quaternions is one `[B, 4]` array, rows `[x, y, z, w]`.
impl Collatable for Quaternion {
    type Batch = Array2<f64>;
    type Builder = QuaternionBuilder;

    fn builder(first: &Self, len: usize) -> QuaternionBuilder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(_first: &Self, len: usize, buffers: Buffers<'_>) -> QuaternionBuilder {
        QuaternionBuilder {
            values: buffers.take(4 * len),
        }
    }
}

/// Builds a batch of quaternions, `[B, 4]`.
#[derive(Debug)]
pub struct QuaternionBuilder {
    values: Vec<f64>,
}

impl BatchBuilder<Quaternion> for QuaternionBuilder {
    type Batch = Array2<f64>;

    fn push(&mut self, item: Quaternion, _position: usize) -> Result<()> {
        self.values.extend(item.to_array());
        Ok(())
    }

    fn finish(self) -> Result<Array2<f64>> {
        let rows = self.values.len() / 4;
        Array2::from_shape_vec((rows, 4), self.values)
            .map_err(|e| Error::internal("QuaternionBuilder::finish", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn about_z(angle: f64) -> Quaternion {
        Quaternion::new(0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()).unwrap()
    }

    #[test]
    fn slerp_turns_at_a_constant_rate() {
        let (a, b) = (about_z(0.2), about_z(1.4));
        for w in [0.0, 0.1, 0.5, 0.9, 1.0] {
            let q = Quaternion::interpolate(&a, &b, w).unwrap();
            let want = about_z(0.2 + 1.2 * w);
            assert!(q.dot(want).abs() > 1.0 - 1e-12, "{w}: {q:?} vs {want:?}");
        }
    }

    #[test]
    fn slerp_takes_the_shorter_arc() {
        // -q is q's rotation: halfway from 0 to 0.4 rad, not the long way.
        let b = about_z(0.4);
        let negated = Quaternion::new(-b.x, -b.y, -b.z, -b.w).unwrap();
        let q = Quaternion::interpolate(&Quaternion::IDENTITY, &negated, 0.5).unwrap();
        assert!(q.dot(about_z(0.2)).abs() > 1.0 - 1e-12, "{q:?}");
    }

    #[test]
    fn quaternions_batch_as_rows() {
        use crate::Collate;
        let batch = crate::collate::DefaultCollate
            .collate(vec![Quaternion::IDENTITY, about_z(1.0)])
            .unwrap();
        assert_eq!(batch.shape(), &[2, 4]);
        assert_eq!(batch.row(0).to_vec(), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_zero_quaternion_is_an_error() {
        let err = Quaternion::new(0.0, 0.0, 0.0, 0.0).unwrap_err();
        assert!(err.to_string().contains("quaternion"), "{err}");
        assert!(Quaternion::new(f64::NAN, 0.0, 0.0, 1.0).is_err());
    }
}
