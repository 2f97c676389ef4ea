//! A policy's `margin` as abstract-dataloader 0.4.7 takes it: `(start,
//! end)` for every sensor, or `{sensor: (start, end)}`; each end an `int`
//! (samples) or anything else numeric (seconds).

use adl_core::sync::{Bound as End, Margin, Margins};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyMapping, PySequence, PyString};

use crate::timestamps::type_name;

/// `margin` read as the reference reads it. A sequence other than of
/// length 2 is the reference's `TypeError`, in its words.
pub(crate) fn read(margin: Option<&Bound<'_, PyAny>>) -> PyResult<Margins> {
    let Some(margin) = margin else {
        return Ok(Margins::default());
    };
    if let Ok(mapping) = margin.cast::<PyMapping>() {
        let mut per_sensor = Vec::new();
        for item in mapping.items()?.iter() {
            let (name, pair): (String, Bound<'_, PyAny>) = item.extract()?;
            let ends = pair_of(&pair, |len| {
                PyTypeError::new_err(format!(
                    "Margin for sensor {name} must be a sequence of length 2, got {len}: {}",
                    text(&pair)
                ))
            })?;
            per_sensor.push((name, ends));
        }
        return Ok(Margins::PerSensor(per_sensor));
    }
    let ends = pair_of(margin, |len| {
        PyTypeError::new_err(format!(
            "Margin must be a sequence of length 2, got {len}: {}",
            text(margin)
        ))
    })?;
    Ok(Margins::All(ends))
}

/// The two ends of `pair`; `wrong_length` makes the error of a sequence
/// of another length.
fn pair_of(pair: &Bound<'_, PyAny>, wrong_length: impl Fn(usize) -> PyErr) -> PyResult<Margin> {
    let sequence = match pair.cast::<PySequence>() {
        Ok(sequence) if !pair.is_instance_of::<PyString>() => sequence,
        _ => {
            return Err(PyTypeError::new_err(format!(
                "a margin is a sequence (start, end) or a mapping of sensor names to them, not {}",
                type_name(pair)
            )));
        }
    };
    let len = sequence.len()?;
    if len != 2 {
        return Err(wrong_length(len));
    }
    Ok(Margin::new(
        end_of(&sequence.get_item(0)?)?,
        end_of(&sequence.get_item(1)?)?,
    ))
}

/// One end: a Python `int` (and so a `bool`) is a count of samples;
/// anything else (a `float`, a numpy number, numpy's integers included,
/// as the reference's `isinstance(x, int)` says) is seconds.
fn end_of(value: &Bound<'_, PyAny>) -> PyResult<End> {
    if value.is_instance_of::<PyInt>() {
        let samples: i64 = value.extract().map_err(|_| {
            PyValueError::new_err(format!("a margin of {} samples is too large", text(value)))
        })?;
        return Ok(End::Samples(samples));
    }
    let seconds: f64 = value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "a margin is a number of samples (int) or of seconds (float), not {}",
            type_name(value)
        ))
    })?;
    Ok(End::Seconds(seconds))
}

/// `value` as Python's `str()` prints it.
fn text(value: &Bound<'_, PyAny>) -> String {
    value
        .str()
        .map_or_else(|_| "?".to_string(), |s| s.to_string())
}
