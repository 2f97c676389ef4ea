//! The settings a loader reads from the environment, once, at
//! [`build`](super::LoaderBuilder::build), and the device of its batch
//! kernels with why it was chosen.

use std::sync::Arc;

use adl_core::kernel::Accelerator;
use adl_core::{Error, Result};

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

/// The device of the batch kernels, and why it, or why none: the one the
/// program gave, else the one its choice (or `ADL_OPENCL_DEVICE`) names.
/// A pipeline without kernel nodes opens none.
pub(crate) fn open(
    device: &Device,
    has_kernels: bool,
) -> Result<(Option<Arc<dyn Accelerator>>, String)> {
    match device {
        Device::Given(a) => Ok((Some(Arc::clone(a)), "given by the program".to_owned())),
        _ if !has_kernels => Ok((None, "the pipeline has no kernel nodes".to_owned())),
        #[cfg(feature = "opencl")]
        Device::Chosen(choice) => chosen(choice),
        #[cfg(feature = "opencl")]
        Device::FromEnvironment => {
            let (device, why) = chosen(&crate::opencl::DeviceChoice::from_env()?)?;
            let from_env = std::env::var_os(crate::opencl::DEVICE_VARIABLE).is_some();
            let why = if from_env {
                format!("{why} in {}", crate::opencl::DEVICE_VARIABLE)
            } else {
                why
            };
            Ok((device, why))
        }
        #[cfg(not(feature = "opencl"))]
        Device::FromEnvironment => Ok((
            None,
            "adl was built without its `opencl` feature".to_owned(),
        )),
    }
}

#[cfg(feature = "opencl")]
fn chosen(choice: &crate::opencl::DeviceChoice) -> Result<(Option<Arc<dyn Accelerator>>, String)> {
    let chosen = crate::opencl::OpenCl::choose(choice)?;
    Ok((
        chosen.device.map(|d| Arc::new(d) as Arc<dyn Accelerator>),
        chosen.why,
    ))
}

/// The one-line notice of where the kernels run and why.
pub(crate) fn notice(device: Option<&dyn Accelerator>, why: &str, fusion: bool) -> String {
    let fused = if fusion { "fused" } else { "each alone" };
    match device {
        Some(device) => format!(
            "batch kernels run on OpenCL device {} ({why}), {fused}",
            device.name()
        ),
        None => format!("batch kernels run their Rust bodies on the workers ({why}), {fused}"),
    }
}
