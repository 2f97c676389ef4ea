use crate::{BoxError, Error, Result, Transform};

/// A transform made of a fallible function, `Fn(In) -> Result<Out, E>`:
/// its `Err` becomes an [`Error::Transform`].
///
/// A plain closure returning a `Result` is already a transform, but one whose
/// output *is* the `Result`; wrap it with [`fallible`] to make its errors
/// the transform's errors. The error has no step name until the step is
/// [`named`](super::named).
#[derive(Debug, Clone, Copy)]
pub struct TryFn<F>(pub F);

/// A transform from a fallible function: see [`TryFn`].
///
/// ```
/// use adl::{Error, Transform, transform::{TransformExt, fallible}};
///
/// let parse = fallible(|s: &str| s.parse::<i64>()).named("parse");
/// assert_eq!(parse.apply("42")?, 42);
/// let err = parse.apply("forty-two").unwrap_err();
/// assert!(matches!(&err, Error::Transform { node, .. } if node == "parse"));
/// assert_eq!(format!("{err:#}"), "transform `parse`: invalid digit found in string");
/// # Ok::<(), adl::Error>(())
/// ```
pub fn fallible<F>(f: F) -> TryFn<F> {
    TryFn(f)
}

impl<In, Out, E, F> Transform<In> for TryFn<F>
where
    F: Fn(In) -> std::result::Result<Out, E>,
    E: Into<BoxError>,
{
    type Output = Out;

    fn apply(&self, input: In) -> Result<Out> {
        (self.0)(input).map_err(|e| Error::Transform {
            node: String::new(),
            cause: e.into(),
        })
    }
}
