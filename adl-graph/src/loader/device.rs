//! The settings a loader reads from the environment, once, at
//! [`build`](super::LoaderBuilder::build), and the device of its batch
//! kernels with why it was chosen.

use std::sync::Arc;

use adl_core::{Error, Result};
use adl_exec::Accelerator;

use super::builder::Device;

/// The environment variable that switches fusion of batch kernels off:
/// `ADL_FUSION=0` (or `off`, `false`, `no`); `1`, `on`, `true`, `yes` or
/// unset leave it on. It applies to kernels on a device and on the CPU
/// alike. [`LoaderBuilder::fusion`](super::LoaderBuilder::fusion) overrides
/// it.
pub const FUSION_VARIABLE: &str = "ADL_FUSION";

/// Whether fusion is on, by [`FUSION_VARIABLE`]; an error naming the
/// variable when its value is neither on nor off.
pub(crate) fn fusion_from_env() -> Result<bool> {
    match std::env::var(FUSION_VARIABLE) {
        Err(_) => Ok(true),
        Ok(value) => match value.trim().to_ascii_lowercase().as_str() {
            "" | "1" | "on" | "true" | "yes" => Ok(true),
            "0" | "off" | "false" | "no" => Ok(false),
            _ => Err(Error::invalid(
                format!("{FUSION_VARIABLE}={value:?}"),
                "takes 1 or 0 (on or off)",
            )),
        },
    }
}

/// The device of a loader's batch kernels, why it (or why none), and the
/// notice to print about it, if any.
pub(crate) struct Opened {
    /// The device, if one runs the kernels (none: their Rust bodies run on
    /// the workers).
    pub(crate) device: Option<Arc<dyn Accelerator>>,
    /// Why this device, or why none, whole (the plan shows it).
    pub(crate) why: String,
    /// The one short line to print, once per process: where the kernels
    /// run when nobody chose, or when the device asked for cannot run them.
    /// None for a choice kept (a device given or named and opened, or
    /// `rust` asked for).
    pub(crate) notice: Option<String>,
}

/// The device of the batch kernels, and why it, or why none: the one the
/// program gave, else the one its choice (or `ADL_OPENCL_DEVICE`) names.
/// A pipeline without kernel nodes opens none.
pub(crate) fn open(device: &Device, has_kernels: bool) -> Result<Opened> {
    let kept = |device, why: &str| Opened {
        device,
        why: why.to_owned(),
        notice: None,
    };
    match device {
        Device::Given(a) => Ok(kept(Some(Arc::clone(a)), "given by the program")),
        _ if !has_kernels => Ok(kept(None, "the pipeline has no kernel nodes")),
        #[cfg(feature = "opencl")]
        Device::Chosen(choice) => chosen(choice, false),
        #[cfg(feature = "opencl")]
        Device::FromEnvironment => {
            let from_env = std::env::var_os(crate::opencl::DEVICE_VARIABLE).is_some();
            let mut opened = chosen(&crate::opencl::DeviceChoice::from_env()?, !from_env)?;
            if from_env {
                opened.why = format!("{} in {}", opened.why, crate::opencl::DEVICE_VARIABLE);
            }
            Ok(opened)
        }
        #[cfg(not(feature = "opencl"))]
        Device::FromEnvironment => {
            let why = "adl was built without its `opencl` feature";
            Ok(Opened {
                device: None,
                why: why.to_owned(),
                notice: Some(format!(
                    "batch kernels run on the CPU: {why} ({} hides this line)",
                    crate::notice::QUIET_VARIABLE
                )),
            })
        }
    }
}

/// The device `choice` names, opened; `auto`: nobody chose (the notice
/// then says where the kernels run, whatever it is).
#[cfg(feature = "opencl")]
fn chosen(choice: &crate::opencl::DeviceChoice, auto: bool) -> Result<Opened> {
    use crate::opencl::{DEVICE_VARIABLE, DeviceChoice};
    let chosen = crate::opencl::OpenCl::choose(choice)?;
    let device = chosen.device.map(|d| Arc::new(d) as Arc<dyn Accelerator>);
    let notice = match &device {
        Some(d) if auto => Some(format!(
            "batch kernels run on OpenCL device {} ({}); {DEVICE_VARIABLE}=rust keeps them on the CPU",
            d.name(),
            chosen.why
        )),
        None if auto || *choice != DeviceChoice::Rust => Some(format!(
            "batch kernels run on the CPU: {} ({DEVICE_VARIABLE} picks an OpenCL device; =rust hides this line)",
            first_clause(&chosen.why)
        )),
        _ => None,
    };
    Ok(Opened {
        device,
        why: chosen.why,
        notice,
    })
}

/// The reason without its details: up to its first `;`, less a closing
/// parenthesis (`no GPU or accelerator; a CPU OpenCL device runs only
/// when named (here: ...)` is `no GPU or accelerator`). The plan keeps it
/// whole.
#[cfg(feature = "opencl")]
fn first_clause(why: &str) -> &str {
    let clause = why.split(';').next().unwrap_or(why).trim();
    match clause.rfind(" (") {
        Some(open) if clause.ends_with(')') => &clause[..open],
        _ => clause,
    }
}

#[cfg(all(test, feature = "opencl"))]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_cut_to_its_first_clause() {
        assert_eq!(
            first_clause(
                "no GPU or accelerator; a CPU OpenCL device runs only when named in ADL_OPENCL_DEVICE (here: 0:0 cpu)"
            ),
            "no GPU or accelerator"
        );
        assert_eq!(first_clause("no OpenCL device"), "no OpenCL device");
        assert_eq!(
            first_clause(
                "the first GPU, G (P), cannot divide with correct rounding (its kernels would not give the Rust bodies' bits)"
            ),
            "the first GPU, G (P), cannot divide with correct rounding"
        );
    }
}
