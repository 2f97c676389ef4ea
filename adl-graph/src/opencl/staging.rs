//! The buffers of one kernel run, kept and reused: pinned host staging
//! buffers (`CL_MEM_ALLOC_HOST_PTR`, mapped once) for the transfers, and
//! device buffers for the input, the flags, the data between kernels and
//! the output.

use adl_exec::{HostBatch, KernelArg, Output};

use super::program::{Range, Step};
use super::{OpenCl, arg_buffers, kernel_error};

/// The bytes a run needs in each buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sizes {
    input: usize,
    flags: usize,
    between: Vec<usize>,
    output: usize,
}

impl Sizes {
    /// For `steps` over `n` elements with `flags` flag bytes.
    pub(crate) fn of(steps: &[Step], n: usize, flags: usize) -> Self {
        let between = steps
            .iter()
            .take(steps.len().saturating_sub(1))
            .map(|s| n * s.output.size())
            .collect();
        Sizes {
            input: steps.first().map_or(0, |s| n * s.input.size()),
            flags: flags.max(1),
            between,
            output: steps.last().map_or(0, |s| n * s.output.size()),
        }
    }

    /// The largest single buffer.
    pub(crate) fn largest(&self) -> usize {
        self.between
            .iter()
            .copied()
            .chain([self.input, self.output, self.flags])
            .max()
            .unwrap_or(0)
    }
}

/// The buffers of one run.
pub(crate) struct Staging {
    sizes: Sizes,
    pinned_in: ocl::MemMap<u8>,
    device_in: ocl::Buffer<u8>,
    flags: ocl::Buffer<u8>,
    between: Vec<ocl::Buffer<u8>>,
    device_out: ocl::Buffer<u8>,
    pinned_out: ocl::MemMap<u8>,
    // The buffers behind the maps, kept alive with them.
    _pinned: [ocl::Buffer<u8>; 2],
}

fn device_buffer(device: &OpenCl, len: usize) -> ocl::Result<ocl::Buffer<u8>> {
    ocl::Buffer::<u8>::builder()
        .queue(device.compute.clone())
        .flags(ocl::MemFlags::new().read_write())
        .len(len.max(1))
        .build()
}

/// A pinned host buffer of `len` bytes and its mapping.
fn pinned(
    device: &OpenCl,
    queue: &ocl::Queue,
    len: usize,
) -> ocl::Result<(ocl::Buffer<u8>, ocl::MemMap<u8>)> {
    let buffer = ocl::Buffer::<u8>::builder()
        .queue(queue.clone())
        .flags(ocl::MemFlags::new().read_write().alloc_host_ptr())
        .len(len.max(1))
        .build()?;
    let _ = device;
    // SAFETY: the mapping is only read and written by this set's runs, on
    // the host, while no command uses the pinned buffer itself: it is
    // only ever the host side of a write or read of another buffer.
    let map = unsafe { buffer.map().queue(queue).enq()? };
    Ok((buffer, map))
}

impl Staging {
    /// New buffers for `sizes`.
    pub(crate) fn new(device: &OpenCl, sizes: &Sizes) -> adl_core::Result<Self> {
        let build = || -> ocl::Result<Staging> {
            let (pin_in, pinned_in) = pinned(device, &device.upload, sizes.input)?;
            let (pin_out, pinned_out) = pinned(device, &device.download, sizes.output)?;
            Ok(Staging {
                sizes: sizes.clone(),
                pinned_in,
                device_in: device_buffer(device, sizes.input)?,
                flags: device_buffer(device, sizes.flags)?,
                between: sizes
                    .between
                    .iter()
                    .map(|&len| device_buffer(device, len))
                    .collect::<ocl::Result<_>>()?,
                device_out: device_buffer(device, sizes.output)?,
                pinned_out,
                _pinned: [pin_in, pin_out],
            })
        };
        build().map_err(|e| {
            let reason = if super::out_of_memory(&e) {
                format!("out of device memory allocating the batch's buffers: {e}")
            } else {
                format!("cannot allocate the batch's buffers: {e}")
            };
            kernel_error("", &device.name, reason)
        })
    }

    /// Whether this set has room for `sizes`.
    pub(crate) fn fits(&self, sizes: &Sizes) -> bool {
        self.sizes.input >= sizes.input
            && self.sizes.flags >= sizes.flags
            && self.sizes.output >= sizes.output
            && self.sizes.between.len() == sizes.between.len()
            && self
                .sizes
                .between
                .iter()
                .zip(&sizes.between)
                .all(|(have, need)| have >= need)
    }

    /// Upload `input`, run `steps`, download into `output`. An error names
    /// the step that failed, where one did.
    pub(crate) fn run<'s>(
        &mut self,
        device: &OpenCl,
        steps: &'s [Step],
        programs: &[ocl::Program],
        input: HostBatch<'_>,
        (shape, range): ([u64; 5], Range),
        output: &mut Output<'_>,
    ) -> Result<(), (Option<&'s str>, ocl::Error)> {
        let whole = |e: ocl::Error| (None, e);
        let input_len = input.data.len();
        // A batch of rows still in their table is gathered here, once,
        // straight into the pinned upload buffer.
        input
            .data
            .copy_to(&mut self.pinned_in[..input_len])
            .map_err(|e| (None, ocl::Error::from(e.to_string())))?;
        let no_flags;
        let flags = match input.flags {
            Some(flags) => flags,
            None => {
                no_flags = vec![
                    0u8;
                    self.sizes
                        .flags
                        .min(input.shape.first().copied().unwrap_or(1).max(1))
                ];
                &no_flags[..]
            }
        };
        self.flags
            .write(flags)
            .queue(&device.upload)
            .enq()
            .map_err(whole)?;
        let mut ready = ocl::Event::empty();
        // SAFETY: the pinned memory written from stays untouched until the
        // download below, which waits (through the kernels) for this write.
        unsafe {
            self.device_in
                .write(&self.pinned_in[..input_len])
                .queue(&device.upload)
                .block(false)
                .enew(&mut ready)
                .enq()
                .map_err(whole)?;
        }
        let n = shape[0] as usize;
        let count = steps.len();
        for (k, (step, program)) in steps.iter().zip(programs).enumerate() {
            let failed = |e: ocl::Error| (Some(step.nodes.as_str()), e);
            let source = if k == 0 {
                &self.device_in
            } else {
                &self.between[k - 1]
            };
            let target = if k + 1 == count {
                &self.device_out
            } else {
                &self.between[k]
            };
            let arrays = arg_buffers(device, &step.args).map_err(failed)?;
            let mut builder = ocl::Kernel::builder();
            builder
                .program(program)
                .name(step.entry.clone())
                .queue(device.compute.clone());
            if step.generated {
                builder.global_work_size([range.x, range.y, range.z]);
            } else {
                builder.global_work_size(n);
            }
            // SAFETY: buffers travel as bytes (`Buffer<u8>`) while the
            // kernel's pointers are typed; each buffer holds `n` elements
            // of the type the kernel's parameter names (the generated
            // source uses the launches' types; a user kernel follows the
            // documented ABI), so only the check of the Rust-side element
            // type is skipped, not the sizes.
            unsafe {
                builder.disable_arg_type_check();
            }
            builder.arg(source).arg(target).arg(&self.flags);
            if step.generated {
                for x in [range.x, range.y, range.channels_z, range.last] {
                    builder.arg(x as u64);
                }
            } else {
                for x in shape {
                    builder.arg(x);
                }
            }
            for (arg, array) in step.args.iter().zip(&arrays) {
                match (arg, array) {
                    (_, Some(buffer)) => builder.arg(buffer),
                    (KernelArg::F32(x), None) => builder.arg(*x),
                    (KernelArg::F64(x), None) => builder.arg(*x),
                    (KernelArg::I32(x), None) => builder.arg(*x),
                    (KernelArg::U32(x), None) => builder.arg(*x),
                    (KernelArg::I64(x), None) => builder.arg(*x),
                    (KernelArg::U64(x), None) => builder.arg(*x),
                    (other, None) => {
                        return Err((
                            Some(step.nodes.as_str()),
                            ocl::Error::from(format!("unsupported kernel argument {other:?}")),
                        ));
                    }
                };
            }
            let kernel = builder.build().map_err(failed)?;
            let mut done = ocl::Event::empty();
            // SAFETY: every buffer the kernel reads or writes lives in this
            // set (or `arrays`), which outlives the download that waits
            // for the kernel.
            unsafe {
                kernel
                    .cmd()
                    .ewait(&ready)
                    .enew(&mut done)
                    .enq()
                    .map_err(failed)?;
            }
            ready = done;
            // `arrays` must outlive the kernel: wait for it before they go.
            if !arrays.is_empty() {
                ready.wait_for().map_err(|e| failed(e.into()))?;
            }
        }
        let output_len = output.remaining();
        self.device_out
            .read(&mut self.pinned_out[..output_len])
            .queue(&device.download)
            .ewait(&ready)
            .enq()
            .map_err(whole)?;
        output
            .append(&self.pinned_out[..output_len])
            .map_err(|e| whole(ocl::Error::from(e.to_string())))?;
        Ok(())
    }
}
