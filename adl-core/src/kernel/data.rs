//! [`KernelInput`] and [`KernelOutput`]: the batch types a kernel node
//! takes and gives, and their bytes.

use ndarray::{Array, Array1, Dimension};

use super::element::{Element, ElementType, bytes_of, bytes_of_mut};
use crate::{Error, Result};

/// A batch as a kernel reads it: row-major bytes, its shape (batch axis
/// first), and per-sample flags where the batch carries them.
#[derive(Debug, Clone, Copy)]
pub struct HostBatch<'a> {
    /// The elements, row-major, as bytes.
    pub data: &'a [u8],
    /// Their type.
    pub element: ElementType,
    /// The shape, batch axis first.
    pub shape: &'a [usize],
    /// One byte per sample (0 or 1), where the batch has flags.
    pub flags: Option<&'a [u8]>,
}

impl HostBatch<'_> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A batch type a kernel node can take: an ndarray array of an
/// [`Element`] type, or an array with one flag per sample
/// (`(Array<T, D>, Array1<bool>)`, for nodes such as
/// [`FlipByFlag`](super::FlipByFlag)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of an OpenCL batch node",
    note = "a kernel node takes an ndarray array of u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64 (any shape, batch axis first), or such an array with an `Array1<bool>` of per-sample flags"
)]
pub trait KernelInput {
    /// The element type the kernel reads.
    type Element: Element;

    /// Call `f` with the batch's bytes: in place when the array is
    /// row-major and contiguous, else from a row-major copy.
    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R>;

    /// The shape of the main array, batch axis first.
    fn shape(&self) -> Vec<usize>;
}

impl<T: Element, D: Dimension> KernelInput for Array<T, D> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let shape = self.shape().to_vec();
        match self.as_slice() {
            Some(values) => Ok(f(HostBatch {
                data: bytes_of(values),
                element: T::TYPE,
                shape: &shape,
                flags: None,
            })),
            None => {
                let standard = self.as_standard_layout();
                let values = standard.as_slice().ok_or_else(|| {
                    Error::invalid("kernel input", "a standard-layout copy is not contiguous")
                })?;
                Ok(f(HostBatch {
                    data: bytes_of(values),
                    element: T::TYPE,
                    shape: &shape,
                    flags: None,
                }))
            }
        }
    }

    fn shape(&self) -> Vec<usize> {
        Array::shape(self).to_vec()
    }
}

impl<T: Element, D: Dimension> KernelInput for (Array<T, D>, Array1<bool>) {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let (array, flags) = self;
        let batch = array.shape().first().copied().unwrap_or(0);
        if array.ndim() == 0 || flags.len() != batch {
            return Err(Error::invalid(
                "kernel input",
                format!(
                    "{} per-sample flags for a batch of shape {:?}: one flag per sample is needed",
                    flags.len(),
                    array.shape()
                ),
            ));
        }
        let flags: Vec<u8> = flags.iter().map(|&b| u8::from(b)).collect();
        array.with_host(move |host| {
            f(HostBatch {
                flags: Some(&flags),
                ..host
            })
        })
    }

    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }
}

/// A batch type a kernel node can give: an ndarray array of an
/// [`Element`] type, of the input's shape.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of an OpenCL batch node",
    note = "a kernel node gives an ndarray array of u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64, of its input's shape"
)]
pub trait KernelOutput: Sized {
    /// The element type the kernel writes.
    type Element: Element;

    /// The batch of `shape` whose row-major elements `fill` writes (as
    /// bytes). The memory comes from the thread's
    /// [`BufferPool`](crate::exec::BufferPool) when it has one.
    fn build(shape: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<bool>)
    -> Result<Option<Self>>;
}

impl<T: Element, D: Dimension> KernelOutput for Array<T, D> {
    type Element = T;

    fn build(
        shape: &[usize],
        fill: impl FnOnce(&mut [u8]) -> Result<bool>,
    ) -> Result<Option<Self>> {
        let len: usize = shape.iter().product();
        let mut values: Vec<T> = crate::exec::buffer(len);
        values.resize(len, T::default());
        if !fill(bytes_of_mut(&mut values))? {
            return Ok(None);
        }
        let dim = D::from_dimension(&ndarray::IxDyn(shape)).ok_or_else(|| {
            Error::invalid(
                "kernel output",
                format!(
                    "an array of {} axes cannot have the input's shape {shape:?}",
                    D::NDIM.map_or_else(|| "any number of".to_owned(), |n| n.to_string())
                ),
            )
        })?;
        Array::from_shape_vec(dim, values)
            .map(Some)
            .map_err(|e| Error::invalid("kernel output", e.to_string()))
    }
}

/// A `Vec` is a batch of scalars (shape `[len]`).
impl<T: Element> KernelInput for Vec<T> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        Ok(f(HostBatch {
            data: bytes_of(self),
            element: T::TYPE,
            shape: &[self.len()],
            flags: None,
        }))
    }

    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
}

/// A `Vec` is a batch of scalars (shape `[len]`).
impl<T: Element> KernelOutput for Vec<T> {
    type Element = T;

    fn build(
        shape: &[usize],
        fill: impl FnOnce(&mut [u8]) -> Result<bool>,
    ) -> Result<Option<Self>> {
        let len: usize = shape.iter().product();
        let mut values: Vec<T> = crate::exec::buffer(len);
        values.resize(len, T::default());
        Ok(fill(bytes_of_mut(&mut values))?.then_some(values))
    }
}
