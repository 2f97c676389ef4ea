/// The stage a node belongs to, as in the specification's pipeline:
/// `sample` (per sample, CPU) → `collate` (exactly once) → `batch` (per
/// batch, nominally on an accelerator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// A per-sample transform.
    Sample,
    /// The one collate: samples → batch.
    Collate,
    /// A per-batch transform.
    Batch,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Sample, Stage::Collate, Stage::Batch];

    /// The DSL keyword: `sample`, `collate`, `batch`.
    pub fn keyword(self) -> &'static str {
        match self {
            Stage::Sample => "sample",
            Stage::Collate => "collate",
            Stage::Batch => "batch",
        }
    }

    /// The stage of a DSL keyword.
    pub fn from_keyword(word: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.keyword() == word)
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.keyword())
    }
}

/// Where a node runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Device {
    /// On the CPU (sample nodes, the collate, batch nodes without a
    /// kernel).
    Cpu,
    /// As an OpenCL kernel (batch nodes that declare one; the executor that
    /// runs kernels is still to come, and such nodes run their Rust body).
    OpenCl,
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::OpenCl => "opencl",
        })
    }
}
