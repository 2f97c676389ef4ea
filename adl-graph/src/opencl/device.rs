//! Which OpenCL device runs the batch kernels: [`DeviceChoice`], from the
//! API or `ADL_OPENCL_DEVICE`.

use std::fmt;

use adl_core::{Error, Result};

/// The environment variable that picks the device: `cpu` (no OpenCL: the
/// Rust bodies run), `P:D` (device `D` of platform `P`, from 0), or a part
/// of a device's or platform's name (`h100`, `pocl`), case-insensitive.
pub const DEVICE_VARIABLE: &str = "ADL_OPENCL_DEVICE";

/// The environment variable that switches fusion off: `ADL_OPENCL_FUSION=0`
/// (for the executor and for the plans' DOT).
pub const FUSION_VARIABLE: &str = crate::planner::FUSION_VARIABLE;

/// Which device runs batch kernels.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DeviceChoice {
    /// The first GPU, else the first OpenCL device (POCL's CPU device
    /// where there is no GPU); the Rust bodies if there is none.
    #[default]
    Auto,
    /// No OpenCL: kernel nodes run their Rust bodies on the CPU.
    Cpu,
    /// Device `device` of platform `platform` (indices from 0, in the
    /// order the OpenCL loader lists them).
    Index {
        /// The platform's index.
        platform: usize,
        /// The device's index within the platform.
        device: usize,
    },
    /// The first device whose name or platform name contains this text
    /// (case-insensitive).
    Name(String),
}

impl DeviceChoice {
    /// The choice in `ADL_OPENCL_DEVICE`, or [`Auto`](DeviceChoice::Auto)
    /// when it is not set.
    pub fn from_env() -> Self {
        match std::env::var(DEVICE_VARIABLE) {
            Ok(value) => Self::parse(&value),
            Err(_) => DeviceChoice::Auto,
        }
    }

    /// The choice a text names: `auto`, `cpu` (or `none`), `P:D`, or a
    /// part of a name.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "" | "auto" => return DeviceChoice::Auto,
            "cpu" | "none" | "off" => return DeviceChoice::Cpu,
            _ => {}
        }
        if let Some((p, d)) = text.split_once(':')
            && let (Ok(platform), Ok(device)) = (p.trim().parse(), d.trim().parse())
        {
            return DeviceChoice::Index { platform, device };
        }
        DeviceChoice::Name(text.to_owned())
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Index { platform, device } => write!(f, "{platform}:{device}"),
            DeviceChoice::Name(name) => write!(f, "{name:?}"),
        }
    }
}

/// One OpenCL device as listed.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    pub(crate) platform_index: usize,
    pub(crate) device_index: usize,
    pub(crate) platform: ocl::Platform,
    pub(crate) device: ocl::Device,
    pub(crate) name: String,
    pub(crate) platform_name: String,
    pub(crate) gpu: bool,
}

impl fmt::Display for Listed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} {} ({})",
            self.platform_index, self.device_index, self.name, self.platform_name
        )
    }
}

/// Every OpenCL device of every platform; empty when there is no platform
/// (no OpenCL loader configuration, no driver).
pub(crate) fn list() -> Vec<Listed> {
    let Ok(platforms) = ocl::core::get_platform_ids() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pi, platform) in ocl::Platform::list_from_core(platforms)
        .into_iter()
        .enumerate()
    {
        let platform_name = platform
            .name()
            .unwrap_or_else(|_| "unnamed platform".to_owned());
        let devices = ocl::Device::list_all(platform).unwrap_or_default();
        for (di, device) in devices.into_iter().enumerate() {
            let gpu = matches!(
                device.info(ocl::enums::DeviceInfo::Type),
                Ok(ocl::enums::DeviceInfoResult::Type(t)) if t.contains(ocl::DeviceType::GPU)
            );
            out.push(Listed {
                platform_index: pi,
                device_index: di,
                platform,
                device,
                name: device
                    .name()
                    .unwrap_or_else(|_| "unnamed device".to_owned()),
                platform_name: platform_name.clone(),
                gpu,
            });
        }
    }
    out
}

/// The device `choice` names among `devices`: `Ok(None)` for
/// [`Cpu`](DeviceChoice::Cpu) or when `Auto` finds none; an error naming
/// the available devices when an index or name matches none.
pub(crate) fn pick(choice: &DeviceChoice, devices: &[Listed]) -> Result<Option<Listed>> {
    let available = || {
        if devices.is_empty() {
            "there is no OpenCL device (install an OpenCL driver, e.g. Debian's pocl-opencl-icd)"
                .to_owned()
        } else {
            let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
            format!("the devices are: {}", names.join("; "))
        }
    };
    match choice {
        DeviceChoice::Cpu => Ok(None),
        DeviceChoice::Auto => Ok(devices
            .iter()
            .find(|d| d.gpu)
            .or_else(|| devices.first())
            .cloned()),
        DeviceChoice::Index { platform, device } => devices
            .iter()
            .find(|d| d.platform_index == *platform && d.device_index == *device)
            .cloned()
            .map(Some)
            .ok_or_else(|| {
                Error::invalid(
                    DEVICE_VARIABLE,
                    format!("no OpenCL device {platform}:{device}; {}", available()),
                )
            }),
        DeviceChoice::Name(name) => {
            let needle = name.to_lowercase();
            devices
                .iter()
                .find(|d| {
                    d.name.to_lowercase().contains(&needle)
                        || d.platform_name.to_lowercase().contains(&needle)
                })
                .cloned()
                .map(Some)
                .ok_or_else(|| {
                    Error::invalid(
                        DEVICE_VARIABLE,
                        format!("no OpenCL device is named like {name:?}; {}", available()),
                    )
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse() {
        assert_eq!(DeviceChoice::parse(""), DeviceChoice::Auto);
        assert_eq!(DeviceChoice::parse("CPU"), DeviceChoice::Cpu);
        assert_eq!(
            DeviceChoice::parse("1:0"),
            DeviceChoice::Index {
                platform: 1,
                device: 0
            }
        );
        assert_eq!(
            DeviceChoice::parse("H100"),
            DeviceChoice::Name("H100".into())
        );
    }

    #[test]
    fn a_choice_that_matches_nothing_names_what_there_is() {
        let err = pick(&DeviceChoice::Name("tpu".into()), &[]).unwrap_err();
        assert!(
            err.to_string().contains("there is no OpenCL device"),
            "{err}"
        );
        assert!(pick(&DeviceChoice::Auto, &[]).unwrap().is_none());
        assert!(pick(&DeviceChoice::Cpu, &[]).unwrap().is_none());
    }
}
