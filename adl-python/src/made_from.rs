//! [`MadeFrom`]: what one of adl's Python objects was made from (a class
//! or a method, and its arguments), so that it pickles by it: a sensor by
//! its location and options, never its caches, open files or decoded
//! frames. Unpickled, it is made again the same way (`adl._pickle`), so
//! that it reaches worker processes, PyTorch's DataLoader workers started
//! with `spawn` and Ray's tasks, and reads the same samples there.

use pyo3::BoundObject;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// `location` as a pickle keeps it: a local path made absolute (a worker
/// process, or a task on another machine's same mount, opens the same
/// file whatever its working directory), a URL (`s3://`, `https://`) as
/// it is.
pub(crate) fn located(location: &str) -> String {
    if location.contains("://") {
        return location.to_owned();
    }
    std::path::absolute(location).map_or_else(
        |_| location.to_owned(),
        |p| p.to_string_lossy().into_owned(),
    )
}

/// A dict of keyword arguments for [`MadeFrom`]: `kwargs!(py; "layout" =>
/// layout, ...)`.
macro_rules! kwargs {
    ($py:expr $(; $($key:literal => $value:expr),* $(,)?)?) => {{
        let dict = pyo3::types::PyDict::new($py);
        $($(pyo3::types::PyDictMethods::set_item(&dict, $key, $value)?;)*)?
        dict
    }};
}
pub(crate) use kwargs;

/// A callable (`on`, or its method `method`) and the arguments that made
/// an object.
pub(crate) struct MadeFrom {
    on: Py<PyAny>,
    method: Option<&'static str>,
    args: Py<PyTuple>,
    kwargs: Py<PyDict>,
}

impl MadeFrom {
    /// Made by class `T` called with `args` and `kwargs` (see
    /// `kwargs!`).
    pub(crate) fn class<'py, T: pyo3::PyTypeInfo>(
        py: Python<'py>,
        args: impl IntoPyObject<'py, Target = PyTuple>,
        kwargs: Bound<'py, PyDict>,
    ) -> PyResult<Self> {
        Self::method(py.get_type::<T>().into_any(), None, args, kwargs)
    }

    /// Made by `on`'s method `method` (or `on` itself, where `None`)
    /// called with `args` and `kwargs`.
    pub(crate) fn method<'py>(
        on: Bound<'py, PyAny>,
        method: Option<&'static str>,
        args: impl IntoPyObject<'py, Target = PyTuple>,
        kwargs: Bound<'py, PyDict>,
    ) -> PyResult<Self> {
        let args: Bound<'py, PyTuple> = args
            .into_pyobject(on.py())
            .map_err(Into::into)?
            .into_bound();
        Ok(MadeFrom {
            on: on.unbind(),
            method,
            args: args.unbind(),
            kwargs: kwargs.unbind(),
        })
    }

    /// Made by calling `method` with `args` on the object this made: a
    /// topic of a log, a view of a topic.
    pub(crate) fn then<'py>(
        &self,
        py: Python<'py>,
        method: &'static str,
        args: impl IntoPyObject<'py, Target = PyTuple>,
        kwargs: Bound<'py, PyDict>,
    ) -> PyResult<Self> {
        let call = py.import("adl._pickle")?.getattr("Call")?.call1((
            self.on.clone_ref(py),
            self.method,
            self.args.clone_ref(py),
            self.kwargs.clone_ref(py),
        ))?;
        Self::method(call, Some(method), args, kwargs)
    }

    /// `__reduce__`'s answer: `adl._pickle.rebuild` and what it calls.
    pub(crate) fn reduce<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let rebuild = py.import("adl._pickle")?.getattr("rebuild")?;
        let args = (
            self.on.clone_ref(py),
            self.method,
            self.args.clone_ref(py),
            self.kwargs.clone_ref(py),
        );
        (rebuild, args).into_pyobject(py)
    }
}
