//! [`KernelInput`] and [`KernelOutput`]: the batch types a kernel node
//! takes and gives, and their bytes.

use adl_exec::{Buffers, Element, HostBatch, HostData, Output, filled_vec};
use ndarray::{Array, Array1, Dimension, RemoveAxis};

use adl_core::collate::Rows;

use adl_core::{Error, Result};

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

    /// Whether its samples lie apart in memory (a
    /// [`Rows`](adl_core::collate::Rows) batch): a kernel node alone then
    /// still reads them block by block, rather than copying them into an
    /// array for its Rust body. The default is false.
    fn scattered(&self) -> bool {
        false
    }

    /// Done with: give its memory to `buffers`, the context's pool (the
    /// default drops it).
    fn release(self, buffers: Buffers<'_>)
    where
        Self: Sized,
    {
        let _ = buffers;
    }
}

impl<T: Element, D: Dimension> KernelInput for Array<T, D> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let shape = self.shape().to_vec();
        match self.as_slice() {
            Some(values) => Ok(f(HostBatch {
                data: HostData::Contiguous(bytemuck::cast_slice(values)),
                element: T::TYPE,
                shape: &shape,
                flags: None,
            })),
            None => {
                let standard = self.as_standard_layout();
                let values = standard.as_slice().ok_or_else(|| {
                    Error::internal(
                        "kernel::data",
                        "kernel input: a standard-layout copy is not contiguous",
                    )
                })?;
                Ok(f(HostBatch {
                    data: HostData::Contiguous(bytemuck::cast_slice(values)),
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

    fn release(self, buffers: Buffers<'_>) {
        buffers.release(self);
    }
}

/// `batch` with `flags`, one per sample: `f` gets the batch's bytes and
/// the flags as bytes.
fn with_flags<B: KernelInput, R>(
    batch: &B,
    flags: &Array1<bool>,
    f: impl FnOnce(HostBatch<'_>) -> R,
) -> Result<R> {
    let shape = batch.shape();
    if shape.is_empty() || flags.len() != shape[0] {
        return Err(Error::invalid(
            "kernel input",
            format!(
                "{} per-sample flags for a batch of shape {shape:?}: one flag per sample is needed",
                flags.len(),
            ),
        ));
    }
    let flags: Vec<u8> = flags.iter().map(|&b| u8::from(b)).collect();
    batch.with_host(move |host| {
        f(HostBatch {
            flags: Some(&flags),
            ..host
        })
    })
}

impl<T: Element, D: Dimension> KernelInput for (Array<T, D>, Array1<bool>) {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        with_flags(&self.0, &self.1, f)
    }

    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }

    fn release(self, buffers: Buffers<'_>) {
        buffers.release(self.0);
    }
}

/// The rows are read where they lie, in their table: no copy.
impl<T: Element, D: RemoveAxis> KernelInput for Rows<T, D> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        let shape = Rows::shape(self);
        let (table, row) = self.table();
        Ok(f(HostBatch {
            data: HostData::Rows {
                table: bytemuck::cast_slice(table),
                row: row * std::mem::size_of::<T>(),
                keys: self.keys(),
            },
            element: T::TYPE,
            shape: &shape,
            flags: None,
        }))
    }

    fn shape(&self) -> Vec<usize> {
        Rows::shape(self)
    }

    fn scattered(&self) -> bool {
        true
    }
}

impl<T: Element, D: RemoveAxis> KernelInput for (Rows<T, D>, Array1<bool>) {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        with_flags(&self.0, &self.1, f)
    }

    fn shape(&self) -> Vec<usize> {
        self.0.shape()
    }

    fn scattered(&self) -> bool {
        true
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
    /// bytes, into an [`Output`]); `None` when `fill` says it did not run.
    /// The memory comes from `buffers` (the context's pool, if it has one).
    fn build(
        shape: &[usize],
        buffers: Buffers<'_>,
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>>;
}

impl<T: Element, D: Dimension> KernelOutput for Array<T, D> {
    type Element = T;

    fn build(
        shape: &[usize],
        buffers: Buffers<'_>,
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>> {
        let Some(values) = filled_vec::<T, _>(shape, buffers, fill)? else {
            return Ok(None);
        };
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
            .map_err(|e| Error::internal("kernel::data", format!("kernel output: {}", e)))
    }
}

/// A `Vec` is a batch of scalars (shape `[len]`).
impl<T: Element> KernelInput for Vec<T> {
    type Element = T;

    fn with_host<R>(&self, f: impl FnOnce(HostBatch<'_>) -> R) -> Result<R> {
        Ok(f(HostBatch {
            data: HostData::Contiguous(bytemuck::cast_slice(self)),
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
        buffers: Buffers<'_>,
        fill: impl FnOnce(&mut Output<'_>) -> Result<bool>,
    ) -> Result<Option<Self>> {
        filled_vec::<T, _>(shape, buffers, fill)
    }
}
