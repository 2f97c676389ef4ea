//! Batch kernels on OpenCL devices (the `opencl` feature, on by default):
//! [`OpenCl`], an [`Accelerator`] through the `ocl` crate.
//!
//! - **Device**: by default ([`DeviceChoice::Auto`]) the first GPU or
//!   accelerator; without one, none, and the kernels run their Rust bodies
//!   on the loader's workers. A CPU OpenCL device (POCL's) runs them only
//!   when named ([`DeviceChoice`], `ADL_OPENCL_DEVICE=pocl` or `P:D`): on
//!   the cores that run the loader it is slower than the Rust kernels.
//!   [`OpenCl::choose`] says why it chose what it did; the loader reports
//!   it once, and its plan shows it.
//! - **Exact**: every program starts with `#pragma OPENCL FP_CONTRACT OFF`
//!   and is built with `-cl-fp32-correctly-rounded-divide-sqrt`; a device
//!   that cannot divide exactly is not used (its kernels would not give the
//!   Rust bodies' bits).
//! - **Compiled once**: programs are cached per source.
//! - **Buffers once**: device buffers and pinned host staging buffers
//!   (`CL_MEM_ALLOC_HOST_PTR`, mapped once) are kept in sets and reused;
//!   a call takes a set, so calls from several workers never share one.
//! - **Overlap**: three queues, for uploads, kernels and downloads, so that
//!   one batch uploads while another computes and a third downloads.
//! - **Fusion**: the launches of a run of kernel nodes arrive with their
//!   groups, decided by [`groups`](adl_rules::fusion::groups) (the one rule
//!   the plan uses too): each group compiles into one kernel, and the data
//!   stays on the device between kernels.
//! - **Errors**: a program that does not compile is an
//!   [`Error::Kernel`] naming the node, with the build log; so is a device
//!   out of memory. Nothing panics.

mod device;
mod program;
mod staging;

use std::collections::HashMap;
use std::sync::Mutex;

use adl_core::{Error, Result};
use adl_exec::{Accelerator, ElementType, HostBatch, KernelArg, Launch, Output, shape_variables};

pub use device::{DEVICE_VARIABLE, DeviceChoice};
use program::{BUILD_OPTIONS, Range, Step};
use staging::Staging;

/// An OpenCL device that runs batch kernels: see the [module docs](self).
///
/// ```no_run
/// use adl::graph::opencl::{DeviceChoice, OpenCl};
///
/// let chosen = OpenCl::choose(&DeviceChoice::from_env()?)?;
/// match &chosen.device {
///     Some(device) => println!("kernels run on {} ({})", adl::kernel::Accelerator::name(device), chosen.why),
///     None => println!("kernels run their Rust bodies ({})", chosen.why),
/// }
/// # Ok::<(), adl::Error>(())
/// ```
pub struct OpenCl {
    name: String,
    device: ocl::Device,
    context: ocl::Context,
    upload: ocl::Queue,
    compute: ocl::Queue,
    download: ocl::Queue,
    fp64: bool,
    max_alloc: u64,
    programs: Mutex<HashMap<String, ocl::Program>>,
    staging: Mutex<Vec<Staging>>,
}

impl std::fmt::Debug for OpenCl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenCl")
            .field("device", &self.name)
            .finish()
    }
}

/// An [`Error::Kernel`] of `nodes` on `device`.
fn kernel_error(nodes: &str, device: &str, reason: impl std::fmt::Display) -> Error {
    Error::Kernel {
        node: nodes.to_owned(),
        device: device.to_owned(),
        reason: reason.to_string(),
    }
}

/// Whether an OpenCL error says the device ran out of memory.
fn out_of_memory(e: &ocl::Error) -> bool {
    let text = e.to_string();
    [
        "MEM_OBJECT_ALLOCATION_FAILURE",
        "OUT_OF_RESOURCES",
        "OUT_OF_HOST_MEMORY",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// What a [`DeviceChoice`] came to: the device, set up, or none (the
/// kernels then run their Rust bodies on the loader's workers), and why, in
/// words (`the first GPU`, `no GPU or accelerator; ...`): what the loader's
/// notice and plan say.
#[derive(Debug)]
pub struct Chosen {
    /// The device, where one was chosen and could be used.
    pub device: Option<OpenCl>,
    /// Why this device, or why none.
    pub why: String,
}

impl OpenCl {
    /// The device `choice` names, ready, or `None` (see [`choose`](Self::choose)).
    pub fn open(choice: &DeviceChoice) -> Result<Option<OpenCl>> {
        Ok(Self::choose(choice)?.device)
    }

    /// The device `choice` names, ready, with why: no device for
    /// [`Rust`](DeviceChoice::Rust), when `Auto` finds no GPU or
    /// accelerator, or when the device cannot divide exactly; an error when
    /// an index or name matches no device, or the device cannot be set up.
    pub fn choose(choice: &DeviceChoice) -> Result<Chosen> {
        let devices = device::list();
        let (listed, why) = device::pick(choice, &devices)?;
        let Some(listed) = listed else {
            return Ok(Chosen { device: None, why });
        };
        let name = format!("{} ({})", listed.name, listed.platform_name);
        let setup =
            |e: ocl::Error| Error::invalid("OpenCL device", format!("cannot set up {name}: {e}"));
        let exact = matches!(
            listed.device.info(ocl::enums::DeviceInfo::SingleFpConfig),
            Ok(ocl::enums::DeviceInfoResult::SingleFpConfig(c))
                if c.contains(ocl::core::DeviceFpConfig::CORRECTLY_ROUNDED_DIVIDE_SQRT)
        );
        if !exact {
            return Ok(Chosen {
                device: None,
                why: format!(
                    "{why}, {name}, cannot divide with correct rounding (its kernels would not give the Rust bodies' bits)"
                ),
            });
        }
        let extensions = match listed.device.info(ocl::enums::DeviceInfo::Extensions) {
            Ok(ocl::enums::DeviceInfoResult::Extensions(e)) => e,
            _ => String::new(),
        };
        let max_alloc = match listed.device.info(ocl::enums::DeviceInfo::MaxMemAllocSize) {
            Ok(ocl::enums::DeviceInfoResult::MaxMemAllocSize(n)) => n,
            _ => u64::MAX,
        };
        let context = ocl::Context::builder()
            .platform(listed.platform)
            .devices(listed.device)
            .build()
            .map_err(setup)?;
        let queue = || ocl::Queue::new(&context, listed.device, None).map_err(setup);
        let device = OpenCl {
            upload: queue()?,
            compute: queue()?,
            download: queue()?,
            name,
            device: listed.device,
            context,
            fp64: extensions.contains("cl_khr_fp64"),
            max_alloc,
            programs: Mutex::new(HashMap::new()),
            staging: Mutex::new(Vec::new()),
        };
        Ok(Chosen {
            device: Some(device),
            why,
        })
    }

    /// With at most `bytes` in any one device buffer (default: the
    /// device's `CL_DEVICE_MAX_MEM_ALLOC_SIZE`): a batch that needs a larger
    /// buffer is an out-of-memory [`Error::Kernel`] before anything is
    /// allocated, so a device shared with training keeps its memory.
    pub fn buffer_limit(mut self, bytes: u64) -> Self {
        self.max_alloc = self.max_alloc.min(bytes);
        self
    }

    /// The most bytes one device buffer may hold.
    pub fn max_buffer(&self) -> u64 {
        self.max_alloc
    }

    /// The program of `step`, built once per source.
    fn program(&self, step: &Step) -> Result<ocl::Program> {
        let mut programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = programs.get(&step.source) {
            return Ok(p.clone());
        }
        let program = ocl::Program::builder()
            .src(step.source.clone())
            .devices(self.device)
            .cmplr_opt(BUILD_OPTIONS)
            .build(&self.context)
            .map_err(|e| {
                kernel_error(
                    &step.nodes,
                    &self.name,
                    format!("the kernel does not compile:\n{e}"),
                )
            })?;
        programs.insert(step.source.clone(), program.clone());
        Ok(program)
    }

    /// A staging set with room for these byte counts.
    fn take_staging(&self, sizes: &staging::Sizes) -> Result<Staging> {
        let reusable = {
            let mut sets = self.staging.lock().unwrap_or_else(|e| e.into_inner());
            sets.iter()
                .position(|s| s.fits(sizes))
                .map(|i| sets.swap_remove(i))
        };
        match reusable {
            Some(set) => Ok(set),
            None => Staging::new(self, sizes),
        }
    }

    fn give_back(&self, set: Staging) {
        let mut sets = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        sets.push(set);
    }
}

impl Accelerator for OpenCl {
    fn name(&self) -> &str {
        &self.name
    }

    fn supports(&self, element: ElementType) -> bool {
        element != ElementType::F64 || self.fp64
    }

    fn run(
        &self,
        launches: &[Launch],
        groups: &[std::ops::Range<usize>],
        input: HostBatch<'_>,
        output: &mut Output<'_>,
    ) -> adl_exec::Result<bool> {
        self.run_launches(launches, groups, input, output)
            .map_err(|e| as_kernel_error(e, launches, &self.name))
    }
}

/// An error of a run as the accelerator trait gives it (it becomes
/// `Error` again, the same variant, where it reaches the user): a failure
/// of the device is [`KernelError::Device`](adl_exec::KernelError::Device)
/// naming the nodes, whatever part of the run found it.
fn as_kernel_error(error: Error, launches: &[Launch], device: &str) -> adl_exec::KernelError {
    use adl_exec::KernelError;
    match error {
        Error::Kernel {
            node,
            device,
            reason,
        } => KernelError::Device {
            node,
            device,
            reason,
        },
        Error::Internal { place, what } => KernelError::Internal { place, what },
        Error::InvalidParameter { parameter, reason } => {
            KernelError::InvalidParameter { parameter, reason }
        }
        Error::IndexOutOfRange { what, index, len } => {
            KernelError::IndexOutOfRange { what, index, len }
        }
        other => KernelError::Device {
            node: launches
                .iter()
                .map(|l| l.node.as_ref())
                .collect::<Vec<_>>()
                .join(" + "),
            device: device.to_owned(),
            reason: other.to_string(),
        },
    }
}

impl OpenCl {
    /// [`Accelerator::run`], in adl's own errors.
    fn run_launches(
        &self,
        launches: &[Launch],
        groups: &[std::ops::Range<usize>],
        input: HostBatch<'_>,
        output: &mut Output<'_>,
    ) -> Result<bool> {
        let uses_double = launches
            .iter()
            .any(|l| l.input() == ElementType::F64 || l.output() == ElementType::F64);
        if launches.is_empty() || (uses_double && !self.fp64) {
            if uses_double {
                crate::notice::once(format!(
                    "OpenCL device {} has no double precision (cl_khr_fp64): f64 kernels run their Rust bodies",
                    self.name
                ));
            }
            return Ok(false);
        }
        let (n, per_sample, channels, inner, last) = shape_variables(input.shape);
        if n == 0 {
            return Ok(true);
        }
        let range = Range::of(input.shape);
        let all_nodes = launches
            .iter()
            .map(|l| l.node.as_ref())
            .collect::<Vec<_>>()
            .join(" + ");
        let steps = program::steps(launches, groups, &range).ok_or_else(|| {
            Error::internal(
                "opencl::run",
                format!("the kernel groups {groups:?} do not fit the launches of {all_nodes}"),
            )
        })?;
        // One flag per sample, zeros where the batch has none, so that a
        // kernel reading `flags[sample]` stays inside the buffer.
        let samples = input.shape.first().copied().unwrap_or(1).max(1);
        let sizes = staging::Sizes::of(&steps, n, input.flags.map_or(samples, <[u8]>::len));
        let largest = sizes.largest();
        if largest as u64 > self.max_alloc {
            return Err(kernel_error(
                &all_nodes,
                &self.name,
                format!(
                    "out of device memory: the batch needs a buffer of {largest} bytes, the device allocates at most {} (use smaller batches)",
                    self.max_alloc
                ),
            ));
        }
        let programs: Vec<ocl::Program> = steps
            .iter()
            .map(|s| self.program(s))
            .collect::<Result<_>>()?;
        let mut set = self.take_staging(&sizes).map_err(|e| match e {
            Error::Kernel { reason, .. } => kernel_error(&all_nodes, &self.name, reason),
            other => other,
        })?;
        let shape = [n, per_sample, channels, inner, last].map(|x| x as u64);
        let result = set.run(self, &steps, &programs, input, (shape, range), output);
        // A run that failed may have left commands in flight on this set's
        // buffers: it is dropped (OpenCL frees the buffers once their
        // commands are done) rather than handed to the next run.
        if result.is_ok() {
            self.give_back(set);
        }
        result.map_err(|(nodes, e)| {
            let reason = if out_of_memory(&e) {
                format!("out of device memory: {e}")
            } else {
                e.to_string()
            };
            kernel_error(nodes.unwrap_or(&all_nodes), &self.name, reason)
        })?;
        Ok(true)
    }
}

/// The device buffers of a node's own array arguments.
fn arg_buffers(device: &OpenCl, args: &[KernelArg]) -> ocl::Result<Vec<Option<ocl::Buffer<u8>>>> {
    args.iter()
        .map(|arg| {
            let bytes: Option<Vec<u8>> = match arg {
                KernelArg::F32s(v) => Some(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
                KernelArg::I32s(v) => Some(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
                KernelArg::U32s(v) => Some(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
                _ => None,
            };
            bytes
                .map(|b| {
                    ocl::Buffer::<u8>::builder()
                        .queue(device.upload.clone())
                        .flags(ocl::MemFlags::new().read_only().copy_host_ptr())
                        .len(b.len().max(1))
                        .copy_host_slice(if b.is_empty() { &[0u8][..] } else { &b[..] })
                        .build()
                })
                .transpose()
        })
        .collect()
}
