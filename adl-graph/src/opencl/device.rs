//! Which OpenCL device runs the batch kernels: [`DeviceChoice`], from the
//! API or `ADL_OPENCL_DEVICE`.

use std::fmt;

use adl_core::{Error, Result};

/// The environment variable that picks the device of the batch kernels:
/// `auto` (the default: the first GPU or accelerator), `rust` (no OpenCL:
/// the kernels' Rust bodies on the loader's workers), `P:D` (device `D` of
/// platform `P`, from 0), or a part of a device's or platform's name
/// (`h100`, `pocl`), case-insensitive. A CPU OpenCL device such as POCL's
/// is used only when named this way.
pub const DEVICE_VARIABLE: &str = "ADL_OPENCL_DEVICE";

/// Which device runs batch kernels.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DeviceChoice {
    /// The first GPU or accelerator OpenCL device; without one, the Rust
    /// kernels on the loader's workers. A CPU OpenCL device (POCL's, say)
    /// is not picked: on the cores that run the loader it is slower than
    /// the Rust kernels (W2: 88 k against 539 k samples/s on two cores).
    #[default]
    Auto,
    /// No OpenCL: kernel nodes run their Rust bodies on the loader's
    /// workers (`rust`).
    Rust,
    /// Device `device` of platform `platform` (indices from 0, in the
    /// order the OpenCL loader lists them).
    Index {
        /// The platform's index.
        platform: usize,
        /// The device's index within the platform.
        device: usize,
    },
    /// The first device whose name, platform name or platform vendor
    /// contains this text (case-insensitive): `pocl` names POCL's device,
    /// whose platform is "Portable Computing Language" by "The pocl
    /// project".
    Name(String),
}

impl DeviceChoice {
    /// The choice in `ADL_OPENCL_DEVICE`, or [`Auto`](DeviceChoice::Auto)
    /// when it is not set; an error when its value names no choice.
    pub fn from_env() -> Result<Self> {
        match std::env::var(DEVICE_VARIABLE) {
            Ok(value) => Self::parse(&value)
                .map_err(|reason| Error::invalid(format!("{DEVICE_VARIABLE}={value:?}"), reason)),
            Err(_) => Ok(DeviceChoice::Auto),
        }
    }

    /// The choice a text names: `auto`, `rust` (or `none`), `P:D`, or a
    /// part of a device's or platform's name. `cpu` is refused, with what
    /// to write instead: it could mean the Rust kernels or a CPU OpenCL
    /// device.
    ///
    /// ```
    /// use adl::graph::opencl::DeviceChoice;
    ///
    /// assert_eq!(DeviceChoice::parse("rust"), Ok(DeviceChoice::Rust));
    /// assert_eq!(DeviceChoice::parse("1:0"), Ok(DeviceChoice::Index { platform: 1, device: 0 }));
    /// assert_eq!(DeviceChoice::parse("pocl"), Ok(DeviceChoice::Name("pocl".into())));
    /// assert!(DeviceChoice::parse("cpu").unwrap_err().contains("`rust`"));
    /// ```
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "" | "auto" => return Ok(DeviceChoice::Auto),
            "rust" | "none" | "off" => return Ok(DeviceChoice::Rust),
            "cpu" => {
                return Err(
                    "`cpu` could mean two things: write `rust` for the kernels' Rust \
                            bodies on the loader's workers, or name a CPU OpenCL device by its \
                            platform or device name (`pocl`) or index (`P:D`)"
                        .to_owned(),
                );
            }
            _ => {}
        }
        if let Some((p, d)) = text.split_once(':')
            && let (Ok(platform), Ok(device)) = (p.trim().parse(), d.trim().parse())
        {
            return Ok(DeviceChoice::Index { platform, device });
        }
        Ok(DeviceChoice::Name(text.to_owned()))
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        Self::parse(text)
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Rust => f.write_str("rust"),
            DeviceChoice::Index { platform, device } => write!(f, "{platform}:{device}"),
            DeviceChoice::Name(name) => write!(f, "{name:?}"),
        }
    }
}

/// What kind of device an OpenCL device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A GPU.
    Gpu,
    /// An accelerator (not a GPU, not a CPU).
    Accelerator,
    /// A CPU (POCL's device, say): the loader's own cores.
    Cpu,
    /// Anything else.
    Other,
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
    pub(crate) platform_vendor: String,
    pub(crate) kind: Kind,
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
/// (no OpenCL loader configuration, no driver). Listed once per process:
/// drivers do not all list devices safely from several threads at once
/// (POCL's device names were read while another thread listed them, and
/// crashed), and the devices do not change while it runs.
pub(crate) fn list() -> Vec<Listed> {
    static LISTED: std::sync::OnceLock<Vec<Listed>> = std::sync::OnceLock::new();
    LISTED.get_or_init(list_now).clone()
}

/// [`list`], asking the drivers.
fn list_now() -> Vec<Listed> {
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
        let platform_vendor = platform.vendor().unwrap_or_default();
        let devices = ocl::Device::list_all(platform).unwrap_or_default();
        for (di, device) in devices.into_iter().enumerate() {
            let kind = match device.info(ocl::enums::DeviceInfo::Type) {
                Ok(ocl::enums::DeviceInfoResult::Type(t)) if t.contains(ocl::DeviceType::GPU) => {
                    Kind::Gpu
                }
                Ok(ocl::enums::DeviceInfoResult::Type(t))
                    if t.contains(ocl::DeviceType::ACCELERATOR) =>
                {
                    Kind::Accelerator
                }
                Ok(ocl::enums::DeviceInfoResult::Type(t)) if t.contains(ocl::DeviceType::CPU) => {
                    Kind::Cpu
                }
                _ => Kind::Other,
            };
            out.push(Listed {
                platform_index: pi,
                device_index: di,
                platform,
                device,
                name: device
                    .name()
                    .unwrap_or_else(|_| "unnamed device".to_owned()),
                platform_name: platform_name.clone(),
                platform_vendor: platform_vendor.clone(),
                kind,
            });
        }
    }
    out
}

/// The device `choice` names among `devices`, with why: `Ok((None, why))`
/// for [`Rust`](DeviceChoice::Rust) or when `Auto` finds no GPU or
/// accelerator; an error naming the available devices when an index or
/// name matches none.
pub(crate) fn pick(choice: &DeviceChoice, devices: &[Listed]) -> Result<(Option<Listed>, String)> {
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
        DeviceChoice::Rust => Ok((None, "`rust` asked for".to_owned())),
        DeviceChoice::Auto => {
            let first = devices
                .iter()
                .find(|d| matches!(d.kind, Kind::Gpu | Kind::Accelerator));
            Ok(match first {
                Some(d) => {
                    let kind = if d.kind == Kind::Gpu {
                        "GPU"
                    } else {
                        "accelerator"
                    };
                    (Some(d.clone()), format!("the first {kind}"))
                }
                None if devices.is_empty() => (None, "no OpenCL device".to_owned()),
                None => {
                    let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
                    (
                        None,
                        format!(
                            "no GPU or accelerator; a CPU OpenCL device runs only when named in \
                             {DEVICE_VARIABLE} (here: {})",
                            names.join("; ")
                        ),
                    )
                }
            })
        }
        DeviceChoice::Index { platform, device } => devices
            .iter()
            .find(|d| d.platform_index == *platform && d.device_index == *device)
            .map(|d| (Some(d.clone()), format!("`{platform}:{device}` asked for")))
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
                    [&d.name, &d.platform_name, &d.platform_vendor]
                        .iter()
                        .any(|text| text.to_lowercase().contains(&needle))
                })
                .map(|d| (Some(d.clone()), format!("{name:?} asked for")))
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
        assert_eq!(DeviceChoice::parse(""), Ok(DeviceChoice::Auto));
        assert_eq!(DeviceChoice::parse(" Rust "), Ok(DeviceChoice::Rust));
        assert_eq!(DeviceChoice::parse("none"), Ok(DeviceChoice::Rust));
        assert_eq!(
            DeviceChoice::parse("1:0"),
            Ok(DeviceChoice::Index {
                platform: 1,
                device: 0
            })
        );
        assert_eq!(
            DeviceChoice::parse("H100"),
            Ok(DeviceChoice::Name("H100".into()))
        );
        let cpu = DeviceChoice::parse("CPU").unwrap_err();
        assert!(cpu.contains("`rust`") && cpu.contains("`pocl`"), "{cpu}");
    }

    #[test]
    fn a_choice_that_matches_nothing_names_what_there_is() {
        let err = pick(&DeviceChoice::Name("tpu".into()), &[]).unwrap_err();
        assert!(
            err.to_string().contains("there is no OpenCL device"),
            "{err}"
        );
        let (none, why) = pick(&DeviceChoice::Auto, &[]).unwrap();
        assert!(none.is_none());
        assert_eq!(why, "no OpenCL device");
        assert!(pick(&DeviceChoice::Rust, &[]).unwrap().0.is_none());
    }

    /// The devices of this machine, listed by the OpenCL loader.
    #[test]
    fn auto_never_picks_a_cpu_device() {
        let devices = list();
        let (picked, why) = pick(&DeviceChoice::Auto, &devices).unwrap();
        match &picked {
            Some(d) => assert!(
                matches!(d.kind, Kind::Gpu | Kind::Accelerator),
                "{d}: {why}"
            ),
            None => assert!(why.starts_with("no "), "{why}"),
        }
        if let Some(cpu) = devices.iter().find(|d| d.kind == Kind::Cpu) {
            // Named, it is used.
            let named = pick(&DeviceChoice::Name(cpu.platform_name.clone()), &devices).unwrap();
            assert!(named.0.is_some());
            if picked.is_none() {
                assert!(why.contains(&cpu.name), "{why}");
            }
        }
    }
}
