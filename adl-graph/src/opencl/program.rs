//! From launches to OpenCL programs: the fusion of consecutive elementwise
//! launches into one kernel, and the source of each kernel. Pure code,
//! tested without a device.

use adl_core::kernel::{ElementType, KernelArg, Launch, Op};

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
}

/// Split `launches` into kernels: with `fuse`, every run of fusable
/// launches (a gather only at the start of a run) becomes one kernel;
/// without, each launch is its own.
pub(crate) fn steps(launches: &[Launch], fuse: bool) -> Vec<Step> {
    let mut groups: Vec<Vec<&Launch>> = Vec::new();
    for launch in launches {
        let joins = fuse
            && launch.fusable()
            && !matches!(launch.op, Op::Gather { .. })
            && groups
                .last()
                .and_then(|g| g.last())
                .is_some_and(|prev| prev.fusable());
        match groups.last_mut() {
            Some(group) if joins => group.push(launch),
            _ => groups.push(vec![launch]),
        }
    }
    groups.into_iter().map(|g| step(&g)).collect()
}

fn step(group: &[&Launch]) -> Step {
    let nodes = group
        .iter()
        .map(|l| l.node.as_ref())
        .collect::<Vec<_>>()
        .join(" + ");
    let (first, last) = (group[0], group[group.len() - 1]);
    if let [
        Launch {
            op:
                Op::Custom {
                    source,
                    entry,
                    args,
                },
            ..
        },
    ] = group
    {
        return Step {
            source: format!("{PRAGMA}{source}"),
            entry: entry.to_string(),
            input: first.input,
            output: first.output,
            args: args.clone(),
            nodes,
        };
    }
    Step {
        source: fused_source(group),
        entry: FUSED_ENTRY.to_owned(),
        input: first.input,
        output: last.output,
        args: Vec::new(),
        nodes,
    }
}

/// The source of one kernel running `group` (fusable launches) element by
/// element.
fn fused_source(group: &[&Launch]) -> String {
    let input = group[0].input.cl_name();
    let output = group[group.len() - 1].output.cl_name();
    let mut body = String::new();
    let mut start = 0;
    let index = match &group[0].op {
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
        let Op::Map { expr } = &launch.op else {
            continue;
        };
        let name = format!("x{}", k + 1);
        body.push_str(&format!(
            "    {out} {name};\n    {{ const {inp} v = {last}; {name} = {expr}; }} // {node}\n",
            out = launch.output.cl_name(),
            inp = launch.input.cl_name(),
            node = launch.node,
        ));
        last = name;
    }
    body.push_str(&format!("    output[i] = {last};\n"));
    format!(
        "{PRAGMA}__kernel void {FUSED_ENTRY}(__global const {input}* input, __global {output}* output,\n    \
         __global const uchar* flags, const ulong n, const ulong per_sample,\n    \
         const ulong channels, const ulong inner, const ulong last) {{\n    \
         const ulong i = get_global_id(0);\n    \
         if (i >= n) return;\n    \
         const ulong c = (i / inner) % channels;\n{body}}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_core::kernel::ElementType::{F32, U8};

    fn launches() -> Vec<Launch> {
        vec![
            Launch::gather("flip", U8, "(flags[i / per_sample] ? i : i)"),
            Launch::map("to_f32", U8, F32, "(float)v / 255.0f"),
            Launch::map("normalize", F32, F32, "(v - 0.5f) / 0.25f"),
            Launch::custom("mine", F32, F32, "__kernel void mine() {}", "mine", vec![]),
            Launch::map("clamp", F32, F32, "v"),
        ]
    }

    #[test]
    fn fusion_groups_runs_of_elementwise_launches() {
        let fused = steps(&launches(), true);
        let nodes: Vec<&str> = fused.iter().map(|s| s.nodes.as_str()).collect();
        assert_eq!(nodes, ["flip + to_f32 + normalize", "mine", "clamp"]);
        assert_eq!((fused[0].input, fused[0].output), (U8, F32));
        assert_eq!(fused[1].entry, "mine");
        assert!(fused[1].source.starts_with(PRAGMA));
        let unfused = steps(&launches(), false);
        assert_eq!(unfused.len(), 5);
    }

    #[test]
    fn a_gather_starts_a_new_kernel() {
        let launches = vec![
            Launch::map("a", F32, F32, "v"),
            Launch::gather("flip", F32, "i"),
        ];
        assert_eq!(steps(&launches, true).len(), 2);
    }

    #[test]
    fn fused_source_reads_once_and_writes_once() {
        let step = &steps(&launches()[..3], true)[0];
        insta::assert_snapshot!(step.source);
    }
}
