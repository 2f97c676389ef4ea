//! From launches to OpenCL programs: the fusion of consecutive elementwise
//! launches into one kernel, and the source of each kernel. Pure code,
//! tested without a device.

use adl_exec::{ElementType, KernelArg, Launch, Op};

/// The first line of every program: `a * b + c` is never contracted into
/// one rounding, so kernels give the Rust bodies' bits.
pub(crate) const PRAGMA: &str = "#pragma OPENCL FP_CONTRACT OFF\n";

/// Options of every build: `/` and `sqrt` correctly rounded.
pub(crate) const BUILD_OPTIONS: &str = "-cl-fp32-correctly-rounded-divide-sqrt";

/// The name of every generated kernel.
pub(crate) const FUSED_ENTRY: &str = "adl_fused";

/// One kernel to launch: a run of fused launches, or a user's kernel.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    /// The source (with the pragma).
    pub(crate) source: String,
    /// The `__kernel` function.
    pub(crate) entry: String,
    /// The element type read and the element type written.
    pub(crate) input: ElementType,
    pub(crate) output: ElementType,
    /// The node's own arguments (user kernels).
    pub(crate) args: Vec<KernelArg>,
    /// The nodes it runs, joined by ` + ` (for errors).
    pub(crate) nodes: String,
    /// Whether it is generated (launched over the three-dimensional range
    /// of [`Range`]) or a user's kernel (the one-dimensional range of the
    /// kernel ABI).
    pub(crate) generated: bool,
}

/// How a generated kernel covers the batch: a three-dimensional range
/// `(x, y, z)` with flat index `i = (z * y_len + y) * x_len + x`, chosen so
/// that the channel and the sample of an element need no division per
/// element (they come from `z`, the same across a work-group row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    /// Global sizes.
    pub(crate) x: usize,
    pub(crate) y: usize,
    pub(crate) z: usize,
    /// Channels counted along `z` (1 when the channel is `x`).
    pub(crate) channels_z: usize,
    /// The length of the last axis.
    pub(crate) last: usize,
    /// Whether the channel is `x` (a batch of rank 2: `[batch, features]`)
    /// rather than `z % channels_z` (rank 3 or more).
    pub(crate) channel_is_x: bool,
}

impl Range {
    /// The range for a batch of `shape` (not empty).
    pub(crate) fn of(shape: &[usize]) -> Self {
        match shape {
            [] => Range {
                x: 1,
                y: 1,
                z: 1,
                channels_z: 1,
                last: 1,
                channel_is_x: false,
            },
            [batch] => Range {
                x: 1,
                y: 1,
                z: *batch,
                channels_z: 1,
                last: 1,
                channel_is_x: false,
            },
            [batch, features] => Range {
                x: *features,
                y: 1,
                z: *batch,
                channels_z: 1,
                last: *features,
                channel_is_x: true,
            },
            [batch, channels, rest @ ..] => {
                let last = rest.last().copied().unwrap_or(1);
                let inner: usize = rest.iter().product();
                Range {
                    x: last,
                    y: inner / last.max(1),
                    z: batch * channels,
                    channels_z: *channels,
                    last,
                    channel_is_x: false,
                }
            }
        }
    }
}

/// The kernels of `launches`: each of `groups` (index ranges that cover
/// the launches in order, as [`groups`](adl_rules::fusion::groups) decided
/// for a device) becomes one kernel, generated for `range` where it is made
/// of maps and gathers, the user's own where it is one custom launch.
/// `None` when the groups do not cover the launches, or join a custom
/// launch with others (a bug in the caller).
pub(crate) fn steps(
    launches: &[Launch],
    groups: &[std::ops::Range<usize>],
    range: &Range,
) -> Option<Vec<Step>> {
    let mut next = 0;
    let mut steps = Vec::with_capacity(groups.len());
    for group in groups {
        let members = launches.get(group.clone()).filter(|g| !g.is_empty())?;
        let custom = members.iter().any(|l| matches!(l.op(), Op::Custom { .. }));
        if group.start != next || (custom && members.len() > 1) {
            return None;
        }
        next = group.end;
        let members: Vec<&Launch> = members.iter().collect();
        steps.push(step(&members, range));
    }
    (next == launches.len()).then_some(steps)
}

fn step(group: &[&Launch], range: &Range) -> Step {
    let nodes = group
        .iter()
        .map(|l| l.node.as_ref())
        .collect::<Vec<_>>()
        .join(" + ");
    let (first, last) = (group[0], group[group.len() - 1]);
    if let [one] = group
        && let Op::Custom {
            source,
            entry,
            args,
        } = one.op()
    {
        return Step {
            source: format!("{PRAGMA}{source}"),
            entry: entry.to_string(),
            input: first.input(),
            output: first.output(),
            args: args.clone(),
            nodes,
            generated: false,
        };
    }
    Step {
        source: fused_source(group, range),
        entry: FUSED_ENTRY.to_owned(),
        input: first.input(),
        output: last.output(),
        args: Vec::new(),
        nodes,
        generated: true,
    }
}

/// The source of one kernel running `group` (fusable launches) element by
/// element over `range`.
fn fused_source(group: &[&Launch], range: &Range) -> String {
    let input = group[0].input().cl_name();
    let output = group[group.len() - 1].output().cl_name();
    let mut body = String::new();
    let mut start = 0;
    let index = match group[0].op() {
        Op::Gather { index } => {
            start = 1;
            index.as_str()
        }
        _ => "i",
    };
    body.push_str(&format!("    const ulong src = {index};\n"));
    body.push_str(&format!("    const {input} x0 = input[src];\n"));
    let mut last = "x0".to_owned();
    for (k, launch) in group[start..].iter().enumerate() {
        let Op::Map { expr } = launch.op() else {
            continue;
        };
        let name = format!("x{}", k + 1);
        body.push_str(&format!(
            "    {out} {name};\n    {{ const {inp} v = {last}; {name} = {expr}; }} // {node}\n",
            out = launch.output().cl_name(),
            inp = launch.input().cl_name(),
            node = launch.node,
        ));
        last = name;
    }
    body.push_str(&format!("    output[i] = {last};\n"));
    let channel = if range.channel_is_x {
        "const ulong c = x;"
    } else {
        "const ulong c = z % channels_z;"
    };
    format!(
        "{PRAGMA}__kernel void {FUSED_ENTRY}(__global const {input}* input, __global {output}* output,\n    \
         __global const uchar* flags, const ulong x_len, const ulong y_len,\n    \
         const ulong channels_z, const ulong last) {{\n    \
         const ulong x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n    \
         const ulong i = (z * y_len + y) * x_len + x;\n    \
         const ulong sample = z / channels_z;\n    \
         const ulong w = x;\n    \
         {channel}\n{body}}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_exec::ElementType::{F32, U8};
    use adl_rules::fusion::{Target, groups};

    fn launches() -> Vec<Launch> {
        // SAFETY: an index within its row, arithmetic on `v`, and an empty
        // kernel: none reads or writes outside its buffers.
        unsafe {
            vec![
                Launch::gather("flip", U8, "(flags[sample] ? i - w + (last - 1 - w) : i)"),
                Launch::map("to_f32", U8, F32, "(float)v / 255.0f"),
                Launch::map("normalize", F32, F32, "(v - 0.5f) / 0.25f"),
                Launch::custom("mine", F32, F32, "__kernel void mine() {}", "mine", vec![]),
                Launch::map("clamp", F32, F32, "v"),
            ]
        }
    }

    /// The launches' steps as [`groups`] decides them on a device.
    fn grouped(launches: &[Launch], fuse: bool, range: &Range) -> Vec<Step> {
        let classes: Vec<_> = launches.iter().map(Launch::fusion).collect();
        let groups = groups(&classes, Target::Device, fuse);
        steps(launches, &groups, range).expect("the groups cover the launches")
    }

    #[test]
    fn each_group_is_one_kernel() {
        let range = Range::of(&[2, 3, 4, 5]);
        let fused = grouped(&launches(), true, &range);
        let nodes: Vec<&str> = fused.iter().map(|s| s.nodes.as_str()).collect();
        assert_eq!(nodes, ["flip + to_f32 + normalize", "mine", "clamp"]);
        assert_eq!((fused[0].input, fused[0].output), (U8, F32));
        assert_eq!(fused[1].entry, "mine");
        assert!(fused[1].source.starts_with(PRAGMA));
        let unfused = grouped(&launches(), false, &range);
        assert_eq!(unfused.len(), 5);
    }

    #[test]
    fn groups_that_do_not_fit_the_launches_are_refused() {
        let range = Range::of(&[2, 3, 4, 5]);
        let five = launches();
        assert!(steps(&five, &[0..3, 3..4], &range).is_none(), "not covered");
        assert!(
            steps(&five, &[0..4, 4..5], &range).is_none(),
            "a custom one joined"
        );
        assert!(steps(&five, &[1..3, 3..5], &range).is_none(), "a gap");
        assert!(steps(&five, &[0..3, 3..4, 4..5], &range).is_some());
    }

    #[test]
    fn ranges_put_channels_and_samples_on_z_or_x() {
        let image = Range::of(&[64, 3, 32, 48]);
        assert_eq!(
            (image.x, image.y, image.z, image.channels_z, image.last),
            (48, 32, 192, 3, 48)
        );
        assert!(!image.channel_is_x);
        let rows = Range::of(&[256, 64]);
        assert_eq!((rows.x, rows.y, rows.z, rows.last), (64, 1, 256, 64));
        assert!(rows.channel_is_x);
        let scalars = Range::of(&[9]);
        assert_eq!((scalars.x, scalars.y, scalars.z), (1, 1, 9));
    }

    #[test]
    fn a_gather_starts_a_new_kernel() {
        // SAFETY: the identity, as a map and as a gather.
        let launches = unsafe {
            vec![
                Launch::map("a", F32, F32, "v"),
                Launch::gather("flip", F32, "i"),
            ]
        };
        assert_eq!(grouped(&launches, true, &Range::of(&[2, 3])).len(), 2);
    }

    #[test]
    fn fused_source_reads_once_and_writes_once() {
        let step = &grouped(&launches()[..3], true, &Range::of(&[2, 3, 4, 5]))[0];
        insta::assert_snapshot!(step.source);
    }
}
