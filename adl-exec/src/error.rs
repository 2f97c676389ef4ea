//! [`KernelError`]: what can go wrong in the kernel machinery: a batch's
//! bytes that do not fit what a kernel reads or writes.
//!
//! Four kinds, each worded as adl's own error of the same kind
//! (`adl::Error` converts one into its variant of that name, so a user of
//! adl reads the same message whichever crate found the fault).

/// Shorthand for `Result<T, KernelError>`.
pub type Result<T, E = KernelError> = std::result::Result<T, E>;

/// Everything that can go wrong in the kernel machinery: a request outside
/// what a kernel block or a batch holds, a kernel that its device could
/// not run, or a check that should always hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// An index past the end of a block, a batch or its rows.
    #[error("index {index} is out of range for {what} of length {len}")]
    IndexOutOfRange {
        /// What was indexed, e.g. "kernel block".
        what: String,
        /// The index asked for.
        index: usize,
        /// The length of what was indexed.
        len: usize,
    },
    /// A parameter outside its domain (a block that is not whole rows, a
    /// row that does not fit its table...).
    #[error("invalid {parameter}: {reason}")]
    InvalidParameter {
        /// The parameter, e.g. "kernel block".
        parameter: String,
        /// Why the value is not accepted, with the value.
        reason: String,
    },
    /// A batch kernel that could not run on its device (an
    /// [`Accelerator`](crate::Accelerator)'s failure): its program did not
    /// compile (with the build log), the device ran out of memory, a
    /// transfer or launch failed. `adl::Error::Kernel` when it reaches a
    /// user.
    #[error("kernel `{node}` on {device}: {reason}")]
    Device {
        /// The node (or fused nodes, joined by ` + `) whose kernel failed.
        node: String,
        /// The device, as the accelerator names it.
        device: String,
        /// What went wrong; for a build failure, the compiler's log.
        reason: String,
    },
    /// A check inside adl failed: a bug in adl, not in the program using
    /// it (please report it with the message). Nothing panics on it; the
    /// work at hand stops with this error.
    #[error("internal error in adl at {place}: {what} (a bug in adl: please report it)")]
    Internal {
        /// Where in adl, e.g. `kernel::data`.
        place: &'static str,
        /// What did not hold.
        what: String,
    },
}

impl KernelError {
    /// A [`KernelError::Internal`]: `what` did not hold at `place` in adl.
    pub fn internal(place: &'static str, what: impl std::fmt::Display) -> Self {
        KernelError::Internal {
            place,
            what: what.to_string(),
        }
    }

    /// A [`KernelError::InvalidParameter`] from anything printable.
    pub fn invalid(parameter: impl std::fmt::Display, reason: impl std::fmt::Display) -> Self {
        KernelError::InvalidParameter {
            parameter: parameter.to_string(),
            reason: reason.to_string(),
        }
    }

    /// A [`KernelError::IndexOutOfRange`] for `what`.
    pub fn out_of_range(what: impl std::fmt::Display, index: usize, len: usize) -> Self {
        KernelError::IndexOutOfRange {
            what: what.to_string(),
            index,
            len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_says_what_and_where() {
        assert_eq!(
            KernelError::out_of_range("kernel block", 9, 4).to_string(),
            "index 9 is out of range for kernel block of length 4"
        );
        assert_eq!(
            KernelError::invalid(
                "kernel block",
                "a block of 7 elements is not whole rows of 2"
            )
            .to_string(),
            "invalid kernel block: a block of 7 elements is not whole rows of 2"
        );
        assert_eq!(
            KernelError::internal("kernel::data", "kernel output: committed past the room")
                .to_string(),
            "internal error in adl at kernel::data: kernel output: committed past the room \
             (a bug in adl: please report it)"
        );
        assert_eq!(
            KernelError::Device {
                node: "normalize".into(),
                device: "pocl".into(),
                reason: "out of device memory".into(),
            }
            .to_string(),
            "kernel `normalize` on pocl: out of device memory"
        );
    }
}
