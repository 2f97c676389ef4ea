use crate::{Error, Result, Transform};
use adl_exec::Context;

/// A transform with a name, used in its errors: see [`named`].
#[derive(Debug, Clone)]
pub struct Named<T> {
    name: String,
    inner: T,
}

/// Give the step `inner` a name for its errors.
///
/// Errors of `inner` become [`Error::Transform`]s that name the step: an
/// unnamed transform error takes `name`, a named one is prefixed (`outer/inner`),
/// and any other error is wrapped, with the original as its source.
///
/// ```
/// use adl::{Transform, transform::{TransformExt, fallible, named}};
///
/// let flip = named("flip", fallible(|x: i64| if x >= 0 { Ok(-x) } else { Err("negative input") }));
/// let augment = named("augment", (|x: i64| x + 1).then(flip));
/// let err = augment.apply(-5).unwrap_err();
/// assert_eq!(format!("{err:#}"), "transform `augment/flip`: negative input");
/// ```
pub fn named<T>(name: impl Into<String>, inner: T) -> Named<T> {
    Named {
        name: name.into(),
        inner,
    }
}

impl<T> Named<T> {
    /// The step's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The step itself.
    pub fn inner(&self) -> &T {
        &self.inner
    }
}

impl<In, T: Transform<In>> Transform<In> for Named<T> {
    type Output = T::Output;

    fn apply(&self, input: In) -> Result<T::Output> {
        self.inner.apply(input).map_err(|e| label(e, &self.name))
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<T::Output> {
        self.inner
            .apply_in(cx, input)
            .map_err(|e| label(e, &self.name))
    }
}

/// `error`, as raised by the step `name`: see [`named`].
pub(crate) fn label(error: Error, name: &str) -> Error {
    match error {
        Error::Transform { node, cause } => Error::Transform {
            node: if node.is_empty() {
                name.to_owned()
            } else {
                format!("{name}/{node}")
            },
            cause,
        },
        other => Error::Transform {
            node: name.to_owned(),
            cause: Box::new(other),
        },
    }
}
