//! The one error type of adl-core.
//!
//! Every variant names *what* went wrong and *where* (the sensor, the index,
//! the value), so a message read in a training log (`{:#}`, the error and
//! its causes) is enough to find the bad input. Nothing in adl-core panics
//! on user input; it returns one of these.

use std::fmt;

/// A boxed error from user code (a sensor's loader, a transform).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Shorthand for `Result<T, adl_core::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in adl-core.
///
/// An error that wraps another (a [`Sample`](Error::Sample) around a
/// [`Transform`](Error::Transform) around the user's error) gives it as
/// its [`source`](std::error::Error::source), so that anyhow, eyre and
/// `downcast_ref` reach the user's own error, and follows Rust's
/// convention for it: `{}` says this error only, `{:#}` says it and each
/// cause below it, joined by `: ` (as anyhow's `{:#}` prints a chain), each
/// thing once (a wrapper does not repeat the node its cause names). Print
/// an error for a person with `{:#}`.
///
/// ```
/// use adl::Error;
///
/// let io = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated");
/// let err = Error::read("radar frame", 7, io);
/// assert_eq!(err.to_string(), "reading radar frame [7]");
/// assert_eq!(format!("{err:#}"), "reading radar frame [7]: truncated");
/// let source = std::error::Error::source(&err).expect("a read error has a source");
/// assert!(source.downcast_ref::<std::io::Error>().is_some());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A timestamp is NaN or infinite.
    NonFiniteTimestamp {
        /// The sensor whose timestamps are bad.
        sensor: String,
        /// Position of the bad timestamp.
        index: usize,
        /// The bad value.
        value: f64,
    },
    /// Timestamps go backwards.
    UnsortedTimestamps {
        /// The sensor whose timestamps are bad.
        sensor: String,
        /// Position of the first timestamp smaller than its predecessor.
        index: usize,
        /// The timestamp before it.
        previous: f64,
        /// The out-of-order timestamp.
        value: f64,
    },
    /// Two or more timestamps, all equal: a clock that never advanced. (A
    /// PX4 log topic whose only sample is stamped zero is reported the
    /// same way.)
    ConstantTimestamps {
        /// The sensor whose timestamps are bad.
        sensor: String,
        /// How many timestamps it has.
        len: usize,
        /// The one value they all have.
        value: f64,
    },
    /// A sensor without samples where at least one is needed.
    EmptySensor {
        /// The empty sensor.
        sensor: String,
        /// What needed a sample (e.g. "Next synchronization").
        needed_for: &'static str,
    },
    /// A sensor name that the trace does not have.
    UnknownSensor {
        /// What the name was used as ("reference", "margin", "requested").
        role: &'static str,
        /// The name asked for.
        name: String,
        /// The names the trace has, in order.
        available: Vec<String>,
    },
    /// The same sensor name twice in one trace.
    DuplicateSensor {
        /// The repeated name.
        name: String,
    },
    /// An index past the end of a sensor, trace or dataset.
    IndexOutOfRange {
        /// What was indexed, e.g. "sensor `imu`" or "dataset".
        what: String,
        /// The index asked for.
        index: usize,
        /// The length of what was indexed.
        len: usize,
    },
    /// A parameter outside its domain (a negative tolerance, a zero batch
    /// size, a margin that eats a whole sensor...).
    InvalidParameter {
        /// The parameter, e.g. "tolerance" or "margin for sensor `imu`".
        parameter: String,
        /// Why the value is not accepted, with the value.
        reason: String,
    },
    /// Index arrays given to or produced for a trace that do not fit it.
    BadIndices {
        /// What does not fit, naming the sensor.
        reason: String,
    },
    /// A sensor's loader failed to read a sample.
    Load {
        /// The sensor being read.
        sensor: String,
        /// The sample index being read.
        index: usize,
        /// The loader's own error.
        cause: BoxError,
    },
    /// A read in a user's own code failed (a file, a decoder, a device):
    /// what was read, at which index where there is one, and the cause.
    /// Build one with [`Error::read`]; a boxed error or an `std::io::Error`
    /// converts into one, so `?` works in a sensor's loader.
    Read {
        /// What was being read, e.g. "radar frame" or a file's path.
        what: String,
        /// The index being read, where there is one.
        index: Option<usize>,
        /// The cause.
        cause: BoxError,
    },
    /// Samples that cannot be collated into one batch: a shape mismatch, a
    /// missing key, lists of different lengths, an empty batch...
    Collate {
        /// Where in the sample, e.g. `.image` or `.points[2]`; empty for the
        /// sample itself.
        path: String,
        /// The sample's position in the batch.
        position: usize,
        /// What does not fit, with both values (e.g. both shapes).
        reason: String,
    },
    /// A transform step failed: a fallible step returned an error, or a
    /// parallel branch found no input under its key.
    Transform {
        /// The failing step's name, outermost first and joined by `/` (e.g.
        /// `image/flip`); empty for a step without a name.
        node: String,
        /// The step's own error.
        cause: BoxError,
    },
    /// A [`pipes`](crate::pipes) adaptor failed on one item: its function
    /// (a transform, a flat-map function) returned an error, or a window
    /// needed an item whose failure was already reported.
    Pipe {
        /// The adaptor, e.g. "map", "flat_map" or "window".
        adaptor: &'static str,
        /// The item's index in the adaptor's source: the sample index of a
        /// map-style source, the position in the stream of an iterable one.
        index: usize,
        /// What went wrong (an [`Error`] from a transform is boxed here and
        /// can be downcast back).
        cause: BoxError,
    },
    /// A sample that failed in a loader: reading it, or a node of the
    /// sample stage. Carries the dataset index and the node.
    Sample {
        /// The sample's dataset index.
        index: usize,
        /// The failing node's name: a node of the pipeline, or `dataset`
        /// when reading the sample failed.
        node: String,
        /// The error itself.
        cause: Box<Error>,
    },
    /// A trace that could not be opened (its files, its timestamps, its
    /// synchronization), from [`Concat::open`](crate::Concat::open).
    Trace {
        /// The trace, as it was named to open it (a folder, a key).
        trace: String,
        /// Why it could not be opened.
        cause: Box<Error>,
    },
    /// A batch whose collate or batch stage failed in a loader.
    Batch {
        /// The batch's position in its epoch (on this rank).
        batch: usize,
        /// The dataset indices of its samples.
        indices: Vec<usize>,
        /// The failing node's name (or the stage's).
        node: String,
        /// The error itself.
        cause: Box<Error>,
    },
    /// A node panicked; the panic was caught.
    Panic {
        /// The node that panicked.
        node: String,
        /// The dataset index of the sample, where known.
        index: Option<usize>,
        /// The panic's message.
        message: String,
    },
    /// A loader state that cannot be resumed here: taken from another
    /// pipeline or dataset, or damaged.
    Resume {
        /// Why, naming both values.
        reason: String,
    },
    /// A batch kernel that could not run on its device: its program did not
    /// compile (with the build log), the device ran out of memory, a
    /// transfer or launch failed.
    Kernel {
        /// The node (or fused nodes, joined by ` + `) whose kernel failed.
        node: String,
        /// The device, as the accelerator names it.
        device: String,
        /// What went wrong; for a build failure, the compiler's log.
        reason: String,
    },
    /// A source file (a log, a recording, a sensor's data or timestamps)
    /// that could not be read or is not what its reader expects: the file,
    /// the sensor and the sample where they are known, what went wrong, and,
    /// where the system refused a read, its `std::io::Error` as the
    /// `source()` (so that `ErrorKind::NotFound` can be matched: see
    /// [`Error::file_io`]).
    Source {
        /// The file.
        path: String,
        /// The sensor the file belongs to, where known.
        sensor: Option<String>,
        /// The sample (the sensor's own index) being read, where the
        /// failure is one sample's; `None` for the whole file.
        index: Option<usize>,
        /// What went wrong, in words (the I/O error's own words are its
        /// cause's).
        reason: String,
        /// The I/O error that made the read fail, where one did.
        cause: Option<BoxError>,
    },
    /// A check inside adl failed: a bug in adl, not in the program using
    /// it (please report it with the message). Nothing panics on it; the
    /// work at hand stops with this error.
    Internal {
        /// Where in adl, e.g. `loader::epoch`.
        place: &'static str,
        /// What did not hold.
        what: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NonFiniteTimestamp {
                sensor,
                index,
                value,
            } => write!(
                f,
                "sensor `{sensor}`: timestamp [{index}] is {value}; timestamps must be finite seconds"
            ),
            Error::UnsortedTimestamps {
                sensor,
                index,
                previous,
                value,
            } => write!(
                f,
                "sensor `{sensor}`: timestamps are not sorted: [{index}] = {value} comes after [{}] = {previous}",
                index.saturating_sub(1)
            ),
            Error::ConstantTimestamps { sensor, len, value } if *len == 1 => write!(
                f,
                "sensor `{sensor}`: its only timestamp is {value}; the sensor's clock never advances"
            ),
            Error::ConstantTimestamps { sensor, len, value } => write!(
                f,
                "sensor `{sensor}`: all {len} timestamps equal {value}; the sensor's clock never advances"
            ),
            Error::EmptySensor { sensor, needed_for } => write!(
                f,
                "sensor `{sensor}` has no samples; {needed_for} needs at least one"
            ),
            Error::UnknownSensor {
                role,
                name,
                available,
            } => write!(
                f,
                "{role} sensor `{name}` is not in the trace; its sensors are [{}]",
                available.join(", ")
            ),
            Error::DuplicateSensor { name } => write!(
                f,
                "sensor name `{name}` appears twice in one trace; names must be unique"
            ),
            Error::IndexOutOfRange { what, index, len } => {
                write!(
                    f,
                    "index {index} is out of range for {what} of length {len}"
                )
            }
            Error::InvalidParameter { parameter, reason } => {
                write!(f, "invalid {parameter}: {reason}")
            }
            Error::BadIndices { reason } => {
                write!(f, "synchronization indices do not fit the trace: {reason}")
            }
            Error::Load {
                sensor,
                index,
                cause,
            } => with_causes(
                f,
                format_args!("sensor `{sensor}`: loading sample {index} failed"),
                cause.as_ref(),
            ),
            Error::Read {
                what,
                index: Some(index),
                cause,
            } => with_causes(f, format_args!("reading {what} [{index}]"), cause.as_ref()),
            Error::Read {
                what,
                index: None,
                cause,
            } => with_causes(f, format_args!("reading {what}"), cause.as_ref()),
            Error::Collate {
                path,
                position,
                reason,
            } => {
                let at = if path.is_empty() { "the value" } else { path };
                write!(f, "collate: {at} of sample {position}: {reason}")
            }
            Error::Transform { node, cause } if node.is_empty() => {
                with_causes(f, format_args!("transform"), cause.as_ref())
            }
            Error::Transform { node, cause } => {
                with_causes(f, format_args!("transform `{node}`"), cause.as_ref())
            }
            Error::Pipe {
                adaptor,
                index,
                cause,
            } => with_causes(f, format_args!("{adaptor}: item {index}"), cause.as_ref()),
            Error::Sample { index, node, cause } => match unsaid_node(node, cause) {
                Some(node) => {
                    with_causes(f, format_args!("sample {index} (node `{node}`)"), &**cause)
                }
                None => with_causes(f, format_args!("sample {index}"), &**cause),
            },
            Error::Trace { trace, cause } => {
                with_causes(f, format_args!("trace `{trace}`"), &**cause)
            }
            Error::Batch {
                batch,
                indices,
                node,
                cause,
            } => {
                let indices = format_indices(indices);
                match unsaid_node(node, cause) {
                    Some(node) => with_causes(
                        f,
                        format_args!("batch {batch} (node `{node}`, samples {indices})"),
                        &**cause,
                    ),
                    None => with_causes(
                        f,
                        format_args!("batch {batch} (samples {indices})"),
                        &**cause,
                    ),
                }
            }
            Error::Panic {
                node,
                index: Some(index),
                message,
            } => write!(f, "node `{node}` panicked on sample {index}: {message}"),
            Error::Panic {
                node,
                index: None,
                message,
            } => write!(f, "node `{node}` panicked: {message}"),
            Error::Resume { reason } => write!(f, "cannot resume: {reason}"),
            Error::Kernel {
                node,
                device,
                reason,
            } => write!(f, "kernel `{node}` on {device}: {reason}"),
            Error::Source {
                path,
                sensor,
                index,
                reason,
                cause: None,
            } => write!(f, "{path}{}: {reason}", source_place(sensor, index)),
            Error::Source {
                path,
                sensor,
                index,
                reason,
                cause: Some(cause),
            } => with_causes(
                f,
                format_args!("{path}{}: {reason}", source_place(sensor, index)),
                cause.as_ref(),
            ),
            Error::Internal { place, what } => write!(
                f,
                "internal error in adl at {place}: {what} (a bug in adl: please report it)"
            ),
        }
    }
}

/// The cause (as [`Error::cause`] gives it) is the source, so that a
/// report walking the chain (anyhow's, eyre's) and `downcast_ref` reach
/// the error inside, an adl [`Error`] as itself.
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause()
            .map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

/// `head`, and in `{:#}` each cause from `cause` down its sources, each
/// after `: `, as anyhow's `{:#}` prints a chain.
fn with_causes(
    f: &mut fmt::Formatter<'_>,
    head: fmt::Arguments<'_>,
    cause: &(dyn std::error::Error + 'static),
) -> fmt::Result {
    f.write_fmt(head)?;
    if f.alternate() {
        let mut next = Some(cause);
        while let Some(error) = next {
            write!(f, ": {error}")?;
            next = error.source();
        }
    }
    Ok(())
}

/// ` (sensor `radar`, sample 7)`, or the part of it that is known.
fn source_place(sensor: &Option<String>, index: &Option<usize>) -> String {
    match (sensor, index) {
        (Some(sensor), Some(index)) => format!(" (sensor `{sensor}`, sample {index})"),
        (Some(sensor), None) => format!(" (sensor `{sensor}`)"),
        (None, Some(index)) => format!(" (sample {index})"),
        (None, None) => String::new(),
    }
}

/// `node`, unless `cause`'s own message already names it (a named
/// transform's error says its node: the wrapper does not say it again).
fn unsaid_node<'a>(node: &'a str, cause: &Error) -> Option<&'a str> {
    match cause {
        Error::Transform { node: said, .. }
        | Error::Sample { node: said, .. }
        | Error::Batch { node: said, .. }
        | Error::Panic { node: said, .. }
        | Error::Kernel { node: said, .. }
            if said == node =>
        {
            None
        }
        _ => Some(node),
    }
}

/// `[3, 8, 9]`, or the first few and a count.
fn format_indices(indices: &[usize]) -> String {
    const SHOWN: usize = 8;
    let shown: Vec<String> = indices
        .iter()
        .take(SHOWN)
        .map(ToString::to_string)
        .collect();
    if indices.len() > SHOWN {
        format!("[{}, ... {} in all]", shown.join(", "), indices.len())
    } else {
        format!("[{}]", shown.join(", "))
    }
}

impl Error {
    /// The node an error comes from, where it says: the node of a
    /// [`Sample`](Error::Sample), [`Batch`](Error::Batch),
    /// [`Panic`](Error::Panic) or named [`Transform`](Error::Transform)
    /// error, `dataset` for a [`Load`](Error::Load) error, `collate` for a
    /// [`Collate`](Error::Collate) error.
    pub fn node(&self) -> Option<&str> {
        match self {
            Error::Sample { node, .. }
            | Error::Batch { node, .. }
            | Error::Panic { node, .. }
            | Error::Kernel { node, .. } => Some(node),
            Error::Transform { node, .. } if !node.is_empty() => Some(node),
            Error::Load { .. } => Some("dataset"),
            Error::Collate { .. } => Some("collate"),
            _ => None,
        }
    }

    /// The error inside this one, where there is one: the cause of a
    /// [`Load`](Error::Load), [`Read`](Error::Read),
    /// [`Transform`](Error::Transform), [`Pipe`](Error::Pipe),
    /// [`Sample`](Error::Sample), [`Trace`](Error::Trace) or
    /// [`Batch`](Error::Batch) error, to match on or downcast: the same
    /// error as [`std::error::Error::source`], typed `Send + Sync`.
    ///
    /// ```
    /// use adl::{Error, Transform, transform::{fallible, named}};
    ///
    /// let parse = named("parse", fallible(|s: &str| s.parse::<u8>()));
    /// let err = parse.apply("300").unwrap_err();
    /// assert_eq!(err.to_string(), "transform `parse`");
    /// assert_eq!(format!("{err:#}"), "transform `parse`: number too large to fit in target type");
    /// let cause = err.cause().expect("a transform error has a cause");
    /// assert!(cause.downcast_ref::<std::num::ParseIntError>().is_some());
    /// assert!(std::error::Error::source(&err).is_some_and(|s| s.is::<std::num::ParseIntError>()));
    /// ```
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        match self {
            Error::Load { cause, .. }
            | Error::Read { cause, .. }
            | Error::Transform { cause, .. }
            | Error::Pipe { cause, .. } => Some(cause.as_ref()),
            Error::Source {
                cause: Some(cause), ..
            } => Some(cause.as_ref()),
            Error::Sample { cause, .. }
            | Error::Batch { cause, .. }
            | Error::Trace { cause, .. } => Some(cause.as_ref()),
            _ => None,
        }
    }

    /// An [`Error::Internal`]: `what` did not hold at `place` in adl.
    pub fn internal(place: &'static str, what: impl fmt::Display) -> Self {
        Error::Internal {
            place,
            what: what.to_string(),
        }
    }

    /// An [`Error::Source`]: the file at `path` could not be read, or is
    /// not what it should be, because of `reason`. Name its sensor and
    /// sample with [`in_sensor`](Error::in_sensor).
    ///
    /// ```
    /// use adl::Error;
    ///
    /// let err = Error::file("radar/data.npy", "truncated: 4096 bytes missing");
    /// assert_eq!(err.to_string(), "radar/data.npy: truncated: 4096 bytes missing");
    /// let err = err.in_sensor("radar", Some(7));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "radar/data.npy (sensor `radar`, sample 7): truncated: 4096 bytes missing"
    /// );
    /// ```
    pub fn file(path: impl AsRef<std::path::Path>, reason: impl fmt::Display) -> Self {
        Error::Source {
            path: path.as_ref().display().to_string(),
            sensor: None,
            index: None,
            reason: reason.to_string(),
            cause: None,
        }
    }

    /// An [`Error::Source`] for a read of the file at `path` that the
    /// system refused: `what` was being done ("cannot open"), and `io` is
    /// its [`source`](std::error::Error::source), whose kind can be
    /// matched. `{}` says the file and what; `{:#}` the I/O error too.
    ///
    /// ```
    /// use adl::Error;
    /// use std::io::ErrorKind;
    ///
    /// let io = std::io::Error::from(ErrorKind::NotFound);
    /// let err = Error::file_io("radar/data.npy", "cannot open", io).in_sensor("radar", None);
    /// assert_eq!(err.to_string(), "radar/data.npy (sensor `radar`): cannot open");
    /// assert_eq!(format!("{err:#}"), "radar/data.npy (sensor `radar`): cannot open: entity not found");
    /// let source = std::error::Error::source(&err).and_then(|e| e.downcast_ref::<std::io::Error>());
    /// assert_eq!(source.map(|e| e.kind()), Some(ErrorKind::NotFound));
    /// ```
    pub fn file_io(
        path: impl AsRef<std::path::Path>,
        what: impl fmt::Display,
        io: std::io::Error,
    ) -> Self {
        Error::Source {
            path: path.as_ref().display().to_string(),
            sensor: None,
            index: None,
            reason: what.to_string(),
            cause: Some(Box::new(io)),
        }
    }

    /// This error, naming `sensor` (and the sample `index`, where given)
    /// if it is an [`Error::Source`] that does not name them yet; any
    /// other error as it is.
    pub fn in_sensor(self, sensor: &str, index: Option<usize>) -> Self {
        match self {
            Error::Source {
                path,
                sensor: known,
                index: at,
                reason,
                cause,
            } => Error::Source {
                path,
                sensor: known.or_else(|| Some(sensor.to_string())),
                index: at.or(index),
                reason,
                cause,
            },
            other => other,
        }
    }

    /// An [`Error::InvalidParameter`] from anything printable.
    pub fn invalid(parameter: impl fmt::Display, reason: impl fmt::Display) -> Self {
        Error::InvalidParameter {
            parameter: parameter.to_string(),
            reason: reason.to_string(),
        }
    }

    /// `value` if it is at least 1, else an [`Error::InvalidParameter`] for
    /// `parameter` (a batch size, a factor, a number of workers...).
    pub(crate) fn nonzero(parameter: impl fmt::Display, value: usize) -> Result<usize> {
        if value == 0 {
            Err(Error::invalid(parameter, "must be at least 1, got 0"))
        } else {
            Ok(value)
        }
    }

    /// An [`Error::Collate`] at the sample itself (no path yet).
    pub fn collate(position: usize, reason: impl fmt::Display) -> Self {
        Error::Collate {
            path: String::new(),
            position,
            reason: reason.to_string(),
        }
    }

    /// Prefix the path of an [`Error::Collate`] with `segment` (such as
    /// `.image` or `[2]`), as the error travels out of a nested value.
    /// Other errors are returned unchanged.
    pub fn within(mut self, segment: impl fmt::Display) -> Self {
        if let Error::Collate { path, .. } = &mut self {
            *path = format!("{segment}{path}");
        }
        self
    }

    /// An [`Error::Read`]: reading `what` at `index` (a sample's index,
    /// or `None` for a whole-file failure) failed because of `cause` (any
    /// error, or a message).
    ///
    /// ```
    /// use adl::Error;
    ///
    /// let err = Error::read("radar frame", 7, "truncated file");
    /// assert_eq!(err.to_string(), "reading radar frame [7]");
    /// assert_eq!(format!("{err:#}"), "reading radar frame [7]: truncated file");
    /// let err = Error::read("calibration.yaml", None, "no such file");
    /// assert_eq!(format!("{err:#}"), "reading calibration.yaml: no such file");
    /// ```
    pub fn read(
        what: impl fmt::Display,
        index: impl Into<Option<usize>>,
        cause: impl Into<BoxError>,
    ) -> Self {
        Error::Read {
            what: what.to_string(),
            index: index.into(),
            cause: cause.into(),
        }
    }

    /// An [`Error::IndexOutOfRange`] for `what`.
    pub fn out_of_range(what: impl fmt::Display, index: usize, len: usize) -> Self {
        Error::IndexOutOfRange {
            what: what.to_string(),
            index,
            len,
        }
    }
}

/// A boxed error from user code: an adl [`Error`] inside is taken out as
/// it is; any other becomes an [`Error::Read`] ("reading user data",
/// without an index; [`Error::read`] names what and where).
///
/// ```
/// use adl::{BoxError, Error, Result};
///
/// fn parse(bytes: &[u8]) -> Result<u32> {
///     let text = std::str::from_utf8(bytes).map_err(BoxError::from)?;
///     Ok(text.trim().parse::<u32>().map_err(BoxError::from)?)
/// }
/// assert_eq!(parse(b" 42 ")?, 42);
/// assert!(matches!(parse(b"x"), Err(Error::Read { .. })));
/// # Ok::<(), Error>(())
/// ```
impl From<BoxError> for Error {
    fn from(error: BoxError) -> Self {
        match error.downcast::<Error>() {
            Ok(error) => *error,
            Err(error) => Error::Read {
                what: "user data".to_owned(),
                index: None,
                cause: error,
            },
        }
    }
}

/// An error of the kernel machinery (`adl-exec`: a kernel block, a
/// batch's bytes, a kernel's output) becomes the variant of the same name
/// here, with the same fields: the message is the same whichever crate
/// found the fault, and a `match` on [`Error::InvalidParameter`],
/// [`Error::IndexOutOfRange`] or [`Error::Internal`] sees it. It wraps
/// no cause, so it has no [`source`](std::error::Error::source).
///
/// ```
/// use adl::{Error, kernel::KernelError};
///
/// let err = Error::from(KernelError::out_of_range("kernel block", 9, 4));
/// assert!(matches!(err, Error::IndexOutOfRange { index: 9, len: 4, .. }));
/// assert_eq!(err.to_string(), KernelError::out_of_range("kernel block", 9, 4).to_string());
/// ```
impl From<adl_exec::KernelError> for Error {
    fn from(error: adl_exec::KernelError) -> Self {
        match error {
            adl_exec::KernelError::IndexOutOfRange { what, index, len } => {
                Error::IndexOutOfRange { what, index, len }
            }
            adl_exec::KernelError::InvalidParameter { parameter, reason } => {
                Error::InvalidParameter { parameter, reason }
            }
            adl_exec::KernelError::Internal { place, what } => Error::Internal { place, what },
            adl_exec::KernelError::Device {
                node,
                device,
                reason,
            } => Error::Kernel {
                node,
                device,
                reason,
            },
            // The kernel error is `#[non_exhaustive]`: a kind added there
            // and not yet here is said in its own words.
            other => Error::Internal {
                place: "kernel",
                what: other.to_string(),
            },
        }
    }
}

/// An I/O error from user code becomes an [`Error::Read`] ("reading from
/// I/O", without a path or index), so `?` on `std::fs` and `std::io` calls
/// works in a loader. To say which file and which sample, map it with
/// [`Error::read`]: `.map_err(|e| Error::read(path.display(), i, e))?`.
impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::Read {
            what: "from I/O".to_owned(),
            index: None,
            cause: Box::new(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The user's own error, as a sensor's file read gives it.
    fn user_io() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "disk gone")
    }

    /// `error` and its sources, outermost first, as anyhow's `chain()`
    /// walks them.
    fn chain<'a>(
        error: &'a (dyn std::error::Error + 'static),
    ) -> Vec<&'a (dyn std::error::Error + 'static)> {
        std::iter::successors(Some(error), |e| e.source()).collect()
    }

    /// Errors holding the user's io::Error at depth 1 to 3.
    fn wrapped() -> Vec<Error> {
        let load = Error::Load {
            sensor: "radar".into(),
            index: 7,
            cause: Box::new(user_io()),
        };
        let read = Error::read("radar frame", 7, user_io());
        let transform = Error::Transform {
            node: "flip".into(),
            cause: Box::new(user_io()),
        };
        vec![
            Error::Sample {
                index: 3,
                node: "flip".into(),
                cause: Box::new(transform),
            },
            Error::Batch {
                batch: 0,
                indices: vec![7],
                node: "dataset".into(),
                cause: Box::new(Error::Sample {
                    index: 7,
                    node: "dataset".into(),
                    cause: Box::new(load),
                }),
            },
            Error::Trace {
                trace: "run-1".into(),
                cause: Box::new(read),
            },
            Error::from(user_io()),
        ]
    }

    #[test]
    fn sources_reach_the_users_io_error() {
        for error in wrapped() {
            let found = chain(&error)
                .into_iter()
                .skip(1)
                .find_map(|e| e.downcast_ref::<std::io::Error>());
            let io = found.unwrap_or_else(|| panic!("no io::Error below {error:#}"));
            assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof, "{error:#}");
            assert_eq!(io.to_string(), "disk gone");
        }
    }

    #[test]
    fn alternate_display_says_each_cause_once_as_anyhow_does() {
        for error in wrapped() {
            let words: Vec<String> = chain(&error).iter().map(ToString::to_string).collect();
            assert_eq!(format!("{error:#}"), words.join(": "));
            let full = format!("{error:#}");
            assert_eq!(full.matches("disk gone").count(), 1, "{full}");
            // `{}` says the outermost error only.
            assert!(!error.to_string().contains("disk gone"), "{error}");
        }
    }

    #[test]
    fn a_wrapper_does_not_repeat_the_node_its_cause_names() {
        let errors = wrapped();
        assert_eq!(
            format!("{:#}", errors[0]),
            "sample 3: transform `flip`: disk gone"
        );
        assert_eq!(
            format!("{:#}", errors[1]),
            "batch 0 (samples [7]): sample 7 (node `dataset`): \
             sensor `radar`: loading sample 7 failed: disk gone"
        );
        assert_eq!(
            format!("{:#}", errors[2]),
            "trace `run-1`: reading radar frame [7]: disk gone"
        );
        assert_eq!(format!("{:#}", errors[3]), "reading from I/O: disk gone");
    }

    #[test]
    fn a_kernel_error_is_the_variant_of_its_name_in_the_same_words() {
        let kernel = [
            adl_exec::KernelError::out_of_range("kernel block", 9, 4),
            adl_exec::KernelError::invalid("kernel block", "not whole rows of 4"),
            adl_exec::KernelError::internal("kernel::data", "committed past the room"),
            adl_exec::KernelError::Device {
                node: "normalize".into(),
                device: "pocl".into(),
                reason: "build failed".into(),
            },
        ];
        let core = [
            Error::out_of_range("kernel block", 9, 4),
            Error::invalid("kernel block", "not whole rows of 4"),
            Error::internal("kernel::data", "committed past the room"),
            Error::Kernel {
                node: "normalize".into(),
                device: "pocl".into(),
                reason: "build failed".into(),
            },
        ];
        for (kernel, core) in kernel.into_iter().zip(core) {
            let words = kernel.to_string();
            let converted = Error::from(kernel);
            assert_eq!(converted.to_string(), words);
            assert_eq!(converted.to_string(), core.to_string());
            assert_eq!(
                std::mem::discriminant(&converted),
                std::mem::discriminant(&core)
            );
        }
    }

    #[test]
    fn cause_is_the_source() {
        for error in wrapped() {
            let cause = error.cause().expect("a wrapper has a cause");
            let source = std::error::Error::source(&error).expect("a wrapper has a source");
            assert!(std::ptr::addr_eq(cause as *const _, source as *const _));
        }
        // An adl error inside another is its source as itself.
        let sample = &wrapped()[0];
        let inner = std::error::Error::source(sample).and_then(|s| s.downcast_ref::<Error>());
        assert!(matches!(inner, Some(Error::Transform { .. })), "{sample:#}");
    }
}
